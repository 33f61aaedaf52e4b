package kernfmt

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/parse/perr"
)

// Cgroup files (Documentation/admin-guide/cgroup-v2.rst and
// cgroup-v1/{cgroups,blkio-controller}.rst, Documentation/scheduler/
// sched-bwc.rst).

// CgroupLine is one line of /proc/PID/cgroup: "ID:CONTROLLERS:PATH"
// (ID 0 and no controllers: the cgroup v2 hierarchy).
type CgroupLine struct {
	ID          int
	Controllers []string // "cpu", "cpuacct", "blkio", "name=systemd"; empty for v2
	Path        string
}

// ProcCgroup parses /proc/PID/cgroup.
func ProcCgroup(b []byte) ([]CgroupLine, error) {
	var out []CgroupLine
	err := eachLine(b, func(n int, l []byte) error {
		if len(bytes.TrimSpace(l)) == 0 {
			return nil
		}
		p := bytes.SplitN(l, []byte(":"), 3)
		if len(p) != 3 {
			return lineErr(n, "want ID:CONTROLLERS:PATH")
		}
		id, err := strconv.Atoi(string(p[0]))
		if err != nil {
			return lineErr(n, "hierarchy id %q", p[0])
		}
		c := CgroupLine{ID: id, Path: string(p[2])}
		for _, x := range bytes.Split(p[1], []byte(",")) {
			if len(x) > 0 {
				c.Controllers = append(c.Controllers, string(x))
			}
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// CPUStat holds the counters of cpu.stat that say whether a CPU quota
// held the group back. v2 counts microseconds (usage_usec,
// throttled_usec); v1 nanoseconds (throttled_time): both are converted to
// microseconds here.
type CPUStat struct {
	UsageUS     uint64 // v2 only (v1 has cpuacct.usage)
	Periods     uint64 // nr_periods: enforcement periods with runnable tasks
	Throttled   uint64 // nr_throttled
	ThrottledUS uint64
	HasUsage    bool
}

// ParseCPUStat reads cgroup v2 or v1 cpu.stat.
func ParseCPUStat(b []byte) (CPUStat, error) {
	var s CPUStat
	err := eachLine(b, func(n int, l []byte) error {
		k, rest := nextField(l)
		v, _ := nextField(rest)
		if len(k) == 0 {
			return nil
		}
		x, ok := dec(v)
		if !ok {
			return lineErr(n, "%q is not a counter", l)
		}
		switch string(k) {
		case "usage_usec":
			s.UsageUS, s.HasUsage = x, true
		case "nr_periods":
			s.Periods = x
		case "nr_throttled":
			s.Throttled = x
		case "throttled_usec":
			s.ThrottledUS = x
		case "throttled_time": // v1: ns
			s.ThrottledUS = x / 1000
		}
		return nil
	})
	return s, err
}

// CPUMax parses cgroup v2 cpu.max ("max 100000" or "10000 100000"):
// the quota in µs per period (-1: none) and the period.
func CPUMax(b []byte) (quota int64, period uint64, err error) {
	f := fields(bytes.TrimSpace(b), make([][]byte, 0, 2))
	if len(f) != 2 {
		return 0, 0, perr.Input("cpu.max %q: want QUOTA PERIOD", b)
	}
	p, ok := dec(f[1])
	if !ok || p == 0 {
		return 0, 0, perr.Input("cpu.max period %q", f[1])
	}
	if string(f[0]) == "max" {
		return -1, p, nil
	}
	q, ok := dec(f[0])
	if !ok {
		return 0, 0, perr.Input("cpu.max quota %q", f[0])
	}
	return int64(q), p, nil
}

// CFSQuota reads cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us
// (Documentation/scheduler/sched-bwc.rst): the quota in microseconds per
// period, -1 for no limit (the file's own "-1"), and the period, as CPUMax
// returns cgroup v2's cpu.max.
func CFSQuota(quotaFile, periodFile []byte) (quota int64, period uint64, err error) {
	p, ok := dec(bytes.TrimSpace(periodFile))
	if !ok || p == 0 {
		return 0, 0, perr.Input("cpu.cfs_period_us %q: want a number of microseconds", clip(string(periodFile)))
	}
	q := bytes.TrimSpace(quotaFile)
	if string(q) == "-1" {
		return -1, p, nil
	}
	v, ok := dec(q)
	if !ok || v == 0 || v > 1<<62 {
		return 0, 0, perr.Input("cpu.cfs_quota_us %q: want -1 or a number of microseconds", clip(string(quotaFile)))
	}
	return int64(v), p, nil
}

// IOLimit is one device's limits from io.max (v2) or the
// blkio.throttle.*_device files (v1); 0 means no limit.
type IOLimit struct {
	Major, Minor             uint32
	RBps, WBps, RIOPS, WIOPS uint64
}

// The keys of io.max and io.stat that IOLimit and IOCount keep, in the
// order of their fields.
var (
	ioMaxKeys  = []string{"rbps", "wbps", "riops", "wiops"}
	ioStatKeys = []string{"rbytes", "wbytes", "rios", "wios"}
)

// IOMax parses cgroup v2 io.max: "MAJ:MIN rbps=N wbps=max riops=max wiops=max".
func IOMax(b []byte) ([]IOLimit, error) {
	var out []IOLimit
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, nil)
		if len(f) == 0 {
			return nil
		}
		var lim IOLimit
		var ok bool
		if lim.Major, lim.Minor, ok = majMin(f[0]); !ok {
			return lineErr(n, "device %q", f[0])
		}
		for _, kv := range f[1:] {
			k, v, found := bytes.Cut(kv, []byte("="))
			if !found {
				return lineErr(n, "%q is not KEY=VALUE", kv)
			}
			x := uint64(0)
			if string(v) != "max" {
				if x, ok = dec(v); !ok {
					return lineErr(n, "%q", kv)
				}
			}
			setNamed(k, x, ioMaxKeys, &lim.RBps, &lim.WBps, &lim.RIOPS, &lim.WIOPS)
		}
		out = append(out, lim)
		return nil
	})
	return out, err
}

// BlkioThrottle parses one cgroup v1 blkio.throttle.*_device file
// ("MAJ:MIN VALUE" per line) and sets the field set picks in the limit of
// that device in lims (added when new).
func BlkioThrottle(b []byte, lims []IOLimit, set func(*IOLimit, uint64)) ([]IOLimit, error) {
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, nil)
		if len(f) == 0 {
			return nil
		}
		ma, mi, ok := majMin(f[0])
		v, ok2 := uint64(0), false
		if len(f) == 2 {
			v, ok2 = dec(f[1])
		}
		if !ok || !ok2 {
			return lineErr(n, "want MAJ:MIN VALUE, got %q", l)
		}
		for i := range lims {
			if lims[i].Major == ma && lims[i].Minor == mi {
				set(&lims[i], v)
				return nil
			}
		}
		lims = append(lims, IOLimit{Major: ma, Minor: mi})
		set(&lims[len(lims)-1], v)
		return nil
	})
	return lims, err
}

