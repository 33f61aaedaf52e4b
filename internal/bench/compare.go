package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/nastune/nastune/internal/safefile"
)

// Comparison is one test before and after.
type Comparison struct {
	Test   string  `json:"test"`
	Unit   string  `json:"unit"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Change float64 `json:"change_percent"`
	// Significant is false when the change is within the noise: the
	// spreads of --repeat runs overlap, or, without spreads, |change| < 5%.
	Significant bool   `json:"significant"`
	Note        string `json:"note,omitempty"`
}

// NoiseThreshold is the change below which single runs are called noise.
const NoiseThreshold = 5.0

// Compare two saved results (both disk, both net or both share).
func Compare(before, after []byte) ([]Comparison, error) {
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
		return compareTests(b.Tests, a.Tests, func(name string) bool { return strings.HasPrefix(name, "rand") }), nil
	case "share":
		var b, a ShareResult
		if err := json.Unmarshal(before, &b); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(after, &a); err != nil {
			return nil, err
		}
		// metadata moves no bytes: entries per second (its spread too).
		return compareTests(b.Tests, a.Tests, func(name string) bool { return name == "metadata" }), nil
	case "net":
		var b, a NetResult
		if err := json.Unmarshal(before, &b); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(after, &a); err != nil {
			return nil, err
		}
		c := Comparison{Test: fmt.Sprintf("tcp %d stream(s)", b.Streams), Unit: "Mbit/s", Before: b.BitsPerSecond / 1e6, After: a.BitsPerSecond / 1e6}
		c.Change = pct(c.Before, c.After)
		if b.Runs > 1 && a.Runs > 1 {
			c.Significant = a.SpreadLo > b.SpreadHi || a.SpreadHi < b.SpreadLo
			c.Note = fmt.Sprintf("spread %.0f-%.0f → %.0f-%.0f", b.SpreadLo/1e6, b.SpreadHi/1e6, a.SpreadLo/1e6, a.SpreadHi/1e6)
		} else {
			c.Significant = math.Abs(c.Change) >= NoiseThreshold
			c.Note = "single runs: use --repeat for a noise estimate"
		}
		return []Comparison{c}, nil
	}
	return nil, errors.New("not a nastune bench result (no kind: disk, net or share)")
}

// compareTests pairs tests by name. byOps names the tests judged in
// operations per second (random 4K I/O as people quote it, share
// metadata); their spreads are converted when kept in MiB/s.
func compareTests(before, after []TestResult, byOps func(string) bool) []Comparison {
	var out []Comparison
	for _, tb := range before {
		for _, ta := range after {
			if ta.Name != tb.Name || ta.Skipped != "" || tb.Skipped != "" {
				continue
			}
			unit, vb, va := "MiB/s", tb.MiBPerS, ta.MiBPerS
			bLo, bHi, aLo, aHi := tb.SpreadLo, tb.SpreadHi, ta.SpreadLo, ta.SpreadHi
			if byOps(tb.Name) && tb.IOPS > 0 && ta.IOPS > 0 {
				unit, vb, va = "IOPS", tb.IOPS, ta.IOPS
				if tb.MiBPerS > 0 && ta.MiBPerS > 0 { // spreads kept in MiB/s scale by the same factor
					fb, fa := tb.IOPS/tb.MiBPerS, ta.IOPS/ta.MiBPerS
					bLo, bHi, aLo, aHi = bLo*fb, bHi*fb, aLo*fa, aHi*fa
				}
			}
			c := Comparison{Test: tb.Name, Unit: unit, Before: vb, After: va}
			c.Change = pct(vb, va)
			if tb.Runs > 1 && ta.Runs > 1 {
				c.Significant = aLo > bHi || aHi < bLo
				c.Note = fmt.Sprintf("spread %.0f-%.0f → %.0f-%.0f", bLo, bHi, aLo, aHi)
			} else {
				c.Significant = math.Abs(c.Change) >= NoiseThreshold
				c.Note = "single runs: use --repeat for a noise estimate"
			}
			out = append(out, c)
		}
	}
	return out
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
