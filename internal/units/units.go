// Package units reads and writes the numbers admins type and read: sizes,
// rates, durations and RAID levels, the way the tools they already know do.
//
// Sizes follow fio, dd and mdadm: a bare suffix K, M, G, T, P (any case) is
// binary, ×1024, so --size 1G is 1 GiB. Spelled-out units keep their
// meaning: KiB/MiB/GiB are binary, KB/MB/GB are decimal (×1000), as disk
// makers and `df -H` use them. A bare number is bytes.
//
// Rates follow iperf3 -b for bits and ordinary byte spellings for bytes: a
// trailing "bit", "bps", "b/s" (lower-case b) or a bare K/M/G suffix means
// bits per second, decimal (1G = 10⁹ bit/s); "B/s" or "Bps" (upper-case B)
// means bytes per second, so 125MB/s is 10⁹ bit/s and 1MiB/s is 2²⁰ B/s.
//
// Durations accept Go's forms (500us, 20ms, 1m30s) and, as iperf3 -t and fio
// --runtime, a bare number of seconds.
//
// The Format functions write human units for text and HTML; JSON keeps raw
// numbers.
//
// Output convention (docs/units.md), one for every renderer: storage and
// file throughput in MB/s, 10⁶ bytes per second (the figure fio prints in
// parentheses, dd's and disk datasheets' unit); network and link rates in
// Mbit/s or Gbit/s, 10⁶ and 10⁹ bits per second (iperf3's Mbits/sec,
// ethtool's Mb/s). MBs, Mbit, LinkMbit and LinkGbit write them; the
// *Header constants name them in table headers. A kernel knob keeps its own
// unit (md's sync_speed_max is KiB/s) and evidence quotes a file as it reads.
// Prometheus uses base units (bytes or bits per second).
package units

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// ErrUnit is wrapped by every parse error.
var ErrUnit = errors.New("bad unit")

// SizeHelp states the accepted size forms, for flag help and errors.
const SizeHelp = "bytes, or K/M/G/T (binary ×1024, as fio and dd), KiB/MiB/GiB/TiB (binary) or KB/MB/GB/TB (decimal), e.g. 1G, 512M, 4TB"

// RateHelp states the accepted rate forms.
const RateHelp = "bits as iperf3 -b (1G, 1Gbit, 100Mbit/s, 10Gbps) or bytes per second (125MB/s, 100MiB/s)"

// DurationHelp states the accepted duration forms.
const DurationHelp = "seconds (30), or with a unit: 500us, 20ms, 10s, 2m"

// split cuts s into its number and unit, trimming spaces between them.
func split(s string) (num, unit string) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || (i == 0 && t[i] == '+')) {
		i++
	}
	return t[:i], strings.TrimSpace(t[i:])
}

func number(num string) (float64, bool) {
	if num == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
		return 0, false
	}
	return v, true
}

var prefixes = map[byte]int{'k': 1, 'm': 2, 'g': 3, 't': 4, 'p': 5, 'e': 6}

// sizeMult reads a size unit: "", "b", "k", "kb", "kib", "ki" …
func sizeMult(unit string) (float64, bool) {
	u := strings.ToLower(unit)
	switch u {
	case "", "b", "byte", "bytes":
		return 1, true
	}
	p, ok := prefixes[u[0]]
	if !ok {
		return 0, false
	}
	switch u[1:] {
	case "", "i", "ib": // fio/dd/mdadm bare suffix, and spelled binary
		return math.Pow(1024, float64(p)), true
	case "b": // spelled-out KB/MB/GB: decimal, as disk makers and df -H
		return math.Pow(1000, float64(p)), true
	}
	return 0, false
}

// MaxSize is the largest size ParseSize accepts: 2⁶³−1 bytes (8 EiB), the
// largest file or block device Linux can address (loff_t is a signed
// 64-bit offset). Callers multiply sizes by counts in uint64, so one
// bound here keeps every product checkable.
const MaxSize = math.MaxInt64

// ParseSize reads a byte size: "1G" (1 GiB), "512M", "64k", "4TB" (4×10¹²),
// "512KiB", "4096" (bytes). Zero, a fraction of a byte that rounds to
// zero, and sizes beyond MaxSize are refused, never wrapped.
func ParseSize(s string) (uint64, error) {
	num, unit := split(s)
	v, ok := number(num)
	mult, okU := sizeMult(unit)
	if !ok || !okU || v <= 0 {
		return 0, fmt.Errorf("%w: size %q: use %s", ErrUnit, s, SizeHelp)
	}
	tooBig := fmt.Errorf("%w: size %q: at most 8 EiB (2^63-1 bytes, the largest file or device Linux addresses)", ErrUnit, s)
	// Whole numbers exactly (a float64 rounds 2⁶³−1 up to 2⁶³).
	if u, err := strconv.ParseUint(num, 10, 64); err == nil {
		hi, lo := bits.Mul64(u, uint64(mult))
		if hi != 0 || lo > MaxSize {
			return 0, tooBig
		}
		return lo, nil // not 0: v > 0 and mult ≥ 1
	}
	// float64 holds 2⁶³ exactly; anything at or above it does not fit.
	if v*mult >= 1<<63 {
		return 0, tooBig
	}
	n := uint64(math.Round(v * mult))
	if n == 0 {
		return 0, fmt.Errorf("%w: size %q is less than one byte", ErrUnit, s)
	}
	return n, nil
}

