package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Memory and writeback: KNOWLEDGE §4.
var memoryRules = []rule.Rule{
	{Meta: metaVFSCachePressure, Check: checkVFSCachePressure},
	{Meta: metaSwappiness, Check: checkSwappiness},
	{Meta: metaMinFree, Check: checkMinFree},
	{Meta: metaDirtyBigRAM, Check: checkDirtyBigRAM},
	{Meta: metaDirtyConflict, Check: checkDirtyConflict},
}

var metaVFSCachePressure = rule.Meta{
	ID: "mem-vfs-cache-pressure", Family: "memory", Severity: rule.Warn, Since: "0.1.0",
	Title: "vm.vfs_cache_pressure far from 100",
	Doc: "vm.vfs_cache_pressure sets how eagerly the kernel reclaims the dentry and inode caches " +
		"compared with the page cache. Directory listings and stat() calls from Samba and NFS clients " +
		"are served from those caches. The kernel documentation warns that values far above 100 hurt " +
		"performance, and 0 means they are never reclaimed, which can end in out-of-memory. The " +
		"folklore value 1000 is wrong; 50-100 is the useful range.",
	Refs: []string{refVM + "#vfs-cache-pressure"},
}

func checkVFSCachePressure(in rule.Input) []rule.Finding {
	h := in.Host
	v, ok := sysctlInt(h, "vm.vfs_cache_pressure")
	if !ok || (v > 0 && v <= 200) {
		return nil
	}
	why := fmt.Sprintf("At %d the kernel drops cached directory entries and inodes %d times as eagerly as at the "+
		"default, so every directory listing a client asks for goes back to disk; the kernel docs warn that "+
		"values far above 100 hurt performance.", v, v/100)
	val := "100"
	basis := "kernel default; 50-100 is the useful range"
	if v == 0 {
		why = "At 0 the kernel never reclaims dentries and inodes; the kernel docs warn this can end in " +
			"out-of-memory on a busy file server."
		val = "50"
		basis = "keeps metadata cached longer than the default while still reclaimable"
	}
	why += " Set by " + provenance(h, "vm.vfs_cache_pressure") + "."
	f := metaVFSCachePressure.New("vm.vfs_cache_pressure", why, sysctlEvidence(h, "vm.vfs_cache_pressure")...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.vfs_cache_pressure",
		Current: itoa(v), Value: val, Basis: basis}
	return []rule.Finding{f}
}

var metaSwappiness = rule.Meta{
	ID: "mem-swappiness", Family: "memory", Severity: rule.Info, Since: "0.1.0",
	Title: "vm.swappiness does not suit where swap lives",
	Doc: "vm.swappiness (0-200, default 60) weighs swapping anonymous memory against dropping file " +
		"cache. With swap on a data disk every swap-out competes with file service for the disk's " +
		"seeks, so 10-30 suits a NAS; with swap only on zram (compressed RAM) swapping is cheap and " +
		"values of 100 or more are reasonable.",
	Refs: []string{refVM + "#swappiness", "https://docs.kernel.org/admin-guide/blockdev/zram.html"},
}

func checkSwappiness(in rule.Input) []rule.Finding {
	h := in.Host
	v, ok := sysctlInt(h, "vm.swappiness")
	if !ok || len(h.Swaps) == 0 {
		return nil
	}
	var zram, disk []string
	rotating := false
	for _, s := range h.Swaps {
		if strings.HasPrefix(s.Path, "/dev/zram") {
			zram = append(zram, s.Path)
			continue
		}
		disk = append(disk, s.Path)
		if d := h.Disk(strings.TrimPrefix(s.Path, "/dev/")); d != nil && d.Rotational != nil && *d.Rotational {
			rotating = true
		}
	}
	ev := append(sysctlEvidence(h, "vm.swappiness"), rule.Ev("/proc/swaps", strings.Join(append(zram, disk...), ", ")))
	switch {
	case len(disk) == 0 && v < 100:
		f := metaSwappiness.New("vm.swappiness",
			"All swap is on zram, compressed RAM: swapping is a memory copy, far cheaper than dropping file "+
				"cache that must later be re-read from disk.", ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.swappiness",
			Current: itoa(v), Value: "100", Basis: "swap is zram only"}
		return []rule.Finding{f}
	case len(disk) > 0 && v > 30:
		val, basis := "30", "swap on a disk or file of unknown type"
		if rotating {
			val, basis = "10", "swap on a rotating disk"
		}
		f := metaSwappiness.New("vm.swappiness", fmt.Sprintf(
			"Swap lives on %s; at %d the kernel swaps readily, and every swap-out competes with file "+
				"service for the same disk.", strings.Join(disk, ", "), v), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.swappiness",
			Current: itoa(v), Value: val, Basis: basis}
		return []rule.Finding{f}
	}
	return nil
}

