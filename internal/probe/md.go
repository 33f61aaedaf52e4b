package probe

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

const pathMDStat = "/proc/mdstat"

// md reads /proc/mdstat and each array's /sys/block/mdX/md folder.
func (p *prober) md() {
	hasMD := false
	for _, d := range p.h.Block {
		hasMD = hasMD || d.Kind == "md"
	}
	data, err := p.root.ReadFile(pathMDStat)
	if err != nil {
		if hasMD {
			p.fail(pathMDStat, err)
		}
		return
	}
	arrays, err := kernfmt.ParseMDStat(data)
	if err != nil {
		p.skip(pathMDStat, err.Error())
	}
	for _, a := range arrays {
		p.h.MD = append(p.h.MD, p.mdArray(a))
	}
}

func (p *prober) mdArray(a kernfmt.MDStat) facts.MDArray {
	dir := "/sys/block/" + a.Name + "/md/"
	m := facts.MDArray{
		Name: a.Name, Level: a.Level, RaidDisks: a.RaidDisks, ChunkBytes: a.ChunkKB * 1024,
		SizeBytes: a.Blocks * 1024, Metadata: a.Metadata, Status: a.Status, Bitmap: a.Bitmap,
		Progress: a.ProgressPercent, SyncSpeed: a.SpeedKBs, Inactive: !a.Active, ReadOnly: a.ReadOnly,
		ActiveDisks: a.ActiveDisks, RaidDisksBefore: a.RaidDisks, SyncWaiting: a.Waiting, SyncFinish: a.Finish,
	}
	if a.RaidDisks > 0 && a.ActiveDisks < a.RaidDisks {
		m.Degraded = a.RaidDisks - a.ActiveDisks
	}
	m.Members = mdMembersOf(p, a)
	// One source per array: on a live machine sysfs and mdstat agree; in a
	// tree put together from different machines (or a capture taken while
	// the array changed) they may not, and blending them gives impossible
	// statements ("raid6 with 2 members"). Then only the mdstat line is used.
	level, hasLevel := p.optional(dir + "level")
	rdNow, rdBefore, hasRD := 0, 0, false
	if v, ok := p.optional(dir + "raid_disks"); ok && v != "" {
		if now, before, err := kernfmt.ParseMDRaidDisks(v); err == nil {
			rdNow, rdBefore, hasRD = now, before, true
		} else {
			p.skip(dir+"raid_disks", err.Error())
		}
	}
	var conflict []string
	if hasLevel && level != "" && a.Level != "" && level != a.Level {
		conflict = append(conflict, fmt.Sprintf("level %s there, %s in /proc/mdstat", level, a.Level))
	}
	if hasRD && a.RaidDisks > 0 && rdNow != a.RaidDisks && rdBefore != a.RaidDisks {
		conflict = append(conflict, fmt.Sprintf("raid_disks %d there, [%d/%d] in /proc/mdstat", rdNow, a.RaidDisks, a.ActiveDisks))
	}
	if len(conflict) > 0 {
		m.SysfsConflict = strings.Join(conflict, "; ")
		p.skip(strings.TrimSuffix(dir, "/"), "disagrees with /proc/mdstat ("+m.SysfsConflict+"): "+a.Name+" is described from /proc/mdstat alone")
		if m.SyncAction == "" && a.Action != "" && a.Waiting == "" {
			m.SyncAction = strings.Replace(a.Action, "recovery", "recover", 1)
		}
		return m
	}
	if hasLevel && level != "" {
		m.Level = level
	}
	m.State, _ = p.optional(dir + "array_state")
	if hasRD {
		m.RaidDisks, m.RaidDisksBefore = rdNow, rdBefore
	}
	if v, ok := p.optInt(dir + "chunk_size"); ok {
		m.ChunkBytes = v
	}
	// The status map of /proc/mdstat ([UU_]) wins for degraded; md/degraded
	// only where mdstat shows no map.
	if v, ok := p.optInt(dir + "degraded"); ok && a.Status == "" {
		m.Degraded = v
	}
	m.SyncAction, _ = p.optional(dir + "sync_action")
	if (m.SyncAction == "" || m.SyncAction == "idle") && a.Action != "" && a.Waiting == "" {
		m.SyncAction = a.Action
		if m.SyncAction == "recovery" {
			m.SyncAction = "recover" // md/sync_action's word
		}
	}
	if v, ok := p.optional(dir + "sync_speed"); ok {
		if n, err := kernfmt.ParseMDSyncSpeed(v); err == nil {
			m.SyncSpeed = n
		} else {
			p.skip(dir+"sync_speed", err.Error())
		}
	}
	m.SyncMin, _ = speedLimit(p, dir+"sync_speed_min")
	var system bool
	m.SyncMax, system = speedLimit(p, dir+"sync_speed_max")
	m.SyncLimitsSystem = system
	if v, ok := p.optUint(dir + "mismatch_cnt"); ok {
		m.MismatchCnt = v
	}
	m.StripeCacheSize, _ = p.optInt(dir + "stripe_cache_size")
	m.StripeCacheActive, _ = p.optInt(dir + "stripe_cache_active")
	if m.Bitmap == "" {
		m.Bitmap, _ = p.optional(dir + "bitmap/location")
	}
	return m
}

// mdMembersOf lists an array's members from its /proc/mdstat line.
func mdMembersOf(p *prober, a kernfmt.MDStat) []facts.MDMember {
	var out []facts.MDMember
	for _, mem := range a.Members {
		role := "active"
		switch {
		case strings.Contains(mem.Flags, "F"):
			role = "faulty"
		case strings.Contains(mem.Flags, "J"):
			role = "journal"
		case strings.Contains(mem.Flags, "R"):
			role = "replacement"
		case strings.Contains(mem.Flags, "S"):
			role = "spare"
		}
		disk := mem.Name
		if d := p.h.Disk(mem.Name); d != nil {
			disk = d.Name
		}
		out = append(out, facts.MDMember{Device: mem.Name, Disk: disk, Role: role, Slot: mem.Index,
			WriteMostly: strings.Contains(mem.Flags, "W")})
	}
	return out
}

// speedLimit reads md/sync_speed_min or _max with kernfmt.ParseMDSyncLimit.
func speedLimit(p *prober, path string) (int, bool) {
	v, ok := p.optional(path)
	if !ok {
		return 0, false
	}
	n, system, err := kernfmt.ParseMDSyncLimit(v)
	if err != nil {
		p.skip(path, err.Error())
	}
	return n, system
}
