package probe

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/parse/storcmd"
)

const pathARCStats = "/proc/spl/kstat/zfs/arcstats"

// PathZFSARCMax is the zfs_arc_max module parameter (0: the default).
const PathZFSARCMax = "/sys/module/zfs/parameters/zfs_arc_max"

// zfs reads the ARC kstats and, when the ZFS module is loaded, the pools
// from `zpool status -P`, `zpool list -v -H -P -p` and `zdb -C POOL`.
func (p *prober) zfs() {
	arc, err := p.root.ReadFile(pathARCStats)
	if err != nil {
		return // no ZFS module loaded (or not captured): nothing to say
	}
	z := &facts.ZFS{}
	if k, err := kernfmt.KStat(arc); err == nil {
		z.ARCSize, z.ARCMax, z.ARCMin = k["size"], k["c_max"], k["c_min"]
	} else {
		p.skip(pathARCStats, err.Error())
	}
	if v, ok := p.optUint(PathZFSARCMax); ok {
		z.ARCMaxParam = &v
	}
	p.h.ZFS = z
	st, src, ok := p.command("zpool", "status", "-P")
	if !ok {
		return
	}
	pools, err := storcmd.ZpoolStatus(st)
	if err != nil {
		p.skip(src, err.Error())
	}
	if b, src, ok := p.command("zpool", "list", "-v", "-H", "-P", "-p"); ok {
		sizes, err := storcmd.ZpoolList(b)
		if err != nil {
			p.skip(src, err.Error())
		}
		for i := range pools {
			for _, s := range sizes {
				if s.Name == pools[i].Name {
					pools[i].SizeBytes, pools[i].AllocBytes = s.SizeBytes, s.AllocBytes
				}
			}
		}
	}
	for i := range pools {
		b, src, ok := p.command("zdb", "-C", pools[i].Name)
		if !ok {
			continue
		}
		vd, err := storcmd.ZdbAshift(b)
		if err != nil {
			p.skip(src, err.Error())
		}
		for j := range pools[i].Vdevs {
			v := &pools[i].Vdevs[j]
			for _, z := range vd {
				if sharesPath(v.Devices, z.Paths) {
					v.Ashift = z.Ashift
				}
			}
		}
	}
	zfsScans(pools, st)
	z.Pools = pools
}

func sharesPath(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
