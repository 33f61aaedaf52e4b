package kernfmt

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// MDStat is one array of /proc/mdstat (drivers/md/md.c md_seq_show).
type MDStat struct {
	Name     string
	Active   bool
	ReadOnly bool
	Level    string // raid0, raid1, raid5, raid6, raid10, linear…
	Members  []MDStatMember
	// Blocks is the array size in KiB.
	Blocks   uint64
	Metadata string
	ChunkKB  int
	// RaidDisks and ActiveDisks are the [n/m] pair; Status the [UU_] map.
	RaidDisks, ActiveDisks int
	Status                 string
	// Action is recovery, resync, check, repair or reshape while running
	// or waiting; Waiting is "DELAYED" (another array on the same disks
	// syncs first) or "PENDING" (auto-read-only: starts at the first
	// write) when the action has not started.
	Action          string
	Waiting         string
	ProgressPercent float64
	SpeedKBs        int
	Finish          string
	Bitmap          string
}

// MDStatMember is "sdb1[1](S)": the device, its descriptor number and
// flags (md_seq_show: S spare, F faulty, W write-mostly, J journal,
// R replacement).
type MDStatMember struct {
	Name  string
	Index int
	Flags string
}

var (
	mdMember   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^\[]+)\[(\d+)\]((?:\([A-Z]\))*)$`) })
	mdDisks    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[(\d+)/(\d+)\] \[([U_]+)\]`) })
	mdChunk    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(\d+)k chunk`) })
	mdProgress = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(recovery|resync|check|repair|reshape)\s*=\s*([\d.]+)%.*?(?:finish=(\S+))?\s*(?:speed=(\d+)K/sec)?$`)
	})
)

// ParseMDStat reads /proc/mdstat. A member or array line that cannot be
// read is skipped and the first such problem is returned as an error naming
// its line; every array that could be read is returned with it.
func ParseMDStat(data []byte) ([]MDStat, error) {
	var out []MDStat
	var cur *MDStat
	var firstErr error
	bad := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "Personalities") || strings.HasPrefix(t, "unused devices"):
			continue
		case !strings.HasPrefix(line, " ") && strings.Contains(line, " : "):
			name, rest, _ := strings.Cut(line, " : ")
			f := strings.Fields(rest)
			if len(f) == 0 {
				bad(lineErr(n, "array %s has no state", clip(name)))
				cur = nil
				continue
			}
			a := MDStat{Name: strings.TrimSpace(name), Active: f[0] == "active"}
			f = f[1:]
			for len(f) > 0 && strings.HasPrefix(f[0], "(") {
				if strings.Contains(f[0], "read-only") {
					a.ReadOnly = true
				}
				f = f[1:]
			}
			if len(f) > 0 && !strings.Contains(f[0], "[") {
				a.Level = f[0]
				f = f[1:]
			}
			for _, m := range f {
				mm := mdMember().FindStringSubmatch(m)
				if mm == nil {
					bad(lineErr(n, "member %q of %s is not NAME[N]", clip(m), a.Name))
					continue
				}
				idx, _ := strconv.Atoi(mm[2])
				a.Members = append(a.Members, MDStatMember{Name: mm[1], Index: idx, Flags: strings.NewReplacer("(", "", ")", "").Replace(mm[3])})
			}
			out = append(out, a)
			cur = &out[len(out)-1]
		case cur == nil:
			continue
		case strings.Contains(t, " blocks"):
			f := strings.Fields(t)
			cur.Blocks, _ = strconv.ParseUint(f[0], 10, 64)
			if i := strings.Index(t, "super "); i >= 0 {
				cur.Metadata = strings.Fields(t[i+6:])[0]
			}
			if m := mdChunk().FindStringSubmatch(t); m != nil {
				cur.ChunkKB, _ = strconv.Atoi(m[1])
			}
			if m := mdDisks().FindStringSubmatch(t); m != nil {
				cur.RaidDisks, _ = strconv.Atoi(m[1])
				cur.ActiveDisks, _ = strconv.Atoi(m[2])
				cur.Status = m[3]
			}
		case strings.HasPrefix(t, "bitmap:"):
			cur.Bitmap = strings.TrimSpace(strings.TrimPrefix(t, "bitmap:"))
		default:
			if m := mdProgress().FindStringSubmatch(t); m != nil {
				cur.Action = m[1]
				cur.ProgressPercent, _ = strconv.ParseFloat(m[2], 64)
				cur.Finish = m[3]
				cur.SpeedKBs, _ = strconv.Atoi(m[4])
			} else if k, v, ok := strings.Cut(t, "="); ok && (strings.TrimSpace(k) == "resync" || strings.TrimSpace(k) == "recovery") {
				// status_resync: "\tresync=DELAYED", "\tresync=PENDING"
				cur.Action = strings.TrimSpace(k)
				cur.Waiting = strings.ToUpper(strings.Fields(v + " x")[0])
			}
		}
	}
	return out, firstErr
}

// ParseMDRaidDisks reads md/raid_disks: "4", or "11 (10)" while a reshape
// changes the member count (md.c raid_disks_show prints the new count and,
// in brackets, the count before the reshape).
func ParseMDRaidDisks(s string) (now, before int, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, 0, lineErr(1, "raid_disks %q is not N or N (M)", clip(s))
	}
	now, err = strconv.Atoi(f[0])
	if err != nil || now < 0 {
		return 0, 0, lineErr(1, "raid_disks %q is not N or N (M)", clip(s))
	}
	before = now
	if len(f) == 2 {
		b := strings.TrimSuffix(strings.TrimPrefix(f[1], "("), ")")
		if before, err = strconv.Atoi(b); err != nil || len(b)+2 != len(f[1]) {
			return 0, 0, lineErr(1, "raid_disks %q is not N or N (M)", clip(s))
		}
	}
	return now, before, nil
}

// ParseMDSyncSpeed reads md/sync_speed, the current resync or recovery
// rate in KiB/s (md.c sync_speed_show: "none" when no sync runs, which is
// 0 and no error).
func ParseMDSyncSpeed(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, lineErr(1, "sync_speed %q is not a number or none", clip(s))
	}
	return n, nil
}

// ParseMDSyncLimit reads md/sync_speed_min or sync_speed_max (md.c
// sync_min_show, sync_max_show): "1000 (system)" or "50000 (local)", the
// limit in KiB/s per device and whether it is the system-wide default
// (dev.raid.speed_limit_min/max) or the array's own.
func ParseMDSyncLimit(s string) (kibs int, system bool, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, false, lineErr(1, "sync speed limit %q is not N (system) or N (local)", clip(s))
	}
	kibs, err = strconv.Atoi(f[0])
	if err != nil || kibs < 0 {
		return 0, false, lineErr(1, "sync speed limit %q is not N (system) or N (local)", clip(s))
	}
	if len(f) == 2 {
		switch f[1] {
		case "(system)":
			system = true
		case "(local)":
		default:
			return 0, false, lineErr(1, "sync speed limit %q is not N (system) or N (local)", clip(s))
		}
	}
	return kibs, system, nil
}
