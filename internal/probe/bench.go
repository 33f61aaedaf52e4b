package probe

import (
	"encoding/json"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// BenchDir is where saved `nastune bench disk --save` results are picked
// up by the audit (bus-bench-vs-ceiling compares them with the ceilings).
const BenchDir = "/var/lib/nastune/bench"

// benchResults reads the saved disk results in BenchDir.
func (p *prober) benchResults() {
	ents, err := p.root.ReadDir(BenchDir)
	if err != nil {
		return // none saved: nothing to compare, not an error
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		src := BenchDir + "/" + e.Name()
		b, err := p.root.ReadFile(src)
		if err != nil {
			p.fail(src, err)
			continue
		}
		m, err := ParseBench(src, b)
		if err != nil {
			p.skip(src, err.Error())
			continue
		}
		p.h.Bench = append(p.h.Bench, m...)
	}
}

// ParseBench takes the sequential-read tests of a saved disk bench result.
func ParseBench(src string, b []byte) ([]facts.BenchMeasure, error) {
	var r struct {
		Kind   string `json:"kind"`
		Device string `json:"device"`
		Tests  []struct {
			Name    string  `json:"name"`
			MiBPerS float64 `json:"mib_per_s"`
			Skipped string  `json:"skipped"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.Kind != "disk" {
		return nil, &benchError{"not a disk bench result (kind " + r.Kind + ")"}
	}
	if r.Device == "" {
		return nil, &benchError{"the result names no device"}
	}
	var out []facts.BenchMeasure
	for _, t := range r.Tests {
		// Sequential reads (the ceiling rules) and the direct sequential
		// write (the dirty-limit rule: what writeback drains at).
		if t.Skipped == "" && t.MiBPerS > 0 && (strings.HasPrefix(t.Name, "seqread") || t.Name == "seqwrite-direct") {
			out = append(out, facts.BenchMeasure{Source: src, Device: r.Device, Test: t.Name, MBs: t.MiBPerS * 1.048576})
		}
	}
	return out, nil
}

type benchError struct{ msg string }

func (e *benchError) Error() string { return e.msg }
