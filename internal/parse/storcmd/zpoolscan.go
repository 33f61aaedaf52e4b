package storcmd

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
)

var (
	scanRunning = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^scan:\s+(resilver|scrub) in progress(?: since (.+))?$`)
	})
	scanDone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+(?:\.\d+)?)% done`) })
	scanToGo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\S+) to go`) })
)

// ZpoolScan reads the "scan:" paragraph of each pool in `zpool status`
// output: a running resilver or scrub with its progress. The paragraph is
// the scan: line and the indented lines after it (OpenZFS 0.6: "1.35G
// scanned out of 347G at 126M/s, 0h46m to go" / "0 resilvered, 0.39%
// done"; 2.x: "… 100G resilvered, 22.5% done, 01:10:11 to go"). Pools
// with no running scan are absent from the map.
func ZpoolScan(b []byte) map[string]facts.PoolScan {
	out := map[string]facts.PoolScan{}
	pool := ""
	var cur *facts.PoolScan
	flush := func() {
		if cur != nil && pool != "" {
			out[pool] = *cur
		}
		cur = nil
	}
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "pool:") {
			flush()
			pool = strings.TrimSpace(strings.TrimPrefix(t, "pool:"))
			continue
		}
		if m := scanRunning().FindStringSubmatch(t); m != nil {
			flush()
			cur = &facts.PoolScan{Kind: m[1], Since: strings.TrimSpace(m[2]), Line: t}
			continue
		}
		if cur == nil {
			continue
		}
		// The paragraph ends at the next "key:" line (config:, errors:).
		if l != "" && l[0] != ' ' && l[0] != '\t' || isStatusKey(t) {
			flush()
			continue
		}
		if m := scanDone().FindStringSubmatch(t); m != nil {
			cur.Percent, _ = strconv.ParseFloat(m[1], 64)
			cur.DoneLine = t
		}
		if m := scanToGo().FindStringSubmatch(t); m != nil {
			cur.ToGo = m[1]
		}
	}
	flush()
	return out
}

func isStatusKey(t string) bool {
	for _, k := range []string{"config:", "errors:", "action:", "status:", "see:", "state:", "remove:"} {
		if strings.HasPrefix(t, k) {
			return true
		}
	}
	return false
}
