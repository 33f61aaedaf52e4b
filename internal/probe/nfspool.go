package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// nfsPools reads /proc/fs/nfsd/pool_stats, the per-pool counters of the
// nfsd thread pools (one pool per NUMA node or CPU with pool_mode set,
// else one): how often a request arrived, had to wait for a thread
// (sockets-enqueued) and woke one. Absent when nfsd is not loaded.
func (p *prober) nfsPools(n *facts.NFS) {
	const src = "/proc/fs/nfsd/pool_stats"
	b, err := p.root.ReadFile(src)
	if err != nil {
		return
	}
	pools, err := ParseNFSPoolStats(b)
	if err != nil {
		p.skip(src, err.Error())
		return
	}
	n.Pools, n.PoolsSource = pools, src
}

// ParseNFSPoolStats parses pool_stats by its header line, which names the
// columns ("# pool packets-arrived sockets-enqueued threads-woken
// threads-timedout" on 6.1; 2.6 kernels had overloads-avoided between the
// last two). Columns it does not know are ignored.
func ParseNFSPoolStats(b []byte) ([]facts.NFSPool, error) {
	var cols []string
	var out []facts.NFSPool
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "#" {
			cols = f[1:]
			continue
		}
		if cols == nil {
			return nil, fmt.Errorf("line %d: counters before the header line", i+1)
		}
		if len(f) != len(cols) {
			return nil, fmt.Errorf("line %d: %d fields, the header names %d", i+1, len(f), len(cols))
		}
		var pl facts.NFSPool
		for j, c := range cols {
			v, err := strconv.ParseUint(f[j], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: not a counter: %q", i+1, c, f[j])
			}
			switch c {
			case "pool":
				pl.Pool = int(min(v, 1<<20))
			case "packets-arrived":
				pl.PacketsArrived = v
			case "sockets-enqueued":
				pl.SocketsEnqueued = v
			case "threads-woken":
				pl.ThreadsWoken = v
			case "threads-timedout":
				pl.ThreadsTimedout = v
			}
		}
		out = append(out, pl)
	}
	return out, nil
}
