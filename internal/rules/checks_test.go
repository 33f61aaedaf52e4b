package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

func ip(v int) *int   { return &v }
func bp(v bool) *bool { return &v }

func lanHost(ram uint64, rmem, wmem string) *facts.Host {
	return &facts.Host{
		Memory:     facts.Memory{TotalBytes: ram},
		Sysctls:    facts.Sysctls{"net.ipv4.tcp_rmem": rmem, "net.ipv4.tcp_wmem": wmem},
		Interfaces: []facts.Interface{{Name: "eth0", Physical: true, Type: 1, Carrier: bp(true), SpeedMbps: ip(1000)}},
	}
}

func kernHost(h *facts.Host, major, minor int) *facts.Host {
	h.Kernel = facts.Kernel{Release: "test", Major: major, Minor: minor}
	return h
}

// On a LAN the defaults already cover 2×BDP: nastune recommends nothing
// (KNOWLEDGE §1). A WAN RTT or a 1 MiB ceiling on 10GbE changes that.
func TestTCPBuffers(t *testing.T) {
	tests := []struct {
		name string
		host *facts.Host
		rtt  time.Duration
		want map[string]string // finding → recommended value
	}{
		{"LAN defaults: nothing", lanHost(4<<30, "4096 131072 6291456", "4096 16384 4194304"), 0, map[string]string{}},
		{"WAN 40 ms on gigabit", lanHost(4<<30, "4096 131072 6291456", "4096 16384 4194304"), 40 * time.Millisecond,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 10027008", "net-tcp-buffers-small net.ipv4.tcp_wmem": "4096 16384 10027008"}},
		{"WAN on 128 MiB: capped at RAM/32", lanHost(128<<20, "4096 87380 1048576", "4096 16384 1048576"), 40 * time.Millisecond,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 87380 4194304", "net-tcp-buffers-small net.ipv4.tcp_wmem": "4096 16384 4194304"}},
		{"16 MiB on 128 MiB", lanHost(128<<20, "4096 87380 16777216", "4096 16384 4194304"), 0,
			map[string]string{"net-tcp-buffers-ram net.ipv4.tcp_rmem": "4096 87380 4194304"}},
		// Issue 26: a guide capped tcp_rmem at 64 KiB. On the LAN 2×BDP is
		// only ~122 KiB, but the fix restores the kernel's default ceiling
		// (6 MiB on 5.10 with 4 GiB), never another value below it; nor is
		// the guide's initial size (87380, the pre-4.20 default) carried
		// into the line nastune writes: 5.10's is 131072.
		{"64 KiB cap on LAN restores the default", kernHost(lanHost(4<<30, "4096 87380 65536", "4096 16384 4194304"), 5, 10), 0,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 6291456"}},
		{"64 KiB cap on 128 MiB restores RAM/128", kernHost(lanHost(128<<20, "4096 87380 65536", "4096 16384 1048576"), 5, 10), 0,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 1048576"}},
		// 20 ms: 2×BDP (5 MB) is below the 6 MiB default: the default wins.
		{"64 KiB cap at 20 ms", kernHost(lanHost(4<<30, "4096 87380 65536", "4096 16384 4194304"), 5, 10), 20 * time.Millisecond,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 6291456", "net-tcp-buffers-small net.ipv4.tcp_wmem": "4096 16384 5046272"}},
		// 40 ms: 2×BDP (10 MB) beats the default.
		{"64 KiB cap at 40 ms", kernHost(lanHost(4<<30, "4096 87380 65536", "4096 16384 4194304"), 5, 10), 40 * time.Millisecond,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 10027008", "net-tcp-buffers-small net.ipv4.tcp_wmem": "4096 16384 10027008"}},
		// 6.18 with 24 GiB: the default is 32 MiB; a 16 MiB ceiling copied
		// from a guide is below it and is restored.
		// Issue 26: a guide's "4096 4096 16777216": the ceiling is fine,
		// the initial receive size is below every default a kernel has
		// shipped: restored to 6.1's 131072, the ceiling kept. wmem[1] is
		// expanded at connection setup and not judged; before 4.20
		// tcp_fixup_rcvbuf raised rmem[1] too.
		{"4096 4096 16 MiB on 6.1", kernHost(lanHost(8<<30, "4096 4096 16777216", "4096 4096 16777216"), 6, 1), 0,
			map[string]string{"net-tcp-initial-small net.ipv4.tcp_rmem": "4096 131072 16777216"}},
		{"4096 4096 16 MiB on 4.19", kernHost(lanHost(8<<30, "4096 4096 16777216", "4096 4096 16777216"), 4, 19), 0, map[string]string{}},
		{"old default 87380 on 6.1: not judged", kernHost(lanHost(8<<30, "4096 87380 16777216", "4096 16384 16777216"), 6, 1), 0, map[string]string{}},
		{"16 MiB guide on 6.18", kernHost(lanHost(24<<30, "4096 87380 16777216", "4096 65536 16777216"), 6, 18), 0,
			map[string]string{"net-tcp-buffers-small net.ipv4.tcp_rmem": "4096 131072 33554432"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, r := range netstackRules {
				for _, f := range r.Check(rule.Input{Host: tt.host, RTT: tt.rtt}) {
					got[f.ID+" "+f.Subject] = f.Recommendation.Value
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// The scheduler depends on the kernel generation and the device class.
func TestScheduler(t *testing.T) {
	disk := func(sched string, all []string, rot bool, transport string) facts.BlockDevice {
		return facts.BlockDevice{Name: "sda", Kind: "disk", Scheduler: sched, Schedulers: all, Rotational: bp(rot), Transport: transport}
	}
	mq := []string{"mq-deadline", "kyber", "bfq", "none"}
	tests := []struct {
		name string
		arch string
		d    facts.BlockDevice
		want string
	}{
		{"4.2 cfq on HDD → deadline", "x86_64", disk("cfq", []string{"noop", "deadline", "cfq"}, true, "sata"), "deadline"},
		{"legacy deadline on HDD: fine", "x86_64", disk("deadline", []string{"noop", "deadline", "cfq"}, true, "sata"), ""},
		{"none on HDD → mq-deadline", "x86_64", disk("none", mq, true, "sata"), "mq-deadline"},
		{"kyber on HDD → mq-deadline", "x86_64", disk("kyber", mq, true, "sata"), "mq-deadline"},
		{"mq-deadline on NVMe → none", "x86_64", disk("mq-deadline", mq, false, "nvme"), "none"},
		{"none on SATA SSD: fine", "x86_64", disk("none", mq, false, "sata"), ""},
		{"bfq on HDD x86: fine", "x86_64", disk("bfq", mq, true, "sata"), ""},
		{"bfq on ARM → mq-deadline", "armv7l", disk("bfq", mq, true, "usb"), "mq-deadline"},
		{"wanted scheduler not offered", "x86_64", disk("none", []string{"none", "kyber"}, true, "sata"), ""},
		{"ZFS member keeps none", "x86_64", facts.BlockDevice{Name: "sdb", Kind: "disk", Scheduler: "none", Schedulers: mq, Rotational: bp(true),
			Partitions: []facts.Partition{{Name: "sdb1", FSType: "zfs_member"}}}, ""},
	}
	for _, tt := range tests {
		h := &facts.Host{Arch: tt.arch, CPU: facts.CPU{Count: 2}, Block: []facts.BlockDevice{tt.d}}
		fs := checkScheduler(rule.Input{Host: h})
		got := ""
		if len(fs) == 1 {
			got = fs[0].Recommendation.Value
		}
		if got != tt.want || len(fs) > 1 {
			t.Errorf("%s: got %q (%d findings), want %q", tt.name, got, len(fs), tt.want)
		}
	}
}

func TestReadAheadArithmetic(t *testing.T) {
	md := facts.BlockDevice{Name: "md0", Kind: "md", ReadAheadKB: ip(128), OptIOSize: 7 * 512 << 10}
	for _, tt := range []struct {
		ram  uint64
		want string
	}{{4 << 30, "7168"}, {256 << 20, "1024"}, {128 << 20, "512"}} {
		fs := checkReadAhead(rule.Input{Host: &facts.Host{Memory: facts.Memory{TotalBytes: tt.ram}, Block: []facts.BlockDevice{md}}})
		if len(fs) != 1 || fs[0].Recommendation.Value != tt.want {
			t.Errorf("RAM %d: got %+v, want %s", tt.ram, fs, tt.want)
		}
	}
}

func TestMinFreeAuto(t *testing.T) {
	// sqrt(124928 × 16) = 1413 kB; clamps 128 … 65536 (before 5.7) / 262144.
	if got := AutoMinFreeKB(124928<<10, facts.Kernel{Major: 4, Minor: 19}); got != 1413 {
		t.Errorf("got %d", got)
	}
	if got := AutoMinFreeKB(1<<50, facts.Kernel{Major: 4, Minor: 19}); got != 65536 {
		t.Errorf("old clamp: %d", got)
	}
	if got := AutoMinFreeKB(1<<50, facts.Kernel{Major: 6, Minor: 1}); got != 262144 {
		t.Errorf("new clamp: %d", got)
	}
	if got := AutoMinFreeKB(1<<10, facts.Kernel{Major: 6, Minor: 1}); got != 128 {
		t.Errorf("floor: %d", got)
	}
}

// Issue 26: on a 64 MiB box RAM/32 is 2 MiB, but 6.18's own rmem_max
// default is 4 MiB (docs/knobs.md): the UDP advice never goes below the
// running kernel's default. Before 6.18 (default 212992) RAM/32 stands.
func TestUDPBufferAdviceNotBelowDefault(t *testing.T) {
	for _, tc := range []struct {
		minor int
		want  string
	}{{18, "4194304"}, {12, "2097152"}} {
		h := kernHost(&facts.Host{Memory: facts.Memory{TotalBytes: 64 << 20},
			Sysctls: facts.Sysctls{"net.core.rmem_max": "1048576"},
			UDP:     &facts.UDPStats{RcvbufErrors: 1200}}, 6, tc.minor)
		fs := checkUDPBufErrors(rule.Input{Host: h})
		if len(fs) != 1 || fs[0].Recommendation.Value != tc.want {
			t.Errorf("6.%d: %+v, want rmem_max %s", tc.minor, fs, tc.want)
		}
	}
}

// Issue 26: measured facts beat models. With a saved bench result that
// measured the disk's direct sequential write, the dirty limits are sized
// from it, the basis says so, and nothing asks to run bench disk again.
func TestDirtyLimitsUseMeasuredWrite(t *testing.T) {
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 32 << 30},
		Sysctls: facts.Sysctls{"vm.dirty_background_ratio": "10", "vm.dirty_ratio": "20", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0"},
		Block:   []facts.BlockDevice{{Name: "sda", Kind: "disk", Rotational: bp(true), Transport: "sata"}},
	}
	fs := checkDirtyBigRAM(rule.Input{Host: h})
	if len(fs) != 2 || !strings.Contains(fs[0].Recommendation.Basis, "measure with `nastune bench disk`") {
		t.Fatalf("modelled: %+v", fs)
	}
	h.Bench = []facts.BenchMeasure{{Source: "/root/bench-sda.json", Device: "sda", Test: "seqread-direct", MBs: 260},
		{Source: "/root/bench-sda.json", Device: "sda", Test: "seqwrite-direct", MBs: 100}}
	fs = checkDirtyBigRAM(rule.Input{Host: h})
	if len(fs) != 2 {
		t.Fatalf("measured: %+v", fs)
	}
	b := fs[0].Recommendation.Basis
	if !strings.Contains(b, "at 100 MB/s") || !strings.Contains(b, "measured: seqwrite-direct in /root/bench-sda.json") || strings.Contains(b, "bench disk") {
		t.Errorf("basis %q: want the measured 100 MB/s, no request to measure", b)
	}
	if fs[0].Recommendation.Value != "199229440" { // 2 × 10^8 bytes, in whole MiB
		t.Errorf("dirty_background_bytes %s, want 2 s at the measured 100 MB/s", fs[0].Recommendation.Value)
	}
}

// A direct write measured faster than the disk's path can carry (a small
// test file a controller or a virtual disk's host cached) is a cache's
// speed: the dirty limits are not sized from it, and the basis says why.
func TestDirtyLimitsIgnoreCachedWrite(t *testing.T) {
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 32 << 30},
		Sysctls: facts.Sysctls{"vm.dirty_background_ratio": "10", "vm.dirty_ratio": "20", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0"},
		Block:   []facts.BlockDevice{{Name: "sda", Kind: "disk", Rotational: bp(true), Transport: "sata"}},
		Bench:   []facts.BenchMeasure{{Source: "/root/b.json", Device: "sda", Test: "seqwrite-direct", MBs: 1583.6, Size: 32 << 20}},
	}
	fs := checkDirtyBigRAM(rule.Input{Host: h})
	if len(fs) != 2 {
		t.Fatalf("%+v", fs)
	}
	b := fs[0].Recommendation.Basis
	if !strings.Contains(b, "at 200 MB/s") || !strings.Contains(b, "1584 MB/s seqwrite-direct in /root/b.json is above its 200 MB/s ceiling") {
		t.Errorf("basis %q: want the modelled 200 MB/s and the cached write named", b)
	}
	if fs[0].Recommendation.Value != "399507456" { // 2 s at 200 MB/s, in whole MiB
		t.Errorf("dirty_background_bytes %s, want 2 s at the modelled 200 MB/s", fs[0].Recommendation.Value)
	}
}

// The reported suspect: a saved bench result of a virtio disk read at
// 1583.6 MB/s against the 200 MB/s the model gives it. The finding names
// the host's cache and the unknown ceiling of a virtual disk; on a real
// disk it names a test file smaller than RAM. Never "x% of its ceiling".
func TestBenchAboveCeilingNamesTheCache(t *testing.T) {
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 4 << 30},
		Block: []facts.BlockDevice{{Name: "vda", Kind: "disk", Rotational: bp(true), Driver: "virtio_blk", Transport: "virtio"}},
		Bench: []facts.BenchMeasure{{Source: "/var/lib/nastune/bench/b.json", Device: "vda", Test: "seqread-buffered", MBs: 1583.6, Size: 32 << 20}},
	}
	fs := checkBenchVsCeiling(rule.Input{Host: h})
	if len(fs) != 1 || !strings.Contains(fs[0].Why, "vda is a virtual disk") || !strings.Contains(fs[0].Why, "bottleneck vda virtual disk") ||
		!strings.Contains(fs[0].Recommendation.Target, "host") || strings.Contains(fs[0].Why, "% of") {
		t.Fatalf("virtual disk: %+v", fs)
	}
	h.Block[0] = facts.BlockDevice{Name: "sda", Kind: "disk", Rotational: bp(true), Transport: "sata"}
	h.Bench[0].Device = "sda"
	fs = checkBenchVsCeiling(rule.Input{Host: h})
	if len(fs) != 1 || !strings.Contains(fs[0].Why, "a cache was measured") || !strings.Contains(fs[0].Why, "Its 32 MiB test file is smaller than the 4 GiB of RAM") {
		t.Fatalf("small file: %+v", fs)
	}
	h.Bench[0].Size = 8 << 30
	fs = checkBenchVsCeiling(rule.Input{Host: h})
	if len(fs) != 1 || strings.Contains(fs[0].Why, "smaller than") {
		t.Fatalf("file larger than RAM: %+v", fs)
	}
}

// A tree without /proc/cpuinfo says nothing about AES: mandatory signing
// is not reported as running "on a  CPU without AES instructions" with
// /proc/cpuinfo evidence this run never read (a guide's smb.conf with
// server signing = mandatory, smb encrypt = required, in a tree of
// smb.conf and proc/sys only).
func TestSigningNoAESNeedsCPUInfo(t *testing.T) {
	h := &facts.Host{Samba: &facts.Samba{Source: "/etc/samba/smb.conf", Global: map[string]string{"serversigning": "required", "serversmbencrypt": "required"}}}
	if fs := checkSigningNoAES(rule.Input{Host: h}); len(fs) != 0 {
		t.Errorf("no cpuinfo: %+v", fs)
	}
	h.CPU = facts.CPU{Count: 1, Model: "Feroceon 88FR131 rev 1 (v5l)", Flags: []string{"swp", "half", "thumb", "fastmult", "edsp"}}
	h.Arch = "armv5tel"
	fs := checkSigningNoAES(rule.Input{Host: h})
	if len(fs) != 2 || !strings.Contains(fs[0].Why, "on an armv5tel CPU without AES") {
		t.Errorf("ARMv5 without aes: %+v", fs)
	}
}

// A virtio disk's rotational flag says nothing about the host's storage:
// the dirty limits' basis must not call vda a rotating disk, and must say
// its speed is a model of storage the guest cannot see.
func TestDirtyLimitsVirtualDiskNotRotating(t *testing.T) {
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 24 << 30},
		Sysctls: facts.Sysctls{"vm.dirty_background_ratio": "10", "vm.dirty_ratio": "20", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0"},
		Block:   []facts.BlockDevice{{Name: "vda", Kind: "disk", Rotational: bp(true), Driver: "virtio_blk", Transport: "virtio"}},
	}
	fs := checkDirtyBigRAM(rule.Input{Host: h})
	if len(fs) != 2 {
		t.Fatalf("%+v", fs)
	}
	b := fs[0].Recommendation.Basis
	if strings.Contains(b, "rotating disk vda") || !strings.Contains(b, "virtual disk vda") || !strings.Contains(b, "unseen from the guest") {
		t.Errorf("basis %q: want vda named a virtual disk whose host storage is unseen", b)
	}
}
