package rules

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// ZFS: KNOWLEDGE §7.
var zfsRules = []rule.Rule{
	{Meta: metaPoolHealth, Check: checkPoolHealth},
	{Meta: metaAshift, Check: checkAshift},
	{Meta: metaPoolSdX, Check: checkPoolSdX},
	{Meta: metaRaidzEfficiency, Check: checkRaidzEfficiency},
	{Meta: metaARCSmallBox, Check: checkARCSmallBox},
}

const refZFSProps = "https://openzfs.github.io/openzfs-docs/man/master/7/zpoolprops.7.html"

func pools(h *facts.Host) []facts.Pool {
	if h.ZFS == nil {
		return nil
	}
	return h.ZFS.Pools
}

var metaPoolHealth = rule.Meta{
	ID: "zfs-pool-unhealthy", Family: "zfs", Severity: rule.Crit, Since: "0.3.0",
	Title: "ZFS pool is not ONLINE",
	Doc: "A DEGRADED pool has lost redundancy in at least one vdev; FAULTED or UNAVAIL pools " +
		"cannot serve data. zpool status names the device and the action to take.",
	Refs: []string{"https://openzfs.github.io/openzfs-docs/man/master/8/zpool-status.8.html"},
}

func checkPoolHealth(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, p := range pools(in.Host) {
		if p.Health == "" || p.Health == "ONLINE" {
			continue
		}
		f := metaPoolHealth.New(p.Name, fmt.Sprintf("Pool %s is %s.", p.Name, p.Health), rule.Ev("zpool status -P", "state: "+p.Health))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: "follow the action line of `zpool status -x " + p.Name + "`; replace failed devices by their /dev/disk/by-id name",
			Basis: "pool state " + p.Health}
		out = append(out, f)
	}
	return out
}

var metaAshift = rule.Meta{
	ID: "zfs-ashift-low", Family: "zfs", Severity: rule.Crit, Since: "0.3.0",
	Title: "vdev ashift smaller than the disks' physical sectors",
	Doc: "ashift is fixed per vdev when it is created and must be at least log2 of the members' " +
		"physical sector size (12 for 4 KiB drives; SSDs often claim 512 while writing 4 KiB or " +
		"more internally, so 12 is the practical minimum). Below that every write is a " +
		"read-modify-write inside the drive. The real value is in `zdb -C` (zpool get ashift is " +
		"only the default for new vdevs). It cannot be changed: the vdev must be re-created " +
		"(zfs send to a new pool, or replace members into a new vdev).",
	Refs: []string{refZFSProps, "https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Workload%20Tuning.html#alignment-shift-ashift"},
}

func checkAshift(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, p := range pools(h) {
		for _, v := range p.Vdevs {
			if v.Ashift == 0 || v.Class == "cache" || v.Class == "spares" {
				continue
			}
			phys, ssd := 0, false
			for _, dev := range v.Devices {
				if d := h.DiskForPath(dev); d != nil {
					phys = max(phys, d.PhysBlockSize)
					ssd = ssd || (d.Rotational != nil && !*d.Rotational)
				}
			}
			need := 12
			if phys > 0 {
				need = max(bits.Len(uint(phys))-1, 9)
			}
			if ssd {
				need = max(need, 12)
			}
			if v.Ashift >= need {
				continue
			}
			f := metaAshift.New(p.Name+"/"+v.Name, fmt.Sprintf(
				"%s in pool %s has ashift %d (%d-byte blocks) on disks with %d-byte physical sectors%s: every small write is read-modify-write in the drive, and it cannot be changed in place.",
				v.Name, p.Name, v.Ashift, 1<<v.Ashift, phys, map[bool]string{true: " (SSDs)", false: ""}[ssd]),
				rule.Ev("zdb -C "+p.Name, fmt.Sprintf("%s ashift: %d", v.Name, v.Ashift)))
			if !ssd {
				f.Severity = rule.Crit
			} else if phys <= 512 {
				f.Severity = rule.Warn
			}
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("re-create %s with -o ashift=%d (needs a rebuild: zfs send | zfs receive to a new pool)", v.Name, need),
				Basis:  fmt.Sprintf("log2(physical sector %d) = %d", max(phys, 4096), need)}
			out = append(out, f)
		}
	}
	return out
}

var metaPoolSdX = rule.Meta{
	ID: "zfs-pool-sdx-names", Family: "zfs", Severity: rule.Warn, Since: "0.3.0",
	Title: "Pool built on /dev/sdX names",
	Doc: "sdX names are handed out in probe order and change when a disk is added, removed or " +
		"slow to spin up. A pool imported by those names can come up degraded, and `zpool status` " +
		"then names the wrong disk to replace. Import by stable names: /dev/disk/by-id.",
	Refs: []string{"https://openzfs.github.io/openzfs-docs/Project%20and%20Community/FAQ.html#selecting-dev-names-when-creating-a-pool-linux"},
}

func checkPoolSdX(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, p := range pools(in.Host) {
		var bad []string
		for _, v := range p.Vdevs {
			for _, d := range v.Devices {
				if slices.Contains(v.Leaving, d) {
					continue // being replaced: leaves the pool when the resilver ends
				}
				base := strings.TrimPrefix(d, "/dev/")
				if strings.HasPrefix(base, "sd") || strings.HasPrefix(base, "vd") || strings.HasPrefix(base, "hd") {
					bad = append(bad, d)
				}
			}
		}
		if len(bad) == 0 {
			continue
		}
		f := metaPoolSdX.New(p.Name, fmt.Sprintf("Pool %s uses %d devices by kernel name (%s…): they can change at the next boot.",
			p.Name, len(bad), bad[0]), rule.Ev("zpool status -P", strings.Join(bad, " ")))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("zpool export %s && zpool import -d /dev/disk/by-id %s", p.Name, p.Name), Basis: "device paths under /dev/sd*"}
		out = append(out, f)
	}
	return out
}

