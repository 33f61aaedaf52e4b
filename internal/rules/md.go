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
	{Meta: metaMDFailedMember, Check: checkMDFailedMember},
	{Meta: metaMDInactive, Check: checkMDInactive},
	{Meta: metaMDContainerUnused, Check: checkMDContainerUnused},
	{Meta: metaMDSyncWaiting, Check: checkMDSyncWaiting},
	{Meta: metaMDReshaping, Check: checkMDReshaping},
	{Meta: metaMDHotSpare, Check: checkMDHotSpare},
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
		"member's data is reconstructed from all others. /proc/mdstat shows it as [n/m] with m < n " +
		"and a `_` in the status map ([UU_]). A member marked (F) in an array whose map is all U " +
		"was already replaced: that is md-failed-member, not a degraded array. Replace the member " +
		"now; a rebuild reads every other disk in full, which is when a second weak disk fails.",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

// mdDev is the device node of an array or member.
func mdDev(name string) string { return "/dev/" + name }

// mdMissing is how many members an active array lacks, from the status
// map and the [n/m] pair of /proc/mdstat (n is the map's length, so both
// numbers come from one line) and md/degraded, whichever says most.
func mdMissing(a facts.MDArray) int {
	n := max(a.Degraded, strings.Count(a.Status, "_"))
	if w := len(a.Status); w > 0 && a.ActiveDisks < w {
		n = max(n, w-a.ActiveDisks)
	}
	return n
}

// mdWidth is the member count the status map shows, else md/raid_disks.
func mdWidth(a facts.MDArray) int {
	if a.Status != "" {
		return len(a.Status)
	}
	return a.RaidDisks
}

// mdMapEvidence quotes the "[n/m] [UU_]" part of /proc/mdstat.
func mdMapEvidence(a facts.MDArray) rule.Evidence {
	if a.Status == "" {
		return rule.Ev(mdSource(a, "degraded"), fmt.Sprint(a.Degraded))
	}
	return rule.Ev("/proc/mdstat", fmt.Sprintf("[%d/%d] [%s]", len(a.Status), a.ActiveDisks, a.Status))
}

func mdMembers(a facts.MDArray, role string) []facts.MDMember {
	var out []facts.MDMember
	for _, m := range a.Members {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

func mdMemberEvidence(ms []facts.MDMember, flag string) []rule.Evidence {
	var ev []rule.Evidence
	for _, m := range ms {
		ev = append(ev, rule.Ev("/proc/mdstat", fmt.Sprintf("%s[%d]", m.Device, m.Slot)+flag))
	}
	return ev
}

func checkMDDegraded(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		missing := mdMissing(a)
		if a.Inactive || missing == 0 {
			continue
		}
		faulty := mdMembers(a, "faulty")
		why := fmt.Sprintf("%s (%s) runs with %d of its %d members missing", mdDev(a.Name), a.Level, missing, mdWidth(a))
		if a.SysfsConflict != "" {
			why += fmt.Sprintf(" (per /proc/mdstat; /sys/block/%s/md disagrees: %s)", a.Name, a.SysfsConflict)
		}
		ev := []rule.Evidence{mdMapEvidence(a)}
		var names []string
		for _, m := range faulty {
			names = append(names, m.Device)
		}
		if len(faulty) > 0 {
			why += "; marked failed: " + strings.Join(names, ", ")
			ev = append(ev, mdMemberEvidence(faulty, "(F)")...)
		}
		target := fmt.Sprintf("add a replacement disk: mdadm %s --add /dev/disk/by-id/<new>", mdDev(a.Name))
		if len(faulty) > 0 {
			target = fmt.Sprintf("remove the failed member and add a replacement: mdadm %s --remove %s; mdadm %s --add /dev/disk/by-id/<new>",
				mdDev(a.Name), mdDev(faulty[0].Device), mdDev(a.Name))
		}
		if spares, ok := mdSparesCover(a, missing); ok && a.SyncAction != "recover" && a.SyncAction != "recovery" {
			w, t := mdSpareTarget(a, spares)
			why += w
			target = t
			if len(faulty) > 0 {
				target += fmt.Sprintf("; remove the failed member when convenient: mdadm %s --remove %s", mdDev(a.Name), mdDev(faulty[0].Device))
			}
			ev = append(ev, mdMemberEvidence(spares, "(S)")...)
		}
		if a.SyncAction == "recover" || a.SyncAction == "recovery" {
			why += fmt.Sprintf("; recovery onto a new member is at %.1f%%", a.Progress)
			if a.SyncSpeed > 0 {
				why += fmt.Sprintf(" (%d KiB/s", a.SyncSpeed) // units:input: md's own unit (sync_speed, sync_speed_max)
				if a.SyncFinish != "" {
					why += ", about " + a.SyncFinish + " left"
				}
				why += ")"
			}
			target = fmt.Sprintf("let the recovery of %s finish; until then avoid heavy I/O and check SMART of the remaining members", mdDev(a.Name))
		} else if a.SyncWaiting != "" {
			why += "; its recovery waits to start (" + strings.ToLower(a.SyncWaiting) + ")"
			target = fmt.Sprintf("let the recovery of %s start and finish (see md-sync-waiting)", mdDev(a.Name))
		}
		f := metaMDDegraded.New(a.Name, why+".", ev...)
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target,
			Basis: "status map shows missing members"}
		out = append(out, f)
	}
	return out
}

