package storcmd

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
)

// ZpoolList reads `zpool list -v -H -P -p`: tab-separated NAME SIZE ALLOC
// FREE CKPOINT EXPANDSZ FRAG CAP DEDUP HEALTH ALTROOT; vdev and device
// lines start with a tab and are skipped (topology comes from zpool status).
func ZpoolList(b []byte) ([]facts.Pool, error) {
	var out []facts.Pool
	for i, l := range lines(b) {
		if l == "" || strings.HasPrefix(l, "\t") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 10 {
			return out, perr.Line(i+1, "want 10+ tab-separated columns, got %d", len(f))
		}
		size, err1 := strconv.ParseUint(f[1], 10, 64)
		alloc, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return out, perr.Line(i+1, "SIZE/ALLOC of %s are not byte counts (want -p)", f[0])
		}
		out = append(out, facts.Pool{Name: f[0], SizeBytes: size, AllocBytes: alloc, Health: f[9]})
	}
	return out, nil
}

var vdevClasses = map[string]bool{"logs": true, "cache": true, "spares": true, "special": true, "dedup": true}

// indentOf is the width of a line's leading whitespace, a tab reaching
// the next multiple of 8 (zpool prints a tab, then two spaces per level;
// output pasted into docs and forums has spaces only).
func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n = (n/8 + 1) * 8
		default:
			return n
		}
	}
	return n
}

// ZpoolStatus reads `zpool status -P`: each pool's health and vdev tree.
// The config's depth is counted from the indentation of its NAME header
// (or the pool's own line), in steps of two columns, so tab- and
// space-indented output read the same.
func ZpoolStatus(b []byte) ([]facts.Pool, error) {
	var out []facts.Pool
	var pool *facts.Pool
	inConfig := false
	class := ""
	base := -1
	slots, nested := 0, false              // positions and nested vdevs of the current top-level vdev
	repDepth, repKids := -1, []string(nil) // the open replacing-N and its children
	flushReplacing := func() {
		if repDepth >= 0 && len(repKids) > 1 && len(pool.Vdevs) > 0 {
			v := &pool.Vdevs[len(pool.Vdevs)-1]
			v.Leaving = append(v.Leaving, repKids[:len(repKids)-1]...)
		}
		repDepth, repKids = -1, nil
	}
	for i, l := range lines(b) {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "pool:"):
			if pool != nil {
				flushReplacing()
			}
			out = append(out, facts.Pool{Name: strings.TrimSpace(strings.TrimPrefix(t, "pool:"))})
			pool, inConfig, class, base = &out[len(out)-1], false, "", -1
			continue
		case pool == nil:
			continue
		case strings.HasPrefix(t, "state:"):
			pool.Health = strings.TrimSpace(strings.TrimPrefix(t, "state:"))
			continue
		case strings.HasPrefix(t, "config:"):
			inConfig = true
			continue
		case strings.HasPrefix(t, "errors:"):
			flushReplacing()
			inConfig = false
			continue
		}
		if !inConfig || t == "" {
			continue
		}
		name := strings.Fields(t)[0]
		if name == "NAME" || (base < 0 && name == pool.Name) {
			base = indentOf(l)
			if name == "NAME" {
				continue
			}
		}
		if base < 0 {
			return out, perr.Line(i+1, "device %q before %s's NAME header", name, pool.Name)
		}
		depth := (indentOf(l) - base) / 2
		if depth <= 0 && class != "" && name != pool.Name && !vdevClasses[name] {
			depth = 1 // a device under spares/cache, pasted with a short indent
		}
		if repDepth >= 0 && depth <= repDepth {
			flushReplacing()
		}
		if depth >= 1 && vdevType(name) == "replacing" {
			repDepth, repKids = depth, nil
		} else if repDepth >= 0 && depth == repDepth+1 {
			repKids = append(repKids, name)
		}
		switch {
		case depth <= 0 && name == pool.Name:
			class = ""
		case depth <= 0 && vdevClasses[name]:
			class = name
		case depth <= 0:
			return out, perr.Line(i+1, "unexpected %q at the top of %s's config", name, pool.Name)
		case depth == 1:
			slots, nested = 0, false
			v := facts.Vdev{Name: name, Class: class, Type: vdevType(name)}
			if v.Type == "disk" || v.Type == "draid-spare" {
				v.Devices = []string{name}
			}
			if v.Type == "replacing" || v.Type == "spare" {
				v.Slots = 1 // a single disk being replaced: one position
			}
			v.DRAID = draidLayout(name)
			pool.Vdevs = append(pool.Vdevs, v)
		default:
			if len(pool.Vdevs) == 0 {
				return out, perr.Line(i+1, "device %q before any vdev", name)
			}
			v := &pool.Vdevs[len(pool.Vdevs)-1]
			t := vdevType(name)
			switch {
			case depth == 2:
				// A replacing-N or spare-N child is one position
				// holding the old and the new device (listed below it).
				slots++
				if t == "replacing" || t == "spare" {
					nested = true
				} else {
					v.Devices = append(v.Devices, name)
				}
				if nested {
					v.Slots = slots
				}
			case t != "replacing" && t != "spare": // a device under replacing-N or spare-N
				v.Devices = append(v.Devices, name)
			}
		}
	}
	if pool != nil {
		flushReplacing()
	}
	return out, nil
}

