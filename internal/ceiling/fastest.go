package ceiling

import "github.com/nastune/nastune/internal/facts"

// Fastest returns the fastest network path and the fastest storage path
// (array, pool or disk); nil when there is none.
func Fastest(paths []Path) (bestNet, bestStore *Path) {
	for i := range paths {
		p := &paths[i]
		switch p.Kind {
		case "network":
			if bestNet == nil || p.CeilingMBs > bestNet.CeilingMBs {
				bestNet = p
			}
		case "array", "disk", "pool":
			if bestStore == nil || p.CeilingMBs > bestStore.CeilingMBs {
				bestStore = p
			}
		}
	}
	return bestNet, bestStore
}

// CacheFactor is how far above a path's modelled ceiling a measured
// speed may lie and still stand for the path (the model's rounding);
// beyond it a cache was measured, or the model is wrong.
const CacheFactor = 1.05

// BestRead is the fastest sequential read in bench measured on path p
// that can stand for the path: not above CacheFactor × its modelled
// ceiling. above is the fastest read measured on p beyond that (0: none),
// which the verdict and bus-bench-vs-ceiling name as a cache, never as
// the path's speed.
func BestRead(bench []facts.BenchMeasure, p Path) (best facts.BenchMeasure, ok bool, above float64) {
	for _, m := range bench {
		if m.Device != p.Name || !m.Read() {
			continue
		}
		if p.CeilingMBs > 0 && m.MBs > CacheFactor*p.CeilingMBs {
			above = max(above, m.MBs)
			continue
		}
		if !ok || m.MBs > best.MBs {
			best, ok = m, true
		}
	}
	return best, ok, above
}