var metaMDFailedMember = rule.Meta{
	ID: "md-failed-member", Family: "md", Severity: rule.Info, Since: "0.6.0",
	Title: "Failed member still listed in a complete md array",
	Doc: "md keeps a member it failed in the array's list, marked (F), until it is removed with " +
		"mdadm --remove. When the status map is all U ([n/n]) a spare or a new disk has already " +
		"taken the failed member's place: the array has full redundancy, it is not degraded. The " +
		"stale entry hides the disk's state from a quick look at /proc/mdstat and keeps the device " +
		"busy. Remove it, and check the failed disk's SMART before reusing it.",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

func checkMDFailedMember(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		faulty := mdMembers(a, "faulty")
		if a.Inactive || mdMissing(a) > 0 || len(faulty) == 0 {
			continue
		}
		var names, disks, cmds []string
		for _, m := range faulty {
			names = append(names, m.Device)
			// SMART belongs to the whole disk, not to the partition md used
			// (m.Disk, the member itself when the probe did not know its disk).
			disks = append(disks, firstNonEmptyStr(m.Disk, m.Device))
			cmds = append(cmds, fmt.Sprintf("mdadm %s --remove %s", mdDev(a.Name), mdDev(m.Device)))
		}
		f := metaMDFailedMember.New(a.Name, fmt.Sprintf(
			"%s still lists %s as failed (F), but all %d members are in place: the failed member was already replaced and the array is not degraded.",
			mdDev(a.Name), strings.Join(names, ", "), mdWidth(a)),
			append([]rule.Evidence{mdMapEvidence(a)}, mdMemberEvidence(faulty, "(F)")...)...)
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: strings.Join(cmds, "; ") + "; then check SMART of " + strings.Join(disks, ", ") + " before reusing it",
			Basis:  "(F) member in an array whose status map is all U"}
		out = append(out, f)
	}
	return out
}

var metaMDInactive = rule.Meta{
	ID: "md-inactive", Family: "md", Severity: rule.Crit, Since: "0.6.0",
	Title: "md array is inactive: its data is unavailable",
	Doc: "An array listed as `inactive` in /proc/mdstat was found but not started: too few members " +
		"were present when it was assembled (a disk missing or late at boot, superblocks whose " +
		"event counts disagree after a crash), or it was stopped. Its members appear as (S) " +
		"because none has a role yet. Nothing on it can be mounted. Do not --create over it: " +
		"examine the members, then assemble.",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html", "https://raid.wiki.kernel.org/index.php/Assemble_Run"},
}