var draidName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^draid(\d)?:(\d+)d:(\d+)c:(\d+)s-\d+$`) })

// draidLayout reads "draid2:4d:8c:1s-0" (zpool status names dRAID vdevs by
// parity, data disks per group, children and distributed spares).
func draidLayout(name string) *facts.DRAIDLayout {
	m := draidName().FindStringSubmatch(name)
	if m == nil {
		return nil
	}
	l := &facts.DRAIDLayout{Parity: 1}
	if m[1] != "" {
		l.Parity, _ = strconv.Atoi(m[1])
	}
	l.Data, _ = strconv.Atoi(m[2])
	l.Children, _ = strconv.Atoi(m[3])
	l.Spares, _ = strconv.Atoi(m[4])
	return l
}

var draidSpare = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^draid\d-\d+-\d+$`) })

// vdevType maps "raidz2-0" → raidz2, "mirror-1" → mirror, "raidz-0" →
// raidz1, "draid2:4d:8c:1s-0" → draid2; a device path is a single "disk".
func vdevType(name string) string {
	if strings.HasPrefix(name, "/") {
		return "disk"
	}
	if draidSpare().MatchString(name) {
		return "draid-spare" // a distributed spare "draid2-0-0"
	}
	base := name
	if i := strings.LastIndexByte(base, '-'); i > 0 {
		base = base[:i]
	}
	if i := strings.IndexByte(base, ':'); i > 0 {
		base = base[:i]
	}
	switch {
	case base == "raidz":
		return "raidz1"
	case base == "draid":
		return "draid1"
	case strings.HasPrefix(base, "raidz"), base == "mirror", strings.HasPrefix(base, "draid"), base == "replacing", base == "spare":
		return base
	}
	return "disk"
}

// ZdbAshift reads `zdb -C POOL` and returns, for each top-level vdev, its
// ashift and the device paths under it.
func ZdbAshift(b []byte) ([]ZdbVdev, error) {
	var out []ZdbVdev
	topIndent := -1
	var cur *ZdbVdev
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if strings.HasPrefix(t, "vdev_tree:") {
			topIndent = -2 // children of the root come next
			continue
		}
		if strings.HasPrefix(t, "children[") && topIndent != -1 {
			if topIndent == -2 {
				topIndent = indent
			}
			if indent == topIndent {
				out = append(out, ZdbVdev{})
				cur = &out[len(out)-1]
			}
			continue
		}
		if cur == nil {
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), "'")
		switch k {
		case "ashift":
			if indent > topIndent && cur.Ashift == 0 {
				cur.Ashift, _ = strconv.Atoi(v)
			}
		case "path":
			cur.Paths = append(cur.Paths, v)
		case "is_log":
			cur.IsLog = v == "1"
		}
	}
	return out, nil
}

// ZdbVdev is one top-level vdev of a zdb -C configuration.
type ZdbVdev struct {
	Ashift int
	Paths  []string
	IsLog  bool
}
