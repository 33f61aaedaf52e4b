package probe

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
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
	pools, err := kernfmt.NFSPoolStats(b)
	if err != nil {
		p.skip(src, err.Error())
		return
	}
	n.Pools, n.PoolsSource = pools, src
}
