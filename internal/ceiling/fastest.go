package ceiling

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