var metaMinFree = rule.Meta{
	ID: "mem-min-free-kbytes-high", Family: "memory", Severity: rule.Warn, Since: "0.1.0",
	Title: "vm.min_free_kbytes reserves a large share of RAM",
	Doc: "vm.min_free_kbytes is memory the kernel keeps free for atomic allocations. The kernel sizes " +
		"it at boot as sqrt(lowmem_kB × 16). Raising it to about 3% of RAM helps only when page " +
		"allocation failures appear (jumbo frames on small ARM boxes); far above that it is memory no " +
		"program or cache can use, and reclaim runs early and often.",
	Refs: []string{refVM + "#min-free-kbytes", "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/mm/page_alloc.c"},
}

// AutoMinFreeKB is the kernel's boot-time min_free_kbytes for a given low
// memory size (mm/page_alloc.c calculate_min_free_kbytes: int_sqrt(lowmem
// × 16), clamped to 128 … 262144 since 5.7, 65536 before).
func AutoMinFreeKB(lowmemBytes uint64, k facts.Kernel) int64 {
	return knobs.MinFreeKB(lowmemBytes, knobs.Version{Major: k.Major, Minor: k.Minor, Patch: k.Patch})
}

// pathTHP is where the kernel shows the transparent huge page mode.
const pathTHP = "/sys/kernel/mm/transparent_hugepage/enabled"

func checkMinFree(in rule.Input) []rule.Finding {
	h := in.Host
	v, ok := sysctlInt(h, "vm.min_free_kbytes")
	ram := h.Memory.TotalBytes
	if !ok || ram == 0 || uint64(v)*1024*20 <= ram { // fires above 5% of RAM
		return nil
	}
	low := h.Memory.LowTotalBytes
	if low == 0 {
		low = ram
	}
	auto := AutoMinFreeKB(low, h.Kernel)
	threePct := int64(ram / 1024 * 3 / 100)
	f := metaMinFree.New("vm.min_free_kbytes", fmt.Sprintf(
		"%s (%.1f%% of RAM) is held back from programs and cache. The kernel's own value for this "+
			"machine is %d kB; if it was raised because of page allocation failures, about 3%% of RAM "+
			"(%d kB) is the most that helps.", humanBytes(uint64(v)*1024), float64(v*1024)*100/float64(ram), auto, threePct),
		append(sysctlEvidence(h, "vm.min_free_kbytes"), memEvidence(h))...)
	if thp := h.Memory.THP; thp == "always" || thp == "madvise" {
		// With transparent huge pages on, khugepaged raises the value at
		// boot (mm/khugepaged.c set_recommended_min_free_kbytes, up to 5%
		// of low memory): sqrt(lowmem × 16) is not the boot value, and
		// pinning it would hold the reserve far below what the kernel
		// chooses. Removing the override lets both size it.
		f.Why = fmt.Sprintf("%s (%.1f%% of RAM) is held back from programs and cache. Transparent huge pages are "+
			"on (%s), so at boot khugepaged sets its own value (up to 5%% of low memory) above the base "+
			"sqrt(lowmem × 16) = %d kB; if it was raised because of page allocation failures, about 3%% of "+
			"RAM (%d kB) is the most that helps.", humanBytes(uint64(v)*1024), float64(v*1024)*100/float64(ram), thp, auto, threePct)
		f.Evidence = append(f.Evidence, rule.Ev(pathTHP, thp))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "remove the line that sets vm.min_free_kbytes (see the evidence) and let the kernel and khugepaged size it at boot",
			Basis:  "transparent huge pages " + thp + ": the boot value is khugepaged's, not a formula nastune can pin"}
		return []rule.Finding{f}
	}
	basis := fmt.Sprintf("sqrt(lowmem_kB × 16) with lowmem = %d kB", low/1024)
	if h.Memory.THP == "" {
		basis += "; transparent huge pages not seen (with THP on, khugepaged sets a larger value at boot)"
	}
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.min_free_kbytes",
		Current: itoa(v), Value: itoa(auto), Basis: basis}
	return []rule.Finding{f}
}

