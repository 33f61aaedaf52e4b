package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// md RAID: KNOWLEDGE §5.
var mdRules = []rule.Rule{
	{Meta: metaMDDegraded, Check: checkMDDegraded},
	{Meta: metaMDRebuildCapped, Check: checkMDRebuildCapped},
	{Meta: metaStripeCache, Check: checkStripeCache},
	{Meta: metaMismatch, Check: checkMismatch},
}

const (
	refMD      = "https://docs.kernel.org/admin-guide/md.html"
	refMDSysfs = "https://docs.kernel.org/admin-guide/md.html#md-devices-in-sysfs"
)

func mdSource(a facts.MDArray, attr string) string { return "/sys/block/" + a.Name + "/md/" + attr }

var metaMDDegraded = rule.Meta{
	ID: "md-degraded", Family: "md", Severity: rule.Crit, Since: "0.3.0",
	Title: "md array is degraded",
	Doc: "A degraded array runs without part of its redundancy: RAID5 with one member missing, " +
		"RAID6 with one or two, has no (or less) protection left, and every read of the missing " +
		"member's data is reconstructed from all others. Replace the member now; a rebuild reads " +
		"every other disk in full, which is when a second weak disk fails.",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

func checkMDDegraded(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		var faulty []string
		for _, m := range a.Members {
			if m.Role == "faulty" {
				faulty = append(faulty, m.Device)
			}
		}
		if a.Degraded == 0 && len(faulty) == 0 {
			continue
		}
		why := fmt.Sprintf("%s (%s) is missing %d of %d members", a.Name, a.Level, a.Degraded, a.RaidDisks)
		if len(faulty) > 0 {
			why += "; faulty: " + strings.Join(faulty, ", ")
		}
		if strings.HasPrefix(a.SyncAction, "recover") {
			why += fmt.Sprintf("; recovery at %.1f%% (%d KiB/s)", a.Progress, a.SyncSpeed)
		}
		ev := []rule.Evidence{rule.Ev(mdSource(a, "degraded"), fmt.Sprint(a.Degraded))}
		if a.Status != "" {
			ev = append(ev, rule.Ev("/proc/mdstat", fmt.Sprintf("%s [%s]", a.Name, a.Status)))
		}
		f := metaMDDegraded.New(a.Name, why+".", ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("replace the failed member: mdadm %s --remove <old>; mdadm %s --add /dev/disk/by-id/<new>", a.Name, a.Name),
			Basis:  "md/degraded > 0"}
		out = append(out, f)
	}
	return out
}

var metaMDRebuildCapped = rule.Meta{
	ID: "md-rebuild-capped", Family: "md", Severity: rule.Info, Since: "0.3.0",
	Title: "Rebuild runs at its speed limit",
	Doc: "md throttles resync and recovery between dev.raid.speed_limit_min and speed_limit_max " +
		"(KiB/s per device; per array in md/sync_speed_min/max). When a rebuild runs at the " +
		"maximum, the limit (not the disks) sets how long the array stays vulnerable; raising it " +
		"shortens the window at the cost of foreground I/O. A rebuild far below the maximum is " +
		"limited by the disks, the bus or the CPU instead.",
	Refs: []string{refMDSysfs, "https://docs.kernel.org/admin-guide/sysctl/dev.html"},
}

func checkMDRebuildCapped(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		busy := a.SyncAction == "resync" || a.SyncAction == "recover" || a.SyncAction == "reshape" || a.SyncAction == "check" || a.SyncAction == "repair"
		if !busy || a.SyncMax == 0 || a.SyncSpeed*10 < a.SyncMax*9 {
			continue
		}
		want := a.SyncMax * 2
		f := metaMDRebuildCapped.New(a.Name, fmt.Sprintf(
			"%s is at %.1f%% of a %s, running at %d KiB/s against a limit of %d KiB/s.", a.Name, a.Progress, a.SyncAction, a.SyncSpeed, a.SyncMax),
			rule.Ev(mdSource(a, "sync_speed"), fmt.Sprint(a.SyncSpeed)), rule.Ev(mdSource(a, "sync_speed_max"), fmt.Sprint(a.SyncMax)))
		if a.SyncLimitsSystem {
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "dev.raid.speed_limit_max",
				Current: fmt.Sprint(a.SyncMax), Value: fmt.Sprint(want), Basis: "double the limit the rebuild is pinned at"}
		} else {
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: mdSource(a, "sync_speed_max"),
				Current: fmt.Sprint(a.SyncMax), Value: fmt.Sprint(want), Basis: "double the limit the rebuild is pinned at"}
		}
		out = append(out, f)
	}
	return out
}

