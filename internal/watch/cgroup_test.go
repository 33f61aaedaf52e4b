package watch

import (
	"strings"
	"testing"
)

// A cgroup at its CPU quota or I/O limit is named even when no CPU or
// device looks busy; one below them is not.
func TestCgroupBottlenecks(t *testing.T) {
	mk := func(thr, used float64, io CgroupIO) []Sample {
		c := CgroupSample{Path: "/sys/fs/cgroup/smb", Version: 2, CPUQuotaCores: 0.1, ThrottledPct: thr, ThrottledMSPerS: 400, CPUUsedCores: used, IO: []CgroupIO{io}}
		return []Sample{{Cgroups: []CgroupSample{c}}, {Cgroups: []CgroupSample{c}}}
	}
	got := Bottlenecks(mk(90, 0.1, CgroupIO{Device: "loop3", ReadBps: 4e6, LimitRBps: 4194304, Source: "io.max"}))
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	var cpu, disk *Bottleneck
	for i := range got {
		switch got[i].Kind {
		case "cpu":
			cpu = &got[i]
		case "disk":
			disk = &got[i]
		}
	}
	if cpu == nil || cpu.Cgroup != "/sys/fs/cgroup/smb" || !strings.Contains(cpu.Evidence[0], "cpu.max: quota 0.10 cores") || !strings.Contains(cpu.Why, "90%") {
		t.Errorf("cpu: %+v", cpu)
	}
	if disk == nil || disk.Subject != "loop3" || disk.Cgroup != "/sys/fs/cgroup/smb" || disk.Limit != 4194304 || !strings.Contains(disk.Evidence[0], "io.max") {
		t.Errorf("disk: %+v", disk)
	}
	if got := Bottlenecks(mk(10, 0.05, CgroupIO{Device: "loop3", ReadBps: 1e6, LimitRBps: 4194304})); len(got) != 0 {
		t.Errorf("below the limits: %+v", got)
	}
}