func checkMDInactive(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		if !a.Inactive || a.IsContainer() {
			continue
		}
		var names, devs []string
		for _, m := range a.Members {
			names = append(names, m.Device)
			devs = append(devs, mdDev(m.Device))
		}
		why := fmt.Sprintf("%s is inactive: it is not running and its data cannot be read", mdDev(a.Name))
		if len(names) > 0 {
			why += fmt.Sprintf("; the kernel holds %d device(s) for it: %s", len(names), strings.Join(names, ", "))
		}
		f := metaMDInactive.New(a.Name, why+".", rule.Ev("/proc/mdstat", a.Name+" : inactive"))
		f.Device = a.Name
		target := fmt.Sprintf("compare the members' superblocks (mdadm --examine %s), then mdadm --stop %s and mdadm --assemble --scan (add --force only after reading mdadm(8))",
			strings.Join(devs, " "), mdDev(a.Name))
		if len(devs) == 0 {
			target = fmt.Sprintf("check that all member disks are connected, then mdadm --stop %s and mdadm --assemble --scan", mdDev(a.Name))
		}
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "array state inactive"}
		out = append(out, f)
	}
	return out
}

var metaMDSyncWaiting = rule.Meta{
	ID: "md-sync-waiting", Family: "md", Severity: rule.Info, Since: "0.6.0",
	Title: "md resync or recovery waits to start",
	Doc: "resync=DELAYED means md serialises syncs of arrays that share physical disks: this one " +
		"starts when the other finishes. resync=PENDING means the array is auto-read-only (as " +
		"assembled at boot) and the resync starts at the first write; `mdadm --readwrite` starts " +
		"it at once. Either way the array is not yet fully in sync.",
	Refs: []string{refMD},
}

func checkMDSyncWaiting(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		if a.Inactive || a.SyncWaiting == "" {
			continue
		}
		word := "resync"
		if a.SyncAction == "recover" || a.SyncAction == "recovery" || mdMissing(a) > 0 {
			word = "recovery"
		}
		ev := rule.Ev("/proc/mdstat", "="+a.SyncWaiting)
		var why, target string
		switch a.SyncWaiting {
		case "PENDING":
			why = fmt.Sprintf("%s is auto-read-only; its %s starts at the first write.", mdDev(a.Name), word)
			target = fmt.Sprintf("nothing needed; mdadm --readwrite %s starts it now", mdDev(a.Name))
		default:
			why = fmt.Sprintf("The %s of %s waits for another array on the same disks to finish its own.", word, mdDev(a.Name))
			target = "nothing needed: it starts by itself; keep the machine running until all arrays are in sync"
		}
		f := metaMDSyncWaiting.New(a.Name, why, ev)
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "resync=" + a.SyncWaiting}
		out = append(out, f)
	}
	return out
}

var metaMDReshaping = rule.Meta{
	ID: "md-reshaping", Family: "md", Severity: rule.Info, Since: "0.6.0",
	Title: "md array is being reshaped",
	Doc: "A reshape rewrites every stripe to change the member count, level, chunk or layout " +
		"(mdadm --grow). It reads and writes all members for hours or days; the array stays usable " +
		"but slower, and the new capacity appears only at the end (then grow the filesystem). " +
		"md/raid_disks shows \"new (old)\" while the member count changes.",
	Refs: []string{refMDSysfs, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

func checkMDReshaping(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		if a.Inactive || a.SyncAction != "reshape" {
			continue
		}
		why := fmt.Sprintf("%s is reshaping", mdDev(a.Name))
		var ev []rule.Evidence
		if a.RaidDisksBefore > 0 && a.RaidDisksBefore != a.RaidDisks {
			why += fmt.Sprintf(" from %d to %d members", a.RaidDisksBefore, a.RaidDisks)
			ev = append(ev, rule.Ev(mdSource(a, "raid_disks"), fmt.Sprintf("%d (%d)", a.RaidDisks, a.RaidDisksBefore)))
		}
		why += fmt.Sprintf(": %.1f%% done", a.Progress)
		if a.SyncFinish != "" {
			why += ", about " + a.SyncFinish + " left"
		}
		ev = append(ev, rule.Ev("/proc/mdstat", "reshape"))
		f := metaMDReshaping.New(a.Name, why+". Until it ends every member is busy and the array is slower.", ev...)
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("let it finish (cat /proc/mdstat); afterwards grow the filesystem on %s and re-check stripe settings", mdDev(a.Name)),
			Basis:  "sync_action reshape"}
		out = append(out, f)
	}
	return out
}

