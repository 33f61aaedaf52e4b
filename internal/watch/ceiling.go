package watch

import "github.com/nastune/nastune/internal/ceiling"

// CeilingsFrom turns nastune's modelled storage paths into per-device
// ceilings for BottlenecksWith: a disk outside any array, and an md array
// (whose ceiling already accounts for its members and shared links).
func CeilingsFrom(paths []ceiling.Path) map[string]Ceiling {
	out := map[string]Ceiling{}
	for _, p := range paths {
		if (p.Kind == "disk" || p.Kind == "array") && p.CeilingMBs > 0 {
			out[p.Name] = Ceiling{MBs: p.CeilingMBs, Link: p.Bottleneck, Move: p.Move}
		}
	}
	return out
}
