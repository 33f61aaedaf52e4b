package watch

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// Followed processes and their cgroups: a caller that knows which
// processes do the work (bench's server: smbd, nfsd) has their threads
// read every interval whatever their CPU share, and the CPU and I/O
// limits of their cgroups read with their counters. A limit is that
// layer's limit even when the CPU or the device looks idle: a cgroup at
// its cpu.max quota is throttled while cores sit idle, and a bio held by
// io.max never reaches the device's queue.

type cgDir struct {
	dir  string
	leaf bool // the process's own cgroup, not an ancestor
}

// cgRaw is one reading of one cgroup folder.
type cgRaw struct {
	version   int
	quota     float64 // cores
	cpu       kernfmt.CPUStat
	hasCPU    bool
	limits    []kernfmt.IOLimit
	counts    []kernfmt.IOCount
	limitFile string
}

// Follow makes every later reading include the threads of the processes
// match accepts (by pid and process name) and their cgroups' CPU and I/O
// counters and limits, with those of the ancestor cgroups that set a
// limit. nil stops following.
func (s *Sampler) Follow(match func(pid int, comm string) bool) {
	s.follow = match
	if s.cgPaths == nil {
		s.cgPaths = map[int][]cgDir{}
		if b, err := s.root.ReadFile("/proc/self/mountinfo"); err == nil {
			s.cgV2, s.cgV1 = kernfmt.CgroupMounts(b)
		} else {
			s.skip("/proc/self/mountinfo", err)
		}
	}
}

// cgroupDirs returns the cgroup folders of pid: its own in each hierarchy
// with a cpu or io/blkio controller, and their ancestors below the mount.
func (s *Sampler) cgroupDirs(pid int) []cgDir {
	if d, ok := s.cgPaths[pid]; ok {
		return d
	}
	var out []cgDir
	b, err := s.root.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err == nil {
		lines, _ := kernfmt.ProcCgroup(b)
		for _, l := range lines {
			var mnt string
			switch {
			case l.ID == 0 && len(l.Controllers) == 0:
				mnt = s.cgV2
			default:
				for _, c := range l.Controllers {
					if c == "cpu" || c == "blkio" {
						mnt = s.cgV1[c]
					}
				}
			}
			if mnt == "" || strings.Contains(l.Path, "..") {
				continue
			}
			for p := path.Clean(l.Path); p != "/" && p != "."; p = path.Dir(p) {
				out = append(out, cgDir{mnt + p, p == path.Clean(l.Path)})
			}
		}
	}
	s.cgPaths[pid] = out
	return out
}

// readCgroups reads the cgroups of the followed processes into r.cgroups.
func (s *Sampler) readCgroups(r *raw) {
	clear(r.cgroups)
	if s.follow == nil {
		return
	}
	// Forget the processes no longer followed (an smbd per client
	// connection comes and goes; a pid used again is looked up anew).
	for pid := range s.cgPaths {
		if !r.followed[pid] {
			delete(s.cgPaths, pid)
		}
	}
	for pid := range r.followed {
		for _, d := range s.cgroupDirs(pid) {
			if _, ok := r.cgroups[d.dir]; ok {
				continue
			}
			c := s.readCgroup(d.dir)
			// The process's own cgroup always; an ancestor only when it
			// sets a limit.
			if d.leaf || c.quota > 0 || len(c.limits) > 0 {
				r.cgroups[d.dir] = c
			}
		}
	}
}

func (s *Sampler) readCgroup(dir string) cgRaw {
	c := cgRaw{version: 1}
	if s.cgV2 != "" && strings.HasPrefix(dir, s.cgV2+"/") {
		c.version = 2
	}
	// Counter and limit files: read into the sampler's buffer, which
	// each parser below is done with before the next read (they keep
	// numbers, not bytes).
	q := func(name string) []byte {
		b, err := s.root.ReadInto(dir+"/"+name, s.buf)
		s.buf = b[:0]
		if err != nil {
			return nil
		}
		return b
	}
	if b := q("cpu.stat"); b != nil {
		if st, err := kernfmt.ParseCPUStat(b); err == nil {
			c.cpu, c.hasCPU = st, true
		} else {
			s.skip(dir+"/cpu.stat", err)
		}
	}
	if c.version == 2 {
		if b := q("cpu.max"); b != nil {
			if qu, p, err := kernfmt.CPUMax(b); err == nil && qu > 0 {
				c.quota = float64(qu) / float64(p)
			}
		}
		if b := q("io.max"); b != nil {
			c.limits, _ = kernfmt.IOMax(b)
			c.limitFile = "io.max"
		}
		if b := q("io.stat"); b != nil {
			c.counts, _ = kernfmt.IOStat(b)
		}
		return c
	}
	if b := q("cpu.cfs_quota_us"); b != nil {
		var qb [24]byte
		quota := append(qb[:0], b...) // q reuses the buffer for the period
		if qu, p, err := kernfmt.CFSQuota(quota, q("cpu.cfs_period_us")); err == nil && qu > 0 {
			c.quota = float64(qu) / float64(p)
		}
	}
	for _, f := range []struct {
		name string
		set  func(*kernfmt.IOLimit, uint64)
	}{
		{"blkio.throttle.read_bps_device", func(l *kernfmt.IOLimit, v uint64) { l.RBps = v }},
		{"blkio.throttle.write_bps_device", func(l *kernfmt.IOLimit, v uint64) { l.WBps = v }},
		{"blkio.throttle.read_iops_device", func(l *kernfmt.IOLimit, v uint64) { l.RIOPS = v }},
		{"blkio.throttle.write_iops_device", func(l *kernfmt.IOLimit, v uint64) { l.WIOPS = v }},
	} {
		if b := q(f.name); b != nil {
			c.limits, _ = kernfmt.BlkioThrottle(b, c.limits, f.set)
			c.limitFile = "blkio.throttle.*_device"
		}
	}
	if b := q("blkio.throttle.io_service_bytes"); b != nil {
		c.counts, _ = kernfmt.BlkioServiced(b, c.counts, true)
	}
	if b := q("blkio.throttle.io_serviced"); b != nil {
		c.counts, _ = kernfmt.BlkioServiced(b, c.counts, false)
	}
	return c
}