var metaStripeCache = rule.Meta{
	ID: "md-stripe-cache", Family: "md", Severity: rule.Info, Since: "0.3.0",
	Title: "RAID5/6 stripe cache not sized for this memory",
	Doc: "stripe_cache_size (RAID4/5/6 only, 17-32768, default 256) is the number of stripe " +
		"buffers md keeps to assemble full-stripe writes and avoid read-modify-write. Each entry " +
		"costs one page per member disk. On arrays with RAM to spare a larger cache speeds up " +
		"writes markedly; on small boxes it must stay small. nastune sizes it at 5% of RAM: " +
		"clamp(floor(0.05 × RAM ÷ (4096 × disks)), 17, 32768). Measure before and after.",
	Refs: []string{refMDSysfs},
}

func checkStripeCache(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, a := range h.MD {
		if (a.Level != "raid5" && a.Level != "raid6" && a.Level != "raid4") || a.StripeCacheSize == 0 || h.Memory.TotalBytes == 0 {
			continue
		}
		want := calc.RecommendStripeCache(h.Memory.TotalBytes, a.RaidDisks)
		cur := a.StripeCacheSize
		curMem, wantMem := calc.StripeCacheMemory(cur, a.RaidDisks), calc.StripeCacheMemory(want, a.RaidDisks)
		sev := rule.Info
		var why string
		switch {
		case cur < want/2:
			why = fmt.Sprintf("%s keeps %d stripes (%s); with %s of RAM, %d stripes (%s, 5%% of RAM) let more writes assemble full stripes instead of reading parity back.",
				a.Name, cur, humanBytes(curMem), humanBytes(h.Memory.TotalBytes), want, humanBytes(wantMem))
		case cur > want*2 && curMem*10 > h.Memory.TotalBytes:
			sev = rule.Warn
			why = fmt.Sprintf("%s keeps %d stripes: %s, more than 10%% of this machine's %s of RAM.",
				a.Name, cur, humanBytes(curMem), humanBytes(h.Memory.TotalBytes))
		default:
			continue
		}
		f := metaStripeCache.New(a.Name, why, rule.Ev(mdSource(a, "stripe_cache_size"), fmt.Sprint(cur)),
			rule.Ev(mdSource(a, "raid_disks"), fmt.Sprint(a.RaidDisks)), memEvidence(h))
		f.Severity = sev
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: mdSource(a, "stripe_cache_size"),
			Current: fmt.Sprint(cur), Value: fmt.Sprint(want),
			Basis: fmt.Sprintf("clamp(floor(0.05 × %d ÷ (4096 × %d)), 17, 32768); costs %s", h.Memory.TotalBytes, a.RaidDisks, humanBytes(wantMem))}
		out = append(out, f)
	}
	return out
}

var metaMismatch = rule.Meta{
	ID: "md-mismatch", Family: "md", Severity: rule.Warn, Since: "0.3.0",
	Title: "Parity check found inconsistent stripes",
	Doc: "md/mismatch_cnt counts sectors whose parity (or mirror copies) disagreed in the last " +
		"check or repair. On RAID5/6 that means data and parity differ: a disk or controller wrote " +
		"something wrong, or power was lost without a bitmap or journal. (On RAID1/10 swap and " +
		"O_DIRECT writes can cause harmless mismatches.)",
	Refs: []string{refMDSysfs},
}

func checkMismatch(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		if a.MismatchCnt == 0 || (a.Level != "raid4" && a.Level != "raid5" && a.Level != "raid6") {
			continue
		}
		f := metaMismatch.New(a.Name, fmt.Sprintf("The last check of %s found %d sectors whose parity does not match the data.", a.Name, a.MismatchCnt),
			rule.Ev(mdSource(a, "mismatch_cnt"), fmt.Sprint(a.MismatchCnt)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("check SMART and cabling of every member, then echo repair > %s and check again", mdSource(a, "sync_action")),
			Basis:  "mismatch_cnt > 0 on a parity array"}
		out = append(out, f)
	}
	return out
}
