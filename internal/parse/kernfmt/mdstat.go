package kernfmt

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
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
	// Action is recovery, resync, check, repair or reshape while running.
	Action          string
	ProgressPercent float64
	SpeedKBs        int
	Finish          string
	Bitmap          string
}

// MDStatMember is "sdb1[1](S)": the device, its role number and flags
// (S spare, F faulty, W write-mostly, R replacement).
type MDStatMember struct {
	Name  string
	Index int
	Flags string
}

var (
	mdMember   = regexp.MustCompile(`^([^\[]+)\[(\d+)\]((?:\([A-Z]\))*)$`)
	mdDisks    = regexp.MustCompile(`\[(\d+)/(\d+)\] \[([U_]+)\]`)
	mdChunk    = regexp.MustCompile(`(\d+)k chunk`)
	mdProgress = regexp.MustCompile(`(recovery|resync|check|repair|reshape)\s*=\s*([\d.]+)%.*?(?:finish=(\S+))?\s*(?:speed=(\d+)K/sec)?$`)
)

// ParseMDStat reads /proc/mdstat. An array line that cannot be read is an
// error naming it; arrays before it are returned.
func ParseMDStat(data []byte) ([]MDStat, error) {
	var out []MDStat
	var cur *MDStat
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
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
				return out, lineErr(n, "array %s has no state", clip(name))
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
				mm := mdMember.FindStringSubmatch(m)
				if mm == nil {
					return out, lineErr(n, "member %q of %s is not NAME[N]", clip(m), a.Name)
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
			if m := mdChunk.FindStringSubmatch(t); m != nil {
				cur.ChunkKB, _ = strconv.Atoi(m[1])
			}
			if m := mdDisks.FindStringSubmatch(t); m != nil {
				cur.RaidDisks, _ = strconv.Atoi(m[1])
				cur.ActiveDisks, _ = strconv.Atoi(m[2])
				cur.Status = m[3]
			}
		case strings.HasPrefix(t, "bitmap:"):
			cur.Bitmap = strings.TrimSpace(strings.TrimPrefix(t, "bitmap:"))
		default:
			if m := mdProgress.FindStringSubmatch(t); m != nil {
				cur.Action = m[1]
				cur.ProgressPercent, _ = strconv.ParseFloat(m[2], 64)
				cur.Finish = m[3]
				cur.SpeedKBs, _ = strconv.Atoi(m[4])
			} else if strings.Contains(t, "=") && (strings.Contains(t, "resync") || strings.Contains(t, "recovery")) {
				// "resync=DELAYED", "resync=PENDING"
				k, v, _ := strings.Cut(t, "=")
				cur.Action = strings.TrimSpace(k) + " " + strings.ToLower(strings.TrimSpace(v))
			}
		}
	}
	return out, nil
}