var metaDirtyBigRAM = rule.Meta{
	ID: "mem-dirty-big-ram", Family: "memory", Severity: rule.Info, Since: "0.1.0",
	Title: "Dirty-page limits as a share of a large RAM",
	Doc: "With ratio-based limits (vm.dirty_background_ratio default 10, vm.dirty_ratio default 20) a " +
		"machine with much RAM lets gigabytes of unwritten data pile up before writeback starts, then " +
		"stalls writers for many seconds while the disks catch up. On big-RAM file servers set " +
		"vm.dirty_background_bytes to about 1-2 s of the disks' write throughput and vm.dirty_bytes " +
		"to 2-4 times that. Small boxes are fine with the defaults. Writing a *_bytes key zeroes its " +
		"*_ratio twin.",
	Refs: []string{refVM + "#dirty-background-bytes", "https://docs.kernel.org/admin-guide/sysctl/vm.html#dirty-bytes"},
}

// writeMBps estimates the sustained write speed of the slowest local disk
// that takes page-cache writeback: the global dirty limit drains into
// whichever device the data is headed for, and the slowest one sets the
// stall. ZFS members are skipped (ZFS has its own write throttle and does
// not use these limits). Each disk's speed is the one the ceiling model
// gives it (nastune inventory paths and the bus findings quote the same
// number); a saved bench result's seqwrite-direct on the disk replaces
// the estimate, and the basis then says it was measured.
func writeMBps(h *facts.Host) (speed uint64, class string, measured bool) {
	model := map[string]float64{}
	for _, p := range ceiling.Paths(h) {
		if p.Kind == "disk" && p.CeilingMBs > 0 {
			model[p.Name] = p.CeilingMBs
		}
		for m, v := range p.MemberMBs {
			if _, ok := model[m]; !ok && v > 0 {
				model[m] = v
			}
		}
	}
	slowest := uint64(0)
	for _, d := range h.Block {
		if d.Kind != "disk" || d.Rotational == nil || d.Removable || d.ZFSMember() {
			continue
		}
		kind, mbps := "rotating disk", ceiling.HDDMBs
		if !*d.Rotational {
			kind, mbps = "SATA SSD", ceiling.SATASSDMBs
			if d.Transport == "nvme" {
				kind, mbps = "NVMe SSD", 3500
			}
		}
		modelled := "its modelled speed"
		if d.Virtual() {
			// Its rotational flag says nothing about the host's storage
			// (ceiling.Paths models it as one rotating disk, and says so).
			kind, mbps = "virtual disk", ceiling.HDDMBs
			modelled = "its modelled speed: the host's storage, unseen from the guest, taken as one rotating disk"
		}
		if v, ok := model[d.Name]; ok {
			mbps = v
		}
		how := modelled
		m, ok, above := measuredWrite(h, d.Name, model[d.Name])
		switch {
		case ok:
			mbps, how = m.MBs, fmt.Sprintf("measured: %s in %s", m.Test, m.Source)
		case above.MBs > 0:
			// Faster than the disk's path can carry: a cache (a controller's,
			// or a virtual disk's host) took the test file, and writeback of
			// more data than it holds drains at the disk's pace.
			how = fmt.Sprintf("%s; the %s %s in %s is above its %s ceiling, a cache's speed, not the disk's", modelled, units.MBs(above.MBs), above.Test, above.Source, units.MBs(model[d.Name]))
		}
		v := uint64(math.Round(mbps))
		if slowest == 0 || v < slowest {
			slowest, class = v, fmt.Sprintf("%s %s (~%s, %s)", kind, d.Name, units.MBs(float64(v)), how)
			measured = how != modelled
		}
	}
	if slowest == 0 {
		v := uint64(ceiling.HDDMBs)
		return v, fmt.Sprintf("no local disk seen; assumed a rotating disk (~%s)", units.MBs(float64(v))), false
	}
	return slowest, class, measured
}

// measuredWrite is the direct sequential write a saved bench result
// measured on disk name (the fastest, if several) that can stand for the
// disk: not above ceiling.CacheFactor × its modelled ceiling (0: none
// modelled). above is the fastest write set aside for being above it.
func measuredWrite(h *facts.Host, name string, ceilingMBs float64) (best facts.BenchMeasure, ok bool, above facts.BenchMeasure) {
	for _, m := range h.Bench {
		if m.Device != name || m.Test != "seqwrite-direct" {
			continue
		}
		if ceilingMBs > 0 && m.MBs > ceiling.CacheFactor*ceilingMBs {
			if m.MBs > above.MBs {
				above = m
			}
			continue
		}
		if !ok || m.MBs > best.MBs {
			best, ok = m, true
		}
	}
	return best, ok, above
}

