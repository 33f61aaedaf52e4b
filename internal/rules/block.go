package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Block scheduler and read-ahead: KNOWLEDGE §3.
var blockRules = []rule.Rule{
	{Meta: metaScheduler, Check: checkScheduler},
	{Meta: metaReadAhead, Check: checkReadAhead},
}

func blockSource(d facts.BlockDevice, attr string) string { return "/sys/block/" + d.Name + "/" + attr }

// slowCPU: 32-bit ARM or a single core, where scheduler CPU cost shows.
func slowCPU(h *facts.Host) bool {
	return (strings.HasPrefix(h.Arch, "arm") && h.Arch != "arm64") || h.CPU.Count == 1
}

var metaScheduler = rule.Meta{
	ID: "blk-scheduler", Family: "block", Severity: rule.Warn, Since: "0.1.0",
	Title: "I/O scheduler does not suit the device",
	Doc: "Since Linux 5.0 only the multi-queue schedulers exist: mq-deadline, bfq, kyber and none " +
		"(cfq, deadline and noop were removed). Rotating disks want mq-deadline (deadline on older " +
		"kernels), which sorts and batches seeks; NVMe wants none, as the device queues better than " +
		"software can; bfq costs CPU that a slow ARM NAS does not have. md and dm devices have no " +
		"scheduler of their own: set it on their member disks. In a virtual machine (virtio, Xen, " +
		"VMware, Hyper-V disks) the host queues and sorts the real disks' I/O and the guest's " +
		"rotational flag describes nothing it can seek on: none is fine there and nastune says nothing.",
	Refs: []string{refSwitchSch, refQueueSys, "https://docs.kernel.org/block/deadline-iosched.html"},
}

func schedulerWant(h *facts.Host, d facts.BlockDevice) (want, why string) {
	rot := *d.Rotational
	legacy := slices.Contains(d.Schedulers, "cfq") || slices.Contains(d.Schedulers, "noop")
	cur := d.Scheduler
	switch {
	case legacy && (cur == "cfq" || (cur == "noop" && rot)):
		return "deadline", fmt.Sprintf("On this pre-blk-mq kernel (%s) deadline serves a file server's parallel "+
			"readers with less seek thrash and CPU than %s.", h.Kernel.Release, cur)
	case legacy:
		return "", ""
	case rot && (cur == "none" || cur == "kyber") && d.Virtual():
		// The host schedules the real disks; the guest's rotational flag
		// describes nothing it can seek on.
		return "", ""
	case rot && (cur == "none" || cur == "kyber"):
		return "mq-deadline", fmt.Sprintf("%s does not sort requests by position, so a rotating disk seeks back "+
			"and forth between clients; mq-deadline batches them.", cur)
	case !rot && d.Transport == "nvme" && cur != "none":
		return "none", fmt.Sprintf("An NVMe drive has deep hardware queues; %s only adds CPU time and lock "+
			"contention per request.", cur)
	case cur == "bfq" && slowCPU(h):
		return "mq-deadline", fmt.Sprintf("bfq spends CPU on fairness per request; on this %s with %s "+
			"that CPU is what limits file serving.", h.Arch, units.Count(h.CPU.Count, "core", "cores"))
	}
	return "", ""
}

func checkScheduler(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, d := range h.Block {
		if d.Kind != "disk" || len(d.Schedulers) == 0 || d.Rotational == nil || d.ZFSMember() {
			continue // ZFS queues and sorts I/O itself; none is right for its disks
		}
		want, why := schedulerWant(h, d)
		if want == "" || !slices.Contains(d.Schedulers, want) {
			continue
		}
		sev := rule.Warn
		if d.Scheduler == "bfq" {
			sev = rule.Info // a cost to measure, not a mismatch
		}
		if members := holderNames(d); members != "" {
			why += " It is a member of " + members + ", whose speed depends on it."
		}
		f := metaScheduler.New(d.Name, why,
			rule.Ev(blockSource(d, "queue/scheduler"), strings.Join(markActive(d), " ")),
			rule.Ev(blockSource(d, "queue/rotational"), boolDigit(*d.Rotational)))
		f.Device = d.Name
		f.Severity = sev
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: blockSource(d, "queue/scheduler"),
			Current: d.Scheduler, Value: want, Basis: schedulerBasis(d)}
		out = append(out, f)
	}
	return out
}