// ParseRate reads a rate and returns bits per second (see the package
// comment): "1G", "1Gbit", "100Mbit/s", "10Gbps" are bits; "125MB/s",
// "100MiB/s", "125MBps" are bytes per second, converted to bits.
func ParseRate(s string) (float64, error) {
	num, unit := split(s)
	v, ok := number(num)
	bad := func() (float64, error) {
		return 0, fmt.Errorf("%w: rate %q: use %s", ErrUnit, s, RateHelp)
	}
	if !ok || v <= 0 {
		return bad()
	}
	u := unit
	bytes := false
	lu := strings.ToLower(u)
	switch {
	case strings.HasSuffix(lu, "bit/s"), strings.HasSuffix(lu, "bits/s"):
		u = u[:strings.LastIndex(lu, "bit")]
	case strings.HasSuffix(lu, "bits"), strings.HasSuffix(lu, "bit"):
		u = u[:strings.LastIndex(lu, "bit")]
	case strings.HasSuffix(lu, "gbe"): // 1GbE, 10GbE, 2.5GbE: the Ethernet name of the rate
		u = u[:len(u)-2]
	case strings.HasSuffix(u, "B/s"), strings.HasSuffix(u, "Bps"), strings.HasSuffix(lu, "byte/s"), strings.HasSuffix(lu, "bytes/s"):
		bytes = true
		if i := strings.LastIndex(lu, "byte"); i >= 0 && strings.HasSuffix(lu, "/s") && strings.Contains(lu[i:], "byte") {
			u = u[:i]
		} else {
			u = u[:len(u)-3]
		}
	case strings.HasSuffix(u, "b/s"), strings.HasSuffix(u, "bps"):
		u = u[:len(u)-3]
	case strings.HasSuffix(u, "/s"):
		return bad() // "1G/s": ambiguous, say which
	}
	mult := 1.0
	if u != "" {
		p, ok := prefixes[strings.ToLower(u)[0]]
		if !ok {
			return bad()
		}
		switch strings.ToLower(u[1:]) {
		case "":
			mult = math.Pow(1000, float64(p))
		case "i":
			mult = math.Pow(1024, float64(p))
		default:
			return bad()
		}
	}
	r := v * mult
	if bytes {
		r *= 8
	}
	if math.IsInf(r, 0) {
		return bad()
	}
	return r, nil
}

// ParseDuration reads a duration: a bare number is seconds ("5", "0.5"),
// otherwise Go's forms with µs accepted for us. Zero and negatives are
// refused.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ReplaceAll(s, "µs", "us"))
	if v, ok := number(t); ok {
		if v*1e9 >= math.MaxInt64 {
			return 0, fmt.Errorf("%w: duration %q: at most 292 years (a 64-bit count of nanoseconds)", ErrUnit, s)
		}
		if v <= 0 || math.Round(v*1e9) == 0 {
			return 0, fmt.Errorf("%w: duration %q: use %s", ErrUnit, s, DurationHelp)
		}
		return time.Duration(math.Round(v * 1e9)), nil
	}
	for _, w := range []struct{ long, short string }{{"sec", "s"}, {"min", "m"}} {
		if strings.HasSuffix(t, w.long) {
			t = strings.TrimSuffix(t, w.long) + w.short
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: duration %q: use %s", ErrUnit, s, DurationHelp)
	}
	return d, nil
}

// ParseRAIDLevel reads an md RAID level as mdadm --level does: "raid6",
// "RAID6", "6", "r6", "stripe" (0), "mirror" (1), "raid10" or "1+0".
func ParseRAIDLevel(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "stripe", "striped":
		return 0, nil
	case "mirror", "mirrored":
		return 1, nil
	case "1+0", "raid1+0":
		return 10, nil
	}
	for _, p := range []string{"raid-", "raid", "r"} {
		if strings.HasPrefix(t, p) {
			t = t[len(p):]
			break
		}
	}
	switch t {
	case "0", "1", "4", "5", "6", "10":
		return strconv.Atoi(t)
	}
	return -1, fmt.Errorf("%w: RAID level %q: use 0, 1, 4, 5, 6 or 10 (raid6, RAID6 and 6 are the same)", ErrUnit, s)
}

// RAIDLevels are the values ParseRAIDLevel documents, for completion.
var RAIDLevels = []string{"raid0", "raid1", "raid4", "raid5", "raid6", "raid10"}