var metaMDHotSpare = rule.Meta{
	ID: "md-hot-spare", Family: "md", Severity: rule.Info, Since: "0.6.0",
	Title: "md array has an idle hot spare",
	Doc: "A member marked (S) in a running, complete array is a hot spare: it holds no data and " +
		"adds no capacity or speed; md starts rebuilding onto it as soon as a member fails. That " +
		"is intended. (On RAID5 the same disk would give more protection as a second parity disk " +
		"via mdadm --grow --level=6.)",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

func checkMDHotSpare(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		spares := mdMembers(a, "spare")
		if a.Inactive || len(spares) == 0 || mdMissing(a) > 0 {
			continue
		}
		var names []string
		for _, m := range spares {
			names = append(names, m.Device)
		}
		why := fmt.Sprintf("%s waits as hot spare of %s: it holds no data and takes over automatically when a member fails.",
			names[0], mdDev(a.Name))
		if len(names) > 1 {
			why = fmt.Sprintf("%s wait as hot spares of %s: they hold no data; one takes over automatically when a member fails.",
				strings.Join(names, ", "), mdDev(a.Name))
		}
		f := metaMDHotSpare.New(a.Name, why, mdMemberEvidence(spares, "(S)")...)
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "nothing needed; keep it, and include it in SMART monitoring like the active members",
			Basis:  "(S) member in a complete array"}
		out = append(out, f)
	}
	return out
}

var metaMDRebuildCapped = rule.Meta{
	ID: "md-rebuild-capped", Family: "md", Severity: rule.Info, Since: "0.3.0",
	Title: "Rebuild runs at its speed limit",
	Doc: "md throttles resync and recovery between dev.raid.speed_limit_min and speed_limit_max " +
		"(KiB/s per device; per array in md/sync_speed_min/max). When a rebuild runs at the " + // units:input: the knob's unit
		"maximum, the limit (not the disks) sets how long the array stays vulnerable; raising it " +
		"shortens the window at the cost of foreground I/O. A rebuild far below the maximum is " +
		"limited by the disks, the bus or the CPU instead.",
	Refs: []string{refMDSysfs, "https://docs.kernel.org/admin-guide/sysctl/dev.html"},
}

func checkMDRebuildCapped(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		busy := a.SyncAction == "resync" || a.SyncAction == "recover" || a.SyncAction == "reshape" || a.SyncAction == "check" || a.SyncAction == "repair"
		if !busy || a.Inactive || a.SyncMax == 0 || a.SyncSpeed*10 < a.SyncMax*9 {
			continue
		}
		want := a.SyncMax * 2
		f := metaMDRebuildCapped.New(a.Name, fmt.Sprintf(
			"%s is at %.1f%% of a %s, running at %d KiB/s against a limit of %d KiB/s.", a.Name, a.Progress, a.SyncAction, a.SyncSpeed, a.SyncMax), // units:input: md's own unit
			rule.Ev(mdSource(a, "sync_speed"), fmt.Sprint(a.SyncSpeed)), rule.Ev(mdSource(a, "sync_speed_max"), fmt.Sprint(a.SyncMax)))
		f.Device = a.Name
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
		f.Device = a.Name
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
		f.Device = a.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("check SMART and cabling of every member of %s, then echo repair > %s and check again", mdDev(a.Name), mdSource(a, "sync_action")),
			Basis:  "mismatch_cnt > 0 on a parity array"}
		out = append(out, f)
	}
	return out
}