func schedulerBasis(d facts.BlockDevice) string {
	kind := "rotating disk"
	if !*d.Rotational {
		kind = "solid-state"
		if d.Transport == "nvme" {
			kind = "NVMe"
		}
	}
	return kind + "; offered: " + strings.Join(d.Schedulers, ", ")
}

func markActive(d facts.BlockDevice) []string {
	out := make([]string, len(d.Schedulers))
	for i, s := range d.Schedulers {
		if s == d.Scheduler {
			s = "[" + s + "]"
		}
		out[i] = s
	}
	return out
}

func holderNames(d facts.BlockDevice) string { return strings.Join(d.Holders, ", ") }

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

var metaReadAhead = rule.Meta{
	ID: "blk-read-ahead", Family: "block", Severity: rule.Warn, Since: "0.1.0",
	Title: "Read-ahead does not fit the device or the memory",
	Doc: "queue/read_ahead_kb (default 128) is how far the kernel reads past a sequential reader. " +
		"An array wants at least two full stripes (2 × optimal_io_size) so sequential reads keep " +
		"every member busy; a box with 128-256 MiB of RAM cannot afford more than 512-1024 KiB per " +
		"device, as read-ahead pages push out useful cache. Note hdparm -a and blockdev --setra count " +
		"512-byte sectors: -a 1024 is 512 KiB. Read-ahead is the easiest knob to prove with a bench.",
	Refs: []string{refQueueSys, "https://man7.org/linux/man-pages/man8/blockdev.8.html"},
}

// ReadAheadCapKB is the most read-ahead nastune recommends per device on a
// machine with ramBytes of memory (0: no cap).
func ReadAheadCapKB(ramBytes uint64) int {
	switch {
	case ramBytes == 0:
		return 0
	case ramBytes <= 160*mib:
		return 512
	case ramBytes <= 320*mib:
		return 1024
	}
	return 0
}

func checkReadAhead(in rule.Input) []rule.Finding {
	h := in.Host
	limit := ReadAheadCapKB(h.Memory.TotalBytes)
	var out []rule.Finding
	for _, d := range h.Block {
		if d.ReadAheadKB == nil || (d.Kind != "disk" && d.Kind != "md" && d.Kind != "dm") {
			continue
		}
		cur := *d.ReadAheadKB
		ev := []rule.Evidence{rule.Ev(blockSource(d, "queue/read_ahead_kb"), itoa(int64(cur)))}
		var want int
		var why, basis string
		sev := rule.Info
		isArray := d.Kind != "disk" && d.OptIOSize > 0
		switch {
		case limit > 0 && cur > limit:
			want, sev = limit, rule.Warn
			if isArray {
				want = min(limit, max(128, 2*d.OptIOSize/1024))
			}
			why = fmt.Sprintf("%d KiB of read-ahead per stream on a machine with %s evicts cached data "+
				"faster than it helps.", cur, humanBytes(h.Memory.TotalBytes))
			basis = fmt.Sprintf("cap for %s of RAM", humanBytes(h.Memory.TotalBytes))
			ev = append(ev, memEvidence(h))
		case isArray && cur < max(128, 2*d.OptIOSize/1024) && (limit == 0 || cur < limit):
			want = max(128, 2*d.OptIOSize/1024)
			if limit > 0 {
				want = min(want, limit)
			}
			why = fmt.Sprintf("A full stripe of %s is %d KiB; with %d KiB of read-ahead a sequential reader "+
				"keeps only some members busy.", d.Name, d.OptIOSize/1024, cur)
			basis = fmt.Sprintf("max(128, 2 × optimal_io_size %d B ÷ 1024)", d.OptIOSize)
			if limit > 0 {
				basis += fmt.Sprintf(", capped at %d KiB for this RAM", limit)
			}
			ev = append(ev, rule.Ev(blockSource(d, "queue/optimal_io_size"), itoa(int64(d.OptIOSize))))
		case d.Kind == "disk" && d.Rotational != nil && *d.Rotational && cur < 128:
			want = 128
			why = fmt.Sprintf("%d KiB of read-ahead on a rotating disk turns sequential reads into many small "+
				"requests with a seek's worth of delay between them.", cur)
			basis = "kernel default"
		default:
			continue
		}
		f := metaReadAhead.New(d.Name, why, ev...)
		f.Device = d.Name
		f.Severity = sev
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: blockSource(d, "queue/read_ahead_kb"),
			Current: itoa(int64(cur)), Value: itoa(int64(want)), Basis: basis}
		out = append(out, f)
	}
	return out
}
