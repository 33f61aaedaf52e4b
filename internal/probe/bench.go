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
		m, sm, err := ParseBenchResult(src, b)
		if err != nil {
			p.skip(src, err.Error())
			continue
		}
		p.h.Bench = append(p.h.Bench, m...)
		p.h.ShareBench = append(p.h.ShareBench, sm...)
	}
}

// ParseBench takes the sequential-read tests of a saved disk bench result.
func ParseBench(src string, b []byte) ([]facts.BenchMeasure, error) {
	var r struct {
		Kind   string `json:"kind"`
		Device string `json:"device"`
		Size   uint64 `json:"size"`
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
			out = append(out, facts.BenchMeasure{Source: src, Device: r.Device, Test: t.Name, MBs: t.MiBPerS * 1.048576, Size: r.Size})
		}
	}
	return out, nil
}

// ParseBenchResult takes a saved disk result (ParseBench) or the
// sequential tests of a saved share result with their verdicts.
func ParseBenchResult(src string, b []byte) ([]facts.BenchMeasure, []facts.ShareBenchMeasure, error) {
	var r struct {
		Kind  string `json:"kind"`
		URL   string `json:"url"`
		Tests []struct {
			Name    string  `json:"name"`
			MiBPerS float64 `json:"mib_per_s"`
		} `json:"tests"`
		TCP *struct {
			Up   float64 `json:"up_bits_per_second"`
			Down float64 `json:"down_bits_per_second"`
		} `json:"tcp"`
		Limit []struct {
			Test, Layer, Subject, Why string
		} `json:"limit"`
		Server map[string]struct {
			Devices []string `json:"devices"`
		} `json:"server"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, nil, err
	}
	if r.Kind != "share" {
		m, err := ParseBench(src, b)
		return m, nil, err
	}
	var out []facts.ShareBenchMeasure
	for _, t := range r.Tests {
		if t.MiBPerS <= 0 || t.Name != "seqread" && t.Name != "seqwrite" {
			continue
		}
		m := facts.ShareBenchMeasure{Source: src, URL: r.URL, Test: t.Name, MBs: t.MiBPerS * 1.048576, Devices: r.Server[t.Name].Devices}
		if r.TCP != nil {
			m.RawMbit = r.TCP.Up / 1e6
			if t.Name == "seqread" {
				m.RawMbit = r.TCP.Down / 1e6
			}
		}
		for _, l := range r.Limit {
			if l.Test == t.Name {
				m.Layer, m.Subject, m.Why = l.Layer, l.Subject, l.Why
			}
		}
		out = append(out, m)
	}
	return nil, out, nil
}

type benchError struct{ msg string }

func (e *benchError) Error() string { return e.msg }
