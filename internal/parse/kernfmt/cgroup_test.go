package kernfmt

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
)

func TestCgroupFiles(t *testing.T) {
	// /proc/PID/cgroup of a hybrid (v1 + v2) host.
	lines, err := ProcCgroup([]byte("9:name=systemd:/\n4:memory:/a/b\n1:cpu,cpuacct:/nastune\n0::/\n"))
	if err != nil || len(lines) != 4 || !reflect.DeepEqual(lines[2], CgroupLine{ID: 1, Controllers: []string{"cpu", "cpuacct"}, Path: "/nastune"}) ||
		lines[3].ID != 0 || len(lines[3].Controllers) != 0 || lines[3].Path != "/" {
		t.Errorf("ProcCgroup: %+v %v", lines, err)
	}
	if _, err := ProcCgroup([]byte("x:cpu\n")); err == nil {
		t.Error("a broken line was accepted")
	}
	for _, c := range []struct {
		in   string
		want CPUStat
	}{
		{"usage_usec 500\nuser_usec 1\nnr_periods 10\nnr_throttled 4\nthrottled_usec 3000\n", CPUStat{UsageUS: 500, HasUsage: true, Periods: 10, Throttled: 4, ThrottledUS: 3000}},
		{"nr_periods 10\nnr_throttled 4\nthrottled_time 3000000\nnr_bursts 0\n", CPUStat{Periods: 10, Throttled: 4, ThrottledUS: 3000}},
	} {
		got, err := ParseCPUStat([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("ParseCPUStat(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if _, err := ParseCPUStat([]byte("nr_periods x\n")); err == nil {
		t.Error("cpu.stat with a non-number was accepted")
	}
	for _, c := range []struct {
		in  string
		q   int64
		p   uint64
		bad bool
	}{{"max 100000\n", -1, 100000, false}, {"10000 100000\n", 10000, 100000, false}, {"10000\n", 0, 0, true}, {"10 0", 0, 0, true}} {
		q, p, err := CPUMax([]byte(c.in))
		if (err != nil) != c.bad || q != c.q || p != c.p {
			t.Errorf("CPUMax(%q) = %d %d %v", c.in, q, p, err)
		}
	}
	lims, err := IOMax([]byte("7:3 rbps=4194304 wbps=max riops=max wiops=100\n"))
	if err != nil || !reflect.DeepEqual(lims, []IOLimit{{Major: 7, Minor: 3, RBps: 4194304, WIOPS: 100}}) {
		t.Errorf("IOMax: %+v %v", lims, err)
	}
	lims, err = BlkioThrottle([]byte("7:3 4194304\n8:0 100\n"), nil, func(l *IOLimit, v uint64) { l.RBps = v })
	if err == nil {
		lims, err = BlkioThrottle([]byte("7:3 200\n"), lims, func(l *IOLimit, v uint64) { l.WIOPS = v })
	}
	if err != nil || !reflect.DeepEqual(lims, []IOLimit{{Major: 7, Minor: 3, RBps: 4194304, WIOPS: 200}, {Major: 8, Minor: 0, RBps: 100}}) {
		t.Errorf("BlkioThrottle: %+v %v", lims, err)
	}
	st, err := IOStat([]byte("7:3 rbytes=1048576 wbytes=2 rios=16 wios=1 dbytes=0 dios=0\n"))
	if err != nil || !reflect.DeepEqual(st, []IOCount{{Major: 7, Minor: 3, RBytes: 1048576, WBytes: 2, RIOs: 16, WIOs: 1}}) {
		t.Errorf("IOStat: %+v %v", st, err)
	}
	st, err = BlkioServiced([]byte("7:3 Read 1048576\n7:3 Write 2\n7:3 Sync 1\n7:3 Async 1\n7:3 Discard 0\n7:3 Total 1048578\nTotal 1048578\n"), nil, true)
	if err == nil {
		st, err = BlkioServiced([]byte("7:3 Read 16\n7:3 Write 1\nTotal 17\n"), st, false)
	}
	if err != nil || !reflect.DeepEqual(st, []IOCount{{Major: 7, Minor: 3, RBytes: 1048576, WBytes: 2, RIOs: 16, WIOs: 1}}) {
		t.Errorf("BlkioServiced: %+v %v", st, err)
	}
}

func TestCgroupMounts(t *testing.T) {
	mi := "30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n" +
		"31 25 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"32 25 0:28 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n" +
		"33 25 0:29 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	v2, v1 := CgroupMounts([]byte(mi))
	if v2 != "/sys/fs/cgroup/unified" || v1["cpu"] != "/sys/fs/cgroup/cpu" || v1["blkio"] != "/sys/fs/cgroup/blkio" || v1["xattr"] == "" && len(v1) != 3 {
		t.Errorf("CgroupMounts: %q %v", v2, v1)
	}
}

// TestCgroupErrorsAreSyntax: the cgroup parsers' errors wrap
// perr.ErrSyntax like every other parser's here (they used to be bare
// fmt.Errorf values).
func TestCgroupErrorsAreSyntax(t *testing.T) {
	for name, parse := range map[string]func() error{
		"ProcCgroup":    func() error { _, err := ProcCgroup([]byte("x\n")); return err },
		"ParseCPUStat":  func() error { _, err := ParseCPUStat([]byte("usage_usec x\n")); return err },
		"CPUMax":        func() error { _, _, err := CPUMax([]byte("max\n")); return err },
		"IOMax":         func() error { _, err := IOMax([]byte("8:0 rbps\n")); return err },
		"IOStat":        func() error { _, err := IOStat([]byte("x rbytes=1\n")); return err },
		"BlkioThrottle": func() error { _, err := BlkioThrottle([]byte("8:0\n"), nil, func(*IOLimit, uint64) {}); return err },
		"BlkioServiced": func() error { _, err := BlkioServiced([]byte("8:0 Read x\n"), nil, false); return err },
	} {
		err := parse()
		if err == nil || !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("%s: err = %v, want one wrapping perr.ErrSyntax", name, err)
		}
	}
}