// ParseVdevType reads a ZFS vdev type: raidz/raidz1/z1, raidz2/z2,
// raidz3/z3, mirror, disk/stripe. It returns the canonical type ("raidz",
// "mirror" or "disk") and the parity (raidz only).
func ParseVdevType(s string) (typ string, parity int, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "raidz", "raidz1", "z1", "z", "rz1":
		return "raidz", 1, nil
	case "raidz2", "z2", "rz2":
		return "raidz", 2, nil
	case "raidz3", "z3", "rz3":
		return "raidz", 3, nil
	case "mirror":
		return "mirror", 0, nil
	case "disk", "stripe":
		return "disk", 0, nil
	}
	return "", 0, fmt.Errorf("%w: vdev type %q (want raidz1/z1, raidz2/z2, raidz3/z3, mirror or disk)", ErrUnit, s)
}

// VdevTypes are the canonical vdev types, for completion.
var VdevTypes = []string{"raidz1", "raidz2", "raidz3", "mirror", "disk"}

// trim formats v with up to prec decimals and no trailing zeros.
func trim(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// scaled picks the largest unit not above v.
func scaled(v, base float64, names []string) string {
	i := 0
	for i < len(names)-1 && math.Abs(v) >= base {
		v /= base
		i++
	}
	prec := 0
	switch {
	case i == 0:
		prec = 0
	case math.Abs(v) < 10:
		prec = 2
	case math.Abs(v) < 100:
		prec = 1
	}
	return trim(v, prec) + " " + names[i]
}

// Bytes writes a byte count in binary units, as the kernel and `free -h`:
// 1536 → "1.5 KiB", 4000787030016 → "3.64 TiB".
func Bytes(n uint64) string {
	return scaled(float64(n), 1024, []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"})
}

// BytesDecimal writes a byte count in decimal units, as disk labels:
// 4000787030016 → "4 TB".
func BytesDecimal(n uint64) string {
	return scaled(float64(n), 1000, []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"})
}

// BitRate writes bits per second: 1e9 → "1 Gbit/s".
func BitRate(bps float64) string {
	return scaled(bps, 1000, []string{"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"})
}

// ByteRate writes bytes per second in decimal units, as iperf3 and dd:
// 125e6 → "125 MB/s".
func ByteRate(bps float64) string {
	return scaled(bps, 1000, []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s"})
}

// MBsUnit and MbitUnit are the two throughput units every renderer writes.
const (
	MBsUnit  = "MB/s"   // 10^6 bytes per second: storage and file throughput
	MbitUnit = "Mbit/s" // 10^6 bits per second: network throughput and link speeds
)

// Table header forms: the unit and its basis, as every table states it.
const (
	MBsHeader  = "MB/s (10^6 B/s)"
	MbitHeader = "Mbit/s (10^6 bit/s)"
)

// MBs writes a storage or file rate given in MB/s (10⁶ B/s), whole
// megabytes: 118.4 → "118 MB/s". Below 10 MB/s one decimal: "3.5 MB/s".
func MBs(mbs float64) string { return MBsNum(mbs) + " " + MBsUnit }

// MBsNum is MBs without the unit, for table cells under MBsHeader.
func MBsNum(mbs float64) string {
	if math.Abs(mbs) < 10 && mbs != math.Trunc(mbs) {
		return strconv.FormatFloat(mbs, 'f', 1, 64)
	}
	return strconv.FormatFloat(mbs, 'f', 0, 64)
}

// MBsOfBytes writes bytes per second as MB/s: 125e6 → "125 MB/s".
func MBsOfBytes(bps float64) string { return MBs(bps / 1e6) }

// MBsOfMiB converts fio's MiB/s (2²⁰ B/s) figure to MB/s (10⁶ B/s).
func MBsOfMiB(mib float64) float64 { return mib * (1 << 20) / 1e6 }

// Mbit writes a network rate given in bits per second as whole Mbit/s:
// 941.3e6 → "941 Mbit/s".
func Mbit(bps float64) string { return MbitNum(bps) + " " + MbitUnit }

// MbitNum is Mbit without the unit, for table cells under MbitHeader.
func MbitNum(bps float64) string { return strconv.FormatFloat(bps/1e6, 'f', 0, 64) }

// LinkMbit writes a negotiated link speed the kernel reports in Mbit/s
// (/sys/class/net/*/speed, USB speed): 1000 → "1000 Mbit/s".
func LinkMbit(mbps int) string { return strconv.Itoa(mbps) + " " + MbitUnit }

// LinkGbit writes a link speed in Gbit/s (SATA 1.5/3.0/6.0): 6 → "6.0 Gbit/s".
func LinkGbit(gbps float64) string { return strconv.FormatFloat(gbps, 'f', 1, 64) + " Gbit/s" }

// BytesWithRaw writes "4096 (4 KiB)" when the human form differs, for text
// output that keeps the exact count next to the readable one.
func BytesWithRaw(n uint64) string {
	h := Bytes(n)
	if n < 1024 {
		return h
	}
	return strconv.FormatUint(n, 10) + " (" + h + ")"
}