var metaRaidzEfficiency = rule.Meta{
	ID: "zfs-raidz-padding", Family: "zfs", Severity: rule.Info, Since: "0.3.0",
	Title: "raidz width loses space to parity padding",
	Doc: "raidz allocates each block as data sectors plus parity per row, rounded up to a multiple " +
		"of parity+1 (vdev_raidz_asize). For some widths 128 KiB records lose several percent to " +
		"padding on top of parity, and space is reported through that 128K ratio. The \"2^n + " +
		"parity\" width rule only helps uncompressed 128K records; with compression (default on) " +
		"choose widths for IOPS, resilver time and risk, and use recordsize=1M for large media " +
		"files, which shrinks padding to almost nothing.",
	Refs: []string{"https://openzfs.github.io/openzfs-docs/Basic%20Concepts/RAIDZ.html", "https://github.com/openzfs/zfs/blob/master/module/zfs/vdev_raidz.c"},
}

func checkRaidzEfficiency(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, p := range pools(in.Host) {
		for _, v := range p.Vdevs {
			parity := map[string]int{"raidz1": 1, "raidz2": 2, "raidz3": 3}[v.Type]
			n := v.Width() // a replacing-N or spare-N child is one position
			if parity == 0 || v.Ashift == 0 || n < parity+2 || v.Class != "" {
				continue
			}
			ideal := float64(n-parity) / float64(n)
			got := float64(128<<10) / float64(calc.RaidzAsize(128<<10, n, parity, v.Ashift))
			at1M := float64(1<<20) / float64(calc.RaidzAsize(1<<20, n, parity, v.Ashift))
			if got >= ideal*0.97 {
				continue
			}
			f := metaRaidzEfficiency.New(p.Name+"/"+v.Name, fmt.Sprintf(
				"%s (%s, %d disks, ashift %d) stores 128 KiB records at %.1f%% efficiency against the %.1f%% its parity alone costs; at recordsize=1M it reaches %.1f%%.",
				v.Name, v.Type, n, v.Ashift, got*100, ideal*100, at1M*100),
				rule.Ev("zpool status -P", fmt.Sprintf("%s: %d devices", v.Name, n)), rule.Ev("zdb -C "+p.Name, fmt.Sprintf("ashift: %d", v.Ashift)))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: "for datasets of large files: zfs set recordsize=1M <dataset> (applies to newly written files)",
				Basis:  fmt.Sprintf("vdev_raidz_asize(128K) = %d bytes, (1M) = %d bytes", calc.RaidzAsize(128<<10, n, parity, v.Ashift), calc.RaidzAsize(1<<20, n, parity, v.Ashift))}
			out = append(out, f)
		}
	}
	return out
}

var metaARCSmallBox = rule.Meta{
	ID: "zfs-arc-small-box", Family: "zfs", Severity: rule.Warn, Since: "0.3.0",
	Title: "ZFS ARC may take most of a small machine's memory",
	Doc: "The ARC grows to zfs_arc_max (by default half of RAM on older OpenZFS, most of it on " +
		"newer releases) and gives memory back only under pressure. On boxes with a few GiB that " +
		"squeezes Samba, NFS and the page cache of non-ZFS filesystems, and can end in OOM kills " +
		"when memory is needed faster than the ARC shrinks. Cap it.",
	Refs: []string{"https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Module%20Parameters.html#zfs-arc-max"},
}

func checkARCSmallBox(in rule.Input) []rule.Finding {
	h := in.Host
	ram := h.Memory.TotalBytes
	if h.ZFS == nil || h.ZFS.ARCMax == 0 || ram == 0 || ram > 8<<30 {
		return nil
	}
	want := ram / 2
	if ram <= 2<<30 {
		want = ram / 4
	}
	want = want >> 20 << 20
	if h.ZFS.ARCMax <= want {
		return nil
	}
	ev := []rule.Evidence{rule.Ev(pathARC, fmt.Sprintf("c_max %d", h.ZFS.ARCMax)), memEvidence(h)}
	// The "now" of the parameter file is what it holds: 0 on a module
	// left at its default, whose limit arcstats c_max shows. Only when
	// the file was not read is c_max the best statement of it.
	current := fmt.Sprint(h.ZFS.ARCMax)
	if p := h.ZFS.ARCMaxParam; p != nil {
		current = fmt.Sprint(*p)
		ev = append(ev, rule.Ev(pathARCMaxParam, current))
	}
	f := metaARCSmallBox.New("zfs_arc_max", fmt.Sprintf(
		"The ARC may grow to %s of this machine's %s.", humanBytes(h.ZFS.ARCMax), humanBytes(ram)), ev...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: pathARCMaxParam,
		Current: current, Value: fmt.Sprint(want),
		Basis: map[bool]string{true: "RAM/4 on boxes with 2 GiB or less", false: "RAM/2 on boxes up to 8 GiB"}[ram <= 2<<30]}
	return []rule.Finding{f}
}

const pathARC = "/proc/spl/kstat/zfs/arcstats"

const pathARCMaxParam = "/sys/module/zfs/parameters/zfs_arc_max"
