package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/nastune/nastune/internal/safefile"
	"github.com/nastune/nastune/internal/units"
)

// Comparison is one test before and after.
type Comparison struct {
	Test   string  `json:"test"`
	Unit   string  `json:"unit"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Change float64 `json:"change_percent"`
	// Significant is true only when the ranges (lowest to highest of the
	// --repeat runs) of before and after do not overlap. Single runs
	// have no range: no noise estimate, never significant.
	Significant bool `json:"significant"`
	// Verdict is "better", "worse", "within noise" (the ranges overlap)
	// or "no noise estimate" (a side has a single run).
	Verdict string `json:"verdict"`
	Note    string `json:"note,omitempty"`
	// Warnings say how the two runs differ beyond the change being
	// measured (file size, tests, engine, device, streams…): the same on
	// every row of one comparison.
	Warnings []string `json:"warnings,omitempty"`
}

// Verdicts.
const (
	VerdictBetter  = "better"
	VerdictWorse   = "worse"
	VerdictNoise   = "within noise"
	VerdictNoRange = "no noise estimate"
)

// judge sets the verdict from the two ranges; ok is false for single runs.
func (c *Comparison) judge(bLo, bHi, aLo, aHi float64, ranges bool) {
	switch {
	case !ranges:
		c.Verdict = VerdictNoRange
		c.Note = "single runs: no noise estimate; use --repeat 3 or more on both"
	case aLo > bHi:
		c.Verdict, c.Significant = VerdictBetter, true
	case aHi < bLo:
		c.Verdict, c.Significant = VerdictWorse, true
	default:
		c.Verdict = VerdictNoise
	}
}

// Compare two saved results (both disk, both net or both share). A saved
// result may come from anyone (a file mailed along, a crafted one): every
// string of the comparison is one bounded line, as a peer's (peer.go), so
// a URL or a test name cannot print a line of its own.
func Compare(before, after []byte) ([]Comparison, error) {
	cs, err := compare(before, after)
	cleanPeer(&cs)
	return cs, err
}

func compare(before, after []byte) ([]Comparison, error) {
	var kb, ka struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(before, &kb); err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	if err := json.Unmarshal(after, &ka); err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	if kb.Kind != ka.Kind {
		return nil, fmt.Errorf("cannot compare a %q result with a %q result", kb.Kind, ka.Kind)
	}
	switch kb.Kind {
	case "disk":
		var b, a DiskResult
		if err := json.Unmarshal(before, &b); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(after, &a); err != nil {
			return nil, err
		}
		return withWarnings(compareTests(b.Tests, a.Tests, func(name string) string {
			if strings.HasPrefix(name, "rand") {
				return "IOPS"
			}
			return ""
		}), diskMismatch(b, a)), nil
	case "share":
		var b, a ShareResult
		if err := json.Unmarshal(before, &b); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(after, &a); err != nil {
			return nil, err
		}
		// metadata moves no bytes: entries per second (its spread too).
		return withWarnings(compareTests(b.Tests, a.Tests, func(name string) string {
			if name == "metadata" {
				return "entries/s" // docs/share.md: metadata counts entries listed and stat'ed
			}
			return ""
		}), shareMismatch(b, a)), nil
	case "net":
		var b, a NetResult
		if err := json.Unmarshal(before, &b); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(after, &a); err != nil {
			return nil, err
		}
		c := Comparison{Test: fmt.Sprintf("tcp %d stream(s)", b.Streams), Unit: units.MbitUnit, Before: b.BitsPerSecond / 1e6, After: a.BitsPerSecond / 1e6}
		c.Change = pct(c.Before, c.After)
		ranges := b.Runs > 1 && a.Runs > 1
		c.judge(b.SpreadLo, b.SpreadHi, a.SpreadLo, a.SpreadHi, ranges)
		if ranges {
			c.Note = fmt.Sprintf("spread %.0f-%.0f → %.0f-%.0f", b.SpreadLo/1e6, b.SpreadHi/1e6, a.SpreadLo/1e6, a.SpreadHi/1e6)
		}
		return withWarnings([]Comparison{c}, netMismatch(b, a)), nil
	}
	return nil, errors.New("not a nastune bench result (no kind: disk, net or share)")
}

// compareTests pairs tests by name. opsUnit gives the unit of the tests
// judged in operations per second (random 4K I/O in IOPS as people quote
// it, share metadata in entries/s), "" for the others; their spreads are
// converted when kept in MiB/s.
func compareTests(before, after []TestResult, opsUnit func(string) string) []Comparison {
	var out []Comparison
	for _, tb := range before {
		for _, ta := range after {
			if ta.Name != tb.Name || ta.Skipped != "" || tb.Skipped != "" {
				continue
			}
			// Judged on the numbers as measured (MiB/s, fio's figure);
			// shown in MB/s (10^6 B/s), the convention of every table.
			unit, vb, va, show := units.MBsUnit, tb.MiBPerS, ta.MiBPerS, units.MBsOfMiB(1)
			bLo, bHi, aLo, aHi := tb.SpreadLo, tb.SpreadHi, ta.SpreadLo, ta.SpreadHi
			if ou := opsUnit(tb.Name); ou != "" && tb.IOPS > 0 && ta.IOPS > 0 {
				unit, vb, va, show = ou, tb.IOPS, ta.IOPS, 1
				if tb.MiBPerS > 0 && ta.MiBPerS > 0 { // spreads kept in MiB/s scale by the same factor
					fb, fa := tb.IOPS/tb.MiBPerS, ta.IOPS/ta.MiBPerS
					bLo, bHi, aLo, aHi = bLo*fb, bHi*fb, aLo*fa, aHi*fa
				}
			}
			c := Comparison{Test: tb.Name, Unit: unit, Before: vb * show, After: va * show}
			c.Change = pct(vb, va)
			ranges := tb.Runs > 1 && ta.Runs > 1
			c.judge(bLo, bHi, aLo, aHi, ranges)
			bLo, bHi, aLo, aHi = bLo*show, bHi*show, aLo*show, aHi*show
			if ranges {
				c.Note = fmt.Sprintf("spread %.0f-%.0f → %.0f-%.0f", bLo, bHi, aLo, aHi)
			}
			out = append(out, c)
		}
	}
	return out
}

func withWarnings(rows []Comparison, w []string) []Comparison {
	for i := range rows {
		rows[i].Warnings = w
	}
	return rows
}

// diskMismatch lists what differs between two disk runs besides the change
// under test.
func diskMismatch(b, a DiskResult) []string {
	var w []string
	if b.Size != a.Size && b.Size > 0 && a.Size > 0 {
		w = append(w, fmt.Sprintf("different test file sizes (%d vs %d bytes): caches weigh differently", b.Size, a.Size))
	}
	if b.Engine != a.Engine {
		w = append(w, fmt.Sprintf("different engines (%s vs %s)", orNone(b.Engine), orNone(a.Engine)))
	}
	if b.Device != a.Device {
		w = append(w, fmt.Sprintf("different devices (%s vs %s)", orNone(b.Device), orNone(a.Device)))
	}
	if b.MemoryBacked != a.MemoryBacked {
		w = append(w, fmt.Sprintf("one run measured memory, not a disk (%s)", orNone(b.MemoryBacked+a.MemoryBacked)))
	}
	if d := testsDiffer(b.Tests, a.Tests); d != "" {
		w = append(w, d)
	}
	if b.Interrupted || a.Interrupted {
		w = append(w, "a run was interrupted")
	}
	return w
}

// testsDiffer says which tests ran (not skipped) on only one side, or "".
func testsDiffer(before, after []TestResult) string {
	names := func(ts []TestResult) map[string]bool {
		m := map[string]bool{}
		for _, t := range ts {
			if t.Skipped == "" {
				m[t.Name] = true
			}
		}
		return m
	}
	nb, na := names(before), names(after)
	var onlyB, onlyA []string
	for _, t := range before {
		if nb[t.Name] && !na[t.Name] {
			onlyB = append(onlyB, t.Name)
		}
	}
	for _, t := range after {
		if na[t.Name] && !nb[t.Name] {
			onlyA = append(onlyA, t.Name)
		}
	}
	if len(onlyB)+len(onlyA) == 0 {
		return ""
	}
	return fmt.Sprintf("different tests (only before: %s; only after: %s)", orNone(strings.Join(onlyB, ", ")), orNone(strings.Join(onlyA, ", ")))
}

// shareMismatch lists what differs between two share runs.
func shareMismatch(b, a ShareResult) []string {
	var w []string
	if b.URL != a.URL {
		w = append(w, fmt.Sprintf("different shares (%s vs %s)", orNone(b.URL), orNone(a.URL)))
	}
	if b.Size != a.Size && b.Size > 0 && a.Size > 0 {
		w = append(w, fmt.Sprintf("different test file sizes (%d vs %d bytes): caches weigh differently", b.Size, a.Size))
	}
	if b.Signing != a.Signing || b.Encryption != a.Encryption {
		w = append(w, fmt.Sprintf("different signing/encryption (%s/%s vs %s/%s): their cost is part of the change", orNone(b.Signing), orNone(b.Encryption), orNone(a.Signing), orNone(a.Encryption)))
	}
	if b.BlockSize != a.BlockSize {
		w = append(w, fmt.Sprintf("different request sizes (%d vs %d bytes)", b.BlockSize, a.BlockSize))
	}
	if b.Streams != a.Streams {
		w = append(w, fmt.Sprintf("different stream counts (%d vs %d)", b.Streams, a.Streams))
	}
	if d := testsDiffer(b.Tests, a.Tests); d != "" {
		w = append(w, d)
	}
	if b.Interrupted || a.Interrupted {
		w = append(w, "a run was interrupted")
	}
	return w
}

// netMismatch lists what differs between two network runs.
func netMismatch(b, a NetResult) []string {
	var w []string
	if b.Engine != a.Engine {
		w = append(w, fmt.Sprintf("different engines (%s vs %s)", orNone(b.Engine), orNone(a.Engine)))
	}
	if b.Streams != a.Streams {
		w = append(w, fmt.Sprintf("different stream counts (%d vs %d)", b.Streams, a.Streams))
	}
	if b.Reverse != a.Reverse {
		w = append(w, "different directions (one run was --reverse)")
	}
	if b.Server != a.Server {
		w = append(w, fmt.Sprintf("different servers (%s vs %s)", orNone(b.Server), orNone(a.Server)))
	}
	if b.Seconds > 0 && a.Seconds > 0 && math.Abs(b.Seconds-a.Seconds) > 0.25*math.Max(b.Seconds, a.Seconds) {
		w = append(w, fmt.Sprintf("different durations (%.0f vs %.0f s)", b.Seconds, a.Seconds))
	}
	if b.Capped != "" || a.Capped != "" || b.Interrupted || a.Interrupted {
		w = append(w, "a run was capped or interrupted")
	}
	return w
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func pct(b, a float64) float64 {
	if b == 0 {
		return 0
	}
	return (a - b) / b * 100
}

// Save writes a result as indented JSON to the path the user named with
// --save, through a random temporary file in the same directory (created
// O_EXCL|O_NOFOLLOW, fsynced, renamed into place; see safefile), so an
// interrupted run never leaves half a result and a planted symlink never
// redirects root's write.
func Save(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}