func checkDirtyBigRAM(in rule.Input) []rule.Finding {
	h := in.Host
	ram := h.Memory.TotalBytes
	bg, ok1 := sysctlInt(h, "vm.dirty_background_ratio")
	fg, ok2 := sysctlInt(h, "vm.dirty_ratio")
	bgb, _ := sysctlInt(h, "vm.dirty_background_bytes")
	fgb, _ := sysctlInt(h, "vm.dirty_bytes")
	if !ok1 || !ok2 || ram < 4<<30 || bgb != 0 || fgb != 0 {
		return nil
	}
	speed, class, measured := writeMBps(h)
	bgBytes := ram / 100 * uint64(bg)
	if bgBytes <= speed*1e6*10 { // under 10 s of writeback: fine
		return nil
	}
	wantBG := speed * 1e6 * 2 / mib * mib
	wantFG := 4 * wantBG
	basis := fmt.Sprintf("2 s and 8 s of writes at %s, the %s; measure with `nastune bench disk` and scale", units.MBs(float64(speed)), class)
	if measured {
		// The given result measured it: never ask to measure again.
		basis = fmt.Sprintf("2 s and 8 s of writes at %s, the %s", units.MBs(float64(speed)), class)
	}
	why := fmt.Sprintf("With %s of RAM, dirty_background_ratio=%d lets about %s of unwritten data build up "+
		"(%.0f s of writes at %s) before background writeback starts; dirty_ratio=%d then blocks "+
		"writers for longer still.", humanBytes(ram), bg, humanBytes(bgBytes), float64(bgBytes)/float64(speed*1e6), units.MBs(float64(speed)), fg)
	ev := []rule.Evidence{
		rule.Ev(sysctlSource("vm.dirty_background_ratio"), itoa(bg)),
		rule.Ev(sysctlSource("vm.dirty_ratio"), itoa(fg)),
		memEvidence(h),
	}
	f1 := metaDirtyBigRAM.New("vm.dirty_background_bytes", why, ev...)
	f1.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.dirty_background_bytes",
		Current: "0", Value: itoa(int64(wantBG)), Basis: basis}
	f2 := metaDirtyBigRAM.New("vm.dirty_bytes", why, ev...)
	f2.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.dirty_bytes",
		Current: "0", Value: itoa(int64(wantFG)), Basis: basis}
	return []rule.Finding{f1, f2}
}

var metaDirtyConflict = rule.Meta{
	ID: "mem-dirty-conflict", Family: "memory", Severity: rule.Warn, Since: "0.1.0",
	Title: "Configuration sets both the ratio and the bytes form of a dirty limit",
	Doc: "vm.dirty_ratio and vm.dirty_bytes (and the dirty_background pair) exclude each other: " +
		"writing one zeroes the other. When configuration files set both, whichever is applied last " +
		"silently wins and the other line is dead, which misleads whoever reads the files.",
	Refs: []string{refVM + "#dirty-bytes", refSysctlD},
}

func checkDirtyConflict(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, pair := range [][2]string{{"vm.dirty_ratio", "vm.dirty_bytes"}, {"vm.dirty_background_ratio", "vm.dirty_background_bytes"}} {
		a, b := configFor(h, pair[0]), configFor(h, pair[1])
		if a == nil || b == nil {
			continue
		}
		winner, loser := a, b
		if settingIndex(h, b) > settingIndex(h, a) {
			winner, loser = b, a
		}
		f := metaDirtyConflict.New(pair[0]+" / "+pair[1], fmt.Sprintf(
			"%s is applied after %s and zeroes it, so the line at %s:%d has no effect.",
			winner.Key, loser.Key, loser.File, loser.Line), configEvidence(a), configEvidence(b))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("remove %s from %s line %d", loser.Key, loser.File, loser.Line),
			Basis:  fmt.Sprintf("%s (applied last) is the one in effect", winner.Key)}
		out = append(out, f)
	}
	return out
}

func settingIndex(h *facts.Host, s *facts.SysctlSetting) int {
	for i := range h.SysctlConfig {
		if &h.SysctlConfig[i] == s {
			return i
		}
	}
	return -1
}
