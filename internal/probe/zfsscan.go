package probe

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/storcmd"
)

// zfsScans attaches the running resilver or scrub of each pool from the
// same `zpool status -P` output.
func zfsScans(pools []facts.Pool, status []byte) {
	scans := storcmd.ZpoolScan(status)
	for i := range pools {
		if s, ok := scans[pools[i].Name]; ok {
			pools[i].Scan = &s
		}
	}
}