// IOCount is one device's cumulative I/O of a cgroup.
type IOCount struct {
	Major, Minor               uint32
	RBytes, WBytes, RIOs, WIOs uint64
}

// IOStat parses cgroup v2 io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N".
func IOStat(b []byte) ([]IOCount, error) {
	var out []IOCount
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, nil)
		if len(f) == 0 {
			return nil
		}
		var c IOCount
		var ok bool
		if c.Major, c.Minor, ok = majMin(f[0]); !ok {
			return lineErr(n, "device %q", f[0])
		}
		for _, kv := range f[1:] {
			k, v, found := bytes.Cut(kv, []byte("="))
			x, ok := dec(v)
			if !found || !ok {
				continue // a key of a newer kernel with another form
			}
			setNamed(k, x, ioStatKeys, &c.RBytes, &c.WBytes, &c.RIOs, &c.WIOs)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// BlkioServiced parses cgroup v1 blkio.throttle.io_service_bytes (bytes)
// or blkio.throttle.io_serviced (requests): "MAJ:MIN Read N" lines, and
// a "Total N" line. bytes picks which of IOCount's pairs is filled.
func BlkioServiced(b []byte, counts []IOCount, bytesFile bool) ([]IOCount, error) {
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, nil)
		if len(f) != 3 {
			return nil // "Total N" and blank lines
		}
		ma, mi, ok := majMin(f[0])
		v, ok2 := dec(f[2])
		if !ok || !ok2 {
			return lineErr(n, "want MAJ:MIN OP VALUE, got %q", l)
		}
		i := -1
		for j := range counts {
			if counts[j].Major == ma && counts[j].Minor == mi {
				i = j
			}
		}
		if i < 0 {
			counts = append(counts, IOCount{Major: ma, Minor: mi})
			i = len(counts) - 1
		}
		c := &counts[i]
		switch {
		case string(f[1]) == "Read" && bytesFile:
			c.RBytes = v
		case string(f[1]) == "Write" && bytesFile:
			c.WBytes = v
		case string(f[1]) == "Read":
			c.RIOs = v
		case string(f[1]) == "Write":
			c.WIOs = v
		}
		return nil
	})
	return counts, err
}

func majMin(b []byte) (uint32, uint32, bool) {
	a, c, ok := bytes.Cut(b, []byte(":"))
	if !ok {
		return 0, 0, false
	}
	ma, ok1 := dec(a)
	mi, ok2 := dec(c)
	if !ok1 || !ok2 || ma > 1<<31 || mi > 1<<31 {
		return 0, 0, false
	}
	return uint32(ma), uint32(mi), true
}

// CgroupMounts reads /proc/self/mountinfo for the cgroup hierarchies:
// the cgroup2 mount point (V2, "" when none) and each cgroup v1
// controller's mount point (V1["cpu"], V1["blkio"] …). The first mount
// of each wins.
func CgroupMounts(data []byte) (v2 string, v1 map[string]string) {
	v1 = map[string]string{}
	_ = eachLine(data, func(_ int, l []byte) error {
		f := strings.Fields(string(l))
		for i, fl := range f {
			if fl != "-" || i+3 >= len(f) || len(f) < 5 {
				continue
			}
			mp := unescapeOctal(f[4])
			switch f[i+1] {
			case "cgroup2":
				if v2 == "" {
					v2 = mp
				}
			case "cgroup":
				for _, o := range strings.Split(f[i+3], ",") {
					if _, ok := v1[o]; !ok && o != "rw" && o != "ro" && !strings.HasPrefix(o, "name=") {
						v1[o] = mp
					}
				}
			}
			break
		}
		return nil
	})
	return v2, v1
}
