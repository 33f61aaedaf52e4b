// Package knobs is nastune's table of kernel sysctls that matter on a file
// server: for each key its unit, valid range, the kernel's default per
// version range (or how the kernel computes it at boot), the version that
// removed it or made it a no-op, which values hurt and why, and the primary
// source. Rules judge configuration files and runtime values against it;
// docs/knobs.md is generated from it (tools/gendocs).
//
// Accuracy over coverage: a key whose default or history could not be
// confirmed from a primary source carries no default (Default returns
// false) and is never judged against one.
package knobs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Version is a kernel version, major.minor[.patch]. The zero Version means
// "not known" or "always" depending on the field.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string {
	switch {
	case v.IsZero():
		return ""
	case v.Patch > 0:
		return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// IsZero reports whether no version is set.
func (v Version) IsZero() bool { return v.Major == 0 && v.Minor == 0 }

// Less orders versions.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// Env is what a computed default depends on: the running kernel and the
// memory the kernel saw at boot.
type Env struct {
	// Kernel is the running kernel's version; zero when unknown.
	Kernel Version
	// LowMemBytes is the low memory (all RAM on 64-bit kernels), 0 when
	// unknown.
	LowMemBytes uint64
}

// Unit of a value.
type Unit string

// Units used in the table.
const (
	Bytes     Unit = "bytes"
	Pages     Unit = "pages (4 KiB on most systems)"
	KBytes    Unit = "kB"
	Percent   Unit = "percent"
	Boolean   Unit = "boolean"
	Enum      Unit = "enum"
	Count     Unit = "count"
	Packets   Unit = "packets"
	Seconds   Unit = "seconds"
	Centisecs Unit = "centiseconds"
	Usecs     Unit = "microseconds"
	Text      Unit = "string"
)

// Harm says in which direction a value departs harmfully from the safe
// choice.
type Harm int

// Harm directions.
const (
	// HarmNone: values are a matter of workload; never judged generically.
	HarmNone Harm = iota
	// HarmBelow: values below the threshold (the default unless Limit is
	// set) hurt.
	HarmBelow
	// HarmAbove: values above the threshold hurt.
	HarmAbove
)

// Span is the default over a range of kernel versions: [From, Until).
type Span struct {
	From, Until Version
	// Text is the default as the documentation states it.
	Text string
	// Value computes the exact boot value; nil or "" when it depends on
	// something nastune cannot see (architecture, HZ, build options).
	Value func(Env) string
}

// Knob is one sysctl.
type Knob struct {
	Key   string
	Unit  Unit
	Range string
	// Defaults by kernel version; the first span containing the running
	// kernel applies.
	Defaults []Span
	// Added is the first kernel with the key, when it matters (zero:
	// older than any kernel nastune supports, or not confirmed).
	Added Version
	// Removed is the first kernel without the key: writing it fails (the
	// file is gone under /proc/sys).
	Removed Version
	// Inert is the first kernel where the key still exists but does
	// nothing.
	Inert Version
	// ReadOnly: the file is mode 0444 on every kernel that has it, so a
	// line setting it fails at boot (EACCES, even for root) rather than
	// being accepted.
	ReadOnly bool
	// Harm and Field (index of the vector field judged, 0 for scalars)
	// say which values hurt; Limit, when set, replaces the default as the
	// threshold (a fixed floor, or a lower bound of a RAM-scaled default).
	Harm  Harm
	Field int
	Limit func(Env) string
	// Hurts says which values hurt and why, for people.
	Hurts string
	// Rule is the rule id that judges this key with more context (the
	// generic sysctl-harmful-value rule skips it).
	Rule string
	// Sources are primary sources: kernel documentation, source files,
	// commits.
	Sources []string
}

// Primary sources.
const (
	SrcIPSysctl = "https://docs.kernel.org/networking/ip-sysctl.html"
	SrcNet      = "https://docs.kernel.org/admin-guide/sysctl/net.html"
	SrcVM       = "https://docs.kernel.org/admin-guide/sysctl/vm.html"
	SrcXFS      = "https://docs.kernel.org/admin-guide/xfs.html#removed-sysctls"
	srcTCPC     = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/net/ipv4/tcp.c (tcp_init, tcp_init_mem)"
	srcCommit   = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id="
)

var byKey map[string]*Knob

func init() {
	byKey = make(map[string]*Knob, len(table))
	for i := range table {
		byKey[table[i].Key] = &table[i]
	}
}

// Lookup returns the knob for a dotted key.
func Lookup(key string) (*Knob, bool) {
	k, ok := byKey[key]
	return k, ok
}

// All returns the table sorted by key. The slice is shared (sorted once:
// an audit asks twice, and each copy was 30 KB): do not change it.
func All() []Knob { return sorted() }

var sorted = sync.OnceValue(func() []Knob {
	out := append([]Knob(nil), table...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
})

// Keys returns every key of the table, sorted.
func Keys() []string {
	out := make([]string, 0, len(table))
	for _, k := range table {
		out = append(out, k.Key)
	}
	sort.Strings(out)
	return out
}

// Span returns the default span for a kernel, or false when none is known
// for it. An unknown kernel takes the newest span.
func (k *Knob) Span(v Version) (Span, bool) {
	if v.IsZero() {
		if len(k.Defaults) == 0 {
			return Span{}, false
		}
		return k.Defaults[len(k.Defaults)-1], true
	}
	for _, s := range k.Defaults {
		if v.Less(s.From) {
			continue
		}
		if !s.Until.IsZero() && !v.Less(s.Until) {
			continue
		}
		return s, true
	}
	return Span{}, false
}

// Default returns the kernel's boot value of the key in env, exact, or
// false when it cannot be known here.
func (k *Knob) Default(env Env) (string, bool) {
	s, ok := k.Span(env.Kernel)
	if !ok || s.Value == nil {
		return "", false
	}
	v := s.Value(env)
	return v, v != ""
}

// DefaultText is the documented default for a kernel ("" when unknown).
func (k *Knob) DefaultText(v Version) string {
	s, ok := k.Span(v)
	if !ok {
		return ""
	}
	return s.Text
}

// DeadOn reports whether the key does nothing on kernel v (removed or
// inert), and a sentence saying so.
func (k *Knob) DeadOn(v Version) (bool, string) {
	switch {
	case v.IsZero():
		return false, ""
	case !k.Removed.IsZero() && !v.Less(k.Removed):
		return true, fmt.Sprintf("removed in Linux %s", k.Removed)
	case !k.Inert.IsZero() && !v.Less(k.Inert):
		return true, fmt.Sprintf("a no-op since Linux %s", k.Inert)
	}
	return false, ""
}

// Verdict is the judgement of one value.
type Verdict struct {
	Harmful bool
	// Default is the kernel's boot value (exact), "" when unknown.
	Default string
	// Threshold is the field value the judged field was compared with.
	Threshold int64
	// Got is the judged field of the value.
	Got int64
}

// Judge compares a value with the knob's threshold on a kernel. It reports
// Harmful only when the value and the threshold are both known.
func (k *Knob) Judge(value string, env Env) Verdict {
	var out Verdict
	out.Default, _ = k.Default(env)
	if k.Harm == HarmNone {
		return out
	}
	if dead, _ := k.DeadOn(env.Kernel); dead {
		return out
	}
	got, ok := field(value, k.Field)
	if !ok {
		return out
	}
	limit := out.Default
	if k.Limit != nil {
		limit = k.Limit(env)
	}
	th, ok := field(limit, k.Field)
	if !ok {
		return out
	}
	out.Got, out.Threshold = got, th
	switch k.Harm {
	case HarmBelow:
		out.Harmful = got < th
	case HarmAbove:
		out.Harmful = got > th
	}
	return out
}

// Field returns field i (white-space separated) of a value as an integer.
func Field(value string, i int) (int64, bool) { return field(value, i) }

func field(value string, i int) (int64, bool) {
	f := strings.Fields(value)
	if i >= len(f) {
		return 0, false
	}
	v, err := strconv.ParseInt(f[i], 10, 64)
	return v, err == nil
}

// Ints reads a sysctl vector of exactly n integers ("4096 131072
// 6291456" for tcp_rmem, "32768 60999" for ip_local_port_range): the one
// reader of such values for rules and tune.
func Ints(value string, n int) ([]int64, bool) {
	f := strings.Fields(value)
	if len(f) != n {
		return nil, false
	}
	out := make([]int64, n)
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// WithField returns value with field i replaced by n (the other fields
// kept), for advice that changes one field of a vector.
func WithField(value string, i int, n int64) string {
	f := strings.Fields(value)
	if i >= len(f) {
		return value
	}
	f[i] = strconv.FormatInt(n, 10)
	return strings.Join(f, " ")
}
