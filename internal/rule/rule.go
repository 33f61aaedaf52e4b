// Package rule is the vocabulary shared by every check: what a rule is
// (Meta), what it reports (Finding with Evidence and a Recommendation) and
// how bad it is (Severity).
//
// A rule is pure: it receives the host's facts and returns findings. It
// never reads the system, so every rule can be tested with a literal
// facts.Host and replayed from a snapshot.
package rule

import (
	"fmt"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
)

// Severity orders findings. The zero value is Info.
type Severity int

// Severities, from least to most urgent.
const (
	Info Severity = iota // worth knowing; change only after measuring
	Warn                 // costs performance or memory now
	Crit                 // risks data, or cripples a data path
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warn:
		return "warn"
	case Crit:
		return "crit"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText writes the severity as its name in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity reads "info", "warn" or "crit".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "crit", "critical":
		return Crit, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warn or crit)", s)
}

// Meta describes a rule for the registry, the docs and `nastune rules`.
type Meta struct {
	// ID is stable forever: scripts and --fail-on filters key on it.
	ID     string `json:"id"`
	Family string `json:"family"`
	Title  string `json:"title"`
	// Severity is the most a finding of this rule is given; a finding may
	// be milder.
	Severity Severity `json:"severity"`
	// Doc explains what the rule checks and why, in a paragraph.
	Doc string `json:"doc"`
	// Refs are primary sources: kernel documentation, man pages, commits.
	Refs  []string `json:"refs"`
	Since string   `json:"since"`
}

// Evidence is one observed value and where it was read.
type Evidence struct {
	Source string `json:"source"`
	Value  string `json:"value"`
}

// Recommendation kinds.
const (
	KindSysctl  = "sysctl"  // Target is a dotted sysctl key
	KindSysfs   = "sysfs"   // Target is a /sys path by stable class/block name
	KindConfig  = "config"  // Target is FILE:[section]:key
	KindService = "service" // Target is a service to reload or a runtime control
	KindERC     = "erc"     // Target is a disk's /dev/disk/by-id name; Value is SCT ERC "R,W" (tenths of a second)
	KindAdvice  = "advice"  // Target says what to do; nothing to set automatically
)

// Recommendation is what to change, computed from the host's facts.
type Recommendation struct {
	Kind    string `json:"kind"`
	Target  string `json:"target"`
	Current string `json:"current,omitempty"`
	Value   string `json:"value,omitempty"`
	// Basis says which facts the value was computed from.
	Basis string `json:"basis,omitempty"`
}

// Finding is one problem on one subject.
type Finding struct {
	ID             string          `json:"id"`
	Family         string          `json:"family"`
	Severity       Severity        `json:"severity"`
	Title          string          `json:"title"`
	Subject        string          `json:"subject"`
	Evidence       []Evidence      `json:"evidence"`
	Why            string          `json:"why"`
	Recommendation *Recommendation `json:"recommendation,omitempty"`
	Refs           []string        `json:"refs"`
	// Device is the block device (whole disk or md array, by kernel name)
	// the finding is about, set by the rule that knows it; "" when it is
	// about none. Post-passes join findings to a disk's health by it (see
	// rules/sick.go). Not rendered: the subject says it for readers.
	Device string `json:"-"`
}

// Input is what a check sees: the facts and the user's stated assumptions.
type Input struct {
	Host *facts.Host
	// RTT is the round-trip time to assume for buffer sizing (LAN: 0.5 ms).
	RTT time.Duration
	// Paths are the host's data paths with their ceilings, modelled once
	// per audit by rules.Run (nil: the bus rules model them themselves).
	Paths []ceiling.Path
}

// Rule is a check with its metadata.
type Rule struct {
	Meta
	Check func(in Input) []Finding
}

// New starts a finding of this rule about subject, with the rule's
// severity, title and references.
func (m Meta) New(subject, why string, ev ...Evidence) Finding {
	return Finding{
		ID: m.ID, Family: m.Family, Severity: m.Severity, Title: m.Title,
		Subject: subject, Evidence: ev, Why: why, Refs: m.Refs,
	}
}

// On returns f about block device dev (a whole disk or md array).
func (f Finding) On(dev string) Finding {
	f.Device = dev
	return f
}

// Ev is shorthand for one piece of evidence.
func Ev(source, value string) Evidence { return Evidence{Source: source, Value: value} }