// devName names a block device by major:minor (blockdev.ByDev), the
// number itself when sysfs does not know it.
func (s *Sampler) devName(ma, mi uint32) string {
	k := fmt.Sprintf("%d:%d", ma, mi)
	if n, ok := s.devNames[k]; ok {
		return n
	}
	n := k
	if d, err := blockdev.New(s.root).ByDev(ma, mi); err == nil {
		n = d.Name
	}
	if s.devNames == nil {
		s.devNames = map[string]string{}
	}
	s.devNames[k] = n
	return n
}

// cgroupDelta turns two readings of the followed cgroups into samples.
func (s *Sampler) cgroupDelta(p, c *raw, dt float64) []CgroupSample {
	var out []CgroupSample
	for dir, b := range c.cgroups {
		a, ok := p.cgroups[dir]
		if !ok {
			continue
		}
		cs := CgroupSample{Path: dir, Version: b.version, CPUQuotaCores: round(b.quota)}
		if b.hasCPU && a.hasCPU {
			if per := sub(b.cpu.Periods, a.cpu.Periods); per > 0 {
				cs.ThrottledPct = pct(sub(b.cpu.Throttled, a.cpu.Throttled), per)
			}
			cs.ThrottledMSPerS = round(sub(b.cpu.ThrottledUS, a.cpu.ThrottledUS) / 1000 / dt)
			if b.cpu.HasUsage {
				cs.CPUUsedCores = round(sub(b.cpu.UsageUS, a.cpu.UsageUS) / 1e6 / dt)
			}
		}
		for _, n := range b.counts {
			var o kernfmt.IOCount
			for _, x := range a.counts {
				if x.Major == n.Major && x.Minor == n.Minor {
					o = x
				}
			}
			io := CgroupIO{Device: s.devName(n.Major, n.Minor), Source: b.limitFile,
				ReadBps: round(sub(n.RBytes, o.RBytes) / dt), WriteBps: round(sub(n.WBytes, o.WBytes) / dt),
				ReadIOPS: round(sub(n.RIOs, o.RIOs) / dt), WriteIOPS: round(sub(n.WIOs, o.WIOs) / dt)}
			for _, l := range b.limits {
				if l.Major == n.Major && l.Minor == n.Minor {
					io.LimitRBps, io.LimitWBps, io.LimitRIOPS, io.LimitWIOPS = float64(l.RBps), float64(l.WBps), float64(l.RIOPS), float64(l.WIOPS)
				}
			}
			if io.ReadBps+io.WriteBps+io.ReadIOPS+io.WriteIOPS > 0 || io.LimitRBps+io.LimitWBps+io.LimitRIOPS+io.LimitWIOPS > 0 {
				cs.IO = append(cs.IO, io)
			}
		}
		for _, l := range b.limits { // a limit on a device without traffic yet
			found := false
			for _, io := range cs.IO {
				found = found || io.Device == s.devName(l.Major, l.Minor)
			}
			if !found {
				cs.IO = append(cs.IO, CgroupIO{Device: s.devName(l.Major, l.Minor), Source: b.limitFile,
					LimitRBps: float64(l.RBps), LimitWBps: float64(l.WBps), LimitRIOPS: float64(l.RIOPS), LimitWIOPS: float64(l.WIOPS)})
			}
		}
		sort.Slice(cs.IO, func(i, j int) bool { return cs.IO[i].Device < cs.IO[j].Device })
		out = append(out, cs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Thresholds of the cgroup verdicts.
const (
	cgroupThrottled = 0.50 // share of the periods with work in which the quota ran out
	cgroupQuotaUsed = 0.85 // CPU use of the quota (v2)
	cgroupIOLimit   = 0.85 // of an io.max / blkio.throttle rate
)

// cgroupBottlenecks names the cgroups whose CPU quota or I/O limit held
// their processes back: limits a host sets (a container, a systemd
// CPUQuota= or IOReadBandwidthMax=) that leave the CPUs and disks idle.
func cgroupBottlenecks(samples []Sample, n float64) []Bottleneck {
	type ioAcc struct {
		io           CgroupIO
		r, w, ri, wi float64
	}
	type acc struct {
		last          CgroupSample
		thr, ms, used float64
		io            map[string]*ioAcc
	}
	m := map[string]*acc{}
	for _, s := range samples {
		for _, c := range s.Cgroups {
			a := m[c.Path]
			if a == nil {
				a = &acc{io: map[string]*ioAcc{}}
				m[c.Path] = a
			}
			a.last = c
			a.thr += c.ThrottledPct / 100
			a.ms += c.ThrottledMSPerS
			a.used += c.CPUUsedCores
			for _, io := range c.IO {
				x := a.io[io.Device]
				if x == nil {
					x = &ioAcc{}
					a.io[io.Device] = x
				}
				x.io = io
				x.r += io.ReadBps
				x.w += io.WriteBps
				x.ri += io.ReadIOPS
				x.wi += io.WriteIOPS
			}
		}
	}
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []Bottleneck
	for _, p := range paths {
		a := m[p]
		thr, ms, used := a.thr/n, a.ms/n, a.used/n
		q := a.last.CPUQuotaCores
		useShare := 0.0
		if q > 0 {
			useShare = used / q
		}
		if q > 0 && (thr >= cgroupThrottled || useShare >= cgroupQuotaUsed) {
			u := max(thr, useShare)
			file := "cpu.max"
			if a.last.Version == 1 {
				file = "cpu.cfs_quota_us"
			}
			ev := []string{fmt.Sprintf("%s/%s: quota %.2f cores", p, file, q),
				fmt.Sprintf("%s/cpu.stat: throttled in %.0f%% of the periods with work, %.0f ms/s throttled", p, 100*thr, ms)}
			if used > 0 {
				ev = append(ev, fmt.Sprintf("%s/cpu.stat: used %.2f cores (%.0f%% of the quota)", p, used, 100*useShare))
			}
			out = append(out, Bottleneck{Kind: "cpu", Subject: "cgroup " + p + " CPU quota", Cgroup: p, Utilization: r2(u), Rate: r2(used), Limit: q, Unit: "cores",
				Score: 0.9 + u/10, Evidence: ev,
				Why:  fmt.Sprintf("the cgroup %s may use %.2f cores and ran out of its quota in %.0f%% of the periods: its tasks wait for the next period while the CPUs can be idle", p, q, 100*thr),
				Next: "raise or remove the CPU quota of the service or container (systemd CPUQuota=, docker --cpus, cpu.max)"})
		}
		devs := make([]string, 0, len(a.io))
		for d := range a.io {
			devs = append(devs, d)
		}
		sort.Strings(devs)
		for _, d := range devs {
			x := a.io[d]
			l := x.io
			for _, k := range []struct {
				what        string
				rate, limit float64
				unit        string
			}{
				{"read bytes/s", x.r / n, l.LimitRBps, "bytes/s"}, {"write bytes/s", x.w / n, l.LimitWBps, "bytes/s"},
				{"read IOPS", x.ri / n, l.LimitRIOPS, "IOPS"}, {"write IOPS", x.wi / n, l.LimitWIOPS, "IOPS"},
			} {
				if k.limit <= 0 || k.rate/k.limit < cgroupIOLimit {
					continue
				}
				u := k.rate / k.limit
				out = append(out, Bottleneck{Kind: "disk", Subject: d, Cgroup: p, Utilization: r2(u), Rate: r2(k.rate), Limit: k.limit, Unit: k.unit,
					Score: 0.9 + u/10,
					Evidence: []string{fmt.Sprintf("%s/%s: %s limited to %.0f %s on %s", p, l.Source, k.what, k.limit, k.unit, d),
						fmt.Sprintf("%s: the cgroup moved %.0f %s on %s (%.0f%% of the limit)", p, k.rate, k.unit, d, 100*u)},
					Why: fmt.Sprintf("the cgroup %s is limited to %.0f %s on %s and runs at %.0f%% of it: the throttle holds its I/O before the device, which can look idle",
						p, k.limit, k.what, d, 100*u),
					Next: "raise or remove the I/O limit of the service or container (systemd IOReadBandwidthMax=/IOWriteBandwidthMax=, docker --device-read-bps, io.max)"})
			}
		}
	}
	return out
}
