package watch

import (
	"context"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/netlink"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"golang.org/x/sys/unix"
	"net/netip"
)

func TestParsers(t *testing.T) {
	sc := make([][]byte, 0, 32)
	var all kernfmt.CPUTimes
	cores, err := kernfmt.Stat([]byte("cpu  10 1 20 300 4 5 6 7 0 0\ncpu0 5 0 10 150 2 3 3 4 0 0\ncpu1 5 1 10 150 2 2 3 3 0 0\nintr 1 2\nctxt 5\n"), &all, nil, sc)
	if err != nil || len(cores) != 2 || all.User != 10 || all.Steal != 7 || cores[1].IRQ != 2 || all.Total() != 353 {
		t.Errorf("Stat: %+v %+v %v", all, cores, err)
	}
	if _, err := kernfmt.Stat([]byte("cpu  10 x 20 300 4 5 6 7\n"), &all, nil, sc); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("garbled /proc/stat: %v", err)
	}
	p, err := kernfmt.Pressure([]byte("some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=789\n"), sc)
	if err != nil || p.Some != 123456 || p.Full != 789 || !p.OK {
		t.Errorf("Pressure: %+v %v", p, err)
	}
	// A 5.5+ diskstats line (20 fields) and a 4.18 one (18 fields).
	ds, err := kernfmt.Diskstats([]byte("   8       0 sda 1000 10 80000 500 2000 20 160000 900 2 1200 1400 0 0 0 0 50 30 0\n   7       0 loop0 5 0 40 1 0 0 0 0 0 2 1 0 0 0 0\n"), nil, nil, map[string]string{}, sc)
	if err != nil || len(ds) != 2 || ds[0].Name != "sda" || ds[0].ReadSectors != 80000 || ds[0].WriteMS != 900 || ds[0].InFlight != 2 || ds[0].IOMS != 1200 || ds[0].WeightedMS != 1400 {
		t.Errorf("Diskstats: %+v %v", ds, err)
	}
	nd, err := kernfmt.NetDevCounters([]byte("Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n  eth0: 1000 10 0 3 0 0 0 0 2000 20 0 4 0 0 0 0\n"), nil, map[string]string{}, sc)
	if err != nil || len(nd) != 1 || nd[0].RxBytes != 1000 || nd[0].TxBytes != 2000 || nd[0].RxDrop != 3 || nd[0].TxDrop != 4 {
		t.Errorf("NetDevCounters: %+v %v", nd, err)
	}
	tcp, err := kernfmt.TCPStats([]byte("Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\nTcp: 1 200 120000 -1 10 5 0 0 2 1000 2000 30 0 1 0\n"))
	if err != nil || tcp.OutSegs != 2000 || tcp.RetransSegs != 30 {
		t.Errorf("TCPStats: %+v %v", tcp, err)
	}
	sn, err := kernfmt.SoftnetSum([]byte("0000a000 00000001 00000002 00000000\n00000010 00000000 00000003 00000000\n"), sc)
	if err != nil || sn.Processed != 0xa010 || sn.Dropped != 1 || sn.Squeezed != 5 {
		t.Errorf("SoftnetSum: %+v %v", sn, err)
	}
	np, err := nfsdPool([]byte("# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n0 100 7 93 0\n1 50 3 47 0\n"))
	if err != nil || np.Packets != 150 || np.SocketsEnqueued != 10 {
		t.Errorf("nfsdPool: %+v %v", np, err)
	}
	md := mdSyncs([]byte("Personalities : [raid6] [raid5] [raid4]\nmd0 : active raid5 sdd[3] sdc[1] sdb[0]\n      3906764800 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]\n      [==>..................]  recovery = 12.6% (246408960/1953382400) finish=180.4min speed=157680K/sec\n\nunused devices: <none>\n"))
	if len(md) != 1 || md[0].Name != "md0" || md[0].Action != "recovery" || md[0].SpeedKiBs != 157680 || md[0].Percent != 12.6 {
		t.Errorf("mdSyncs: %+v", md)
	}
	ts, err := kernfmt.ProcStat([]byte("1234 (md0_raid5) S 2 0 0 0 -1 2129984 0 0 0 0 150 350 0 0 20 0 1 0 100 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0\n"), sc)
	if err != nil || string(ts.Comm) != "md0_raid5" || ts.Ticks != 500 || ts.Threads != 1 || ts.State != 'S' {
		t.Errorf("ProcStat: %+v %v", ts, err)
	}
	// A comm with spaces and parentheses.
	ts, err = kernfmt.ProcStat([]byte("77 (a) (b c) R 1 0 0 0 -1 0 0 0 0 0 7 3 0 0 20 0 4 0 1 0 0\n"), sc)
	if err != nil || string(ts.Comm) != "a) (b c" || ts.Ticks != 10 || ts.Threads != 4 {
		t.Errorf("parseTaskStat parens: %+v %v", ts, err)
	}
	var vm VM
	kernfmt.Vmstat([]byte("pgscan_kswapd 100\npgscan_direct 50\npgscan_anon 120\npgsteal_kswapd 90\nworkingset_refault_file 7\n"), sc, vm.setVmstat)
	kernfmt.ScanMeminfo([]byte("MemTotal:       1000 kB\nDirty:           12 kB\nWriteback:        3 kB\n"), sc, vm.setMeminfo)
	if vm.PgScan != 150 || vm.PgSteal != 90 || vm.Refault != 7 || vm.DirtyKiB != 12 || vm.WritebackKiB != 3 || vm.MemTotalKiB != 1000 {
		t.Errorf("vmstat/meminfo: %+v", vm)
	}
}

func repeat(n int, s Sample) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = s
		out[i].T = float64(i + 1)
	}
	return out
}

func TestReason(t *testing.T) {
	idle := CPUSample{BusyPct: 30, Cores: []CoreShare{{CPU: 0, BusyPct: 55}, {CPU: 1, BusyPct: 5}}}
	cases := []struct {
		name    string
		samples []Sample
		want    []string // kind:subject, most binding first
	}{
		{"idle machine", repeat(5, Sample{CPU: idle}), nil},
		{"one smbd thread at a full core on a half-idle box",
			repeat(5, Sample{CPU: idle, Threads: []ThreadSample{{PID: 900, TID: 901, Comm: "smbd", ProcessComm: "smbd", CPUPct: 98, WaitPct: 1}, {PID: 12, TID: 12, Comm: "sshd", CPUPct: 5}}}),
			[]string{"cpu:smbd"}},
		{"nic at its link speed",
			repeat(5, Sample{CPU: idle, NICs: []NICSample{{Name: "eth0", TxBps: 940e6, SpeedBps: 1e9}, {Name: "eth1", RxBps: 10e6, SpeedBps: 1e9}}}),
			[]string{"network:eth0"}},
		{"nic at its tbf rate, far below link speed",
			repeat(5, Sample{CPU: idle, NICs: []NICSample{{Name: "eth0", TxBps: 19.5e6, SpeedBps: 1e9, Qdisc: "tbf", QdiscRateBps: 20e6, OverlimitsPS: 300}}}),
			[]string{"network:eth0"}},
		{"member disk saturated under md0: the member is named, md0 in the stack",
			repeat(5, Sample{CPU: idle, Disks: []DiskSample{
				{Name: "md0", UtilPct: 99, ReadIOPS: 300, Below: []string{"sda", "sdb"}},
				{Name: "sdb", UtilPct: 100, ReadIOPS: 150, QueueDepth: 8, AwaitMS: 40, Rotational: true},
				{Name: "sda", UtilPct: 45, ReadIOPS: 150, QueueDepth: 1}}}),
			[]string{"disk:sdb"}},
		{"memory thrash outranks the disk it causes",
			repeat(5, Sample{CPU: idle, PSI: PSISample{Available: true, MemSomePct: 35, MemFullPct: 10},
				Memory: MemSample{PgScanPerS: 50000, PgStealPerS: 20000},
				Disks:  []DiskSample{{Name: "sda", UtilPct: 95, QueueDepth: 4}}}),
			[]string{"memory:memory", "disk:sda"}},
		{"a brief spike is not a bottleneck",
			append(repeat(4, Sample{CPU: idle}), Sample{CPU: idle, Disks: []DiskSample{{Name: "sda", UtilPct: 100}}}),
			nil},
		// pool_stats of a kernel that queues only when no thread is idle
		// (2.6, early 3.x): packets ≥ enqueued + woken.
		{"nfsd threads exhausted (old kernel, 16 threads)",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 2000, EnqueuedPerS: 900, WokenPerS: 1000, Threads: 16}}),
			[]string{"cpu:nfsd threads"}},
		{"a third waits: 16 threads are not saturated, 1 thread of unknown count neither",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 2000, EnqueuedPerS: 600, WokenPerS: 1300}}),
			nil},
		{"nfsd with idle threads (old kernel)",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 2000, EnqueuedPerS: 20, WokenPerS: 1950}}),
			nil},
		// A kernel that queues every transport (6.1): packets = enqueued,
		// threads-woken counts the hand-overs an idle thread took.
		// The kernel lab's 6.1 nfsd under 8 parallel readers (pool_stats
		// deltas of a bench share run): 1 thread, 94% waited; 8 threads,
		// 46% waited (below the 57% of 8 threads busy 85% of the time).
		{"nfsd threads exhausted (every transport queued; lab, 1 thread)",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 568, EnqueuedPerS: 568, WokenPerS: 35, Threads: 1}}),
			[]string{"cpu:nfsd threads"}},
		{"8 nfsd threads with one idle for half the work (lab)",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 1564, EnqueuedPerS: 1564, WokenPerS: 849, Threads: 8}}),
			nil},
		{"nfsd with idle threads (every transport queued)",
			repeat(5, Sample{CPU: idle, NFSd: &NFSdSample{PacketsPerS: 2000, EnqueuedPerS: 2000, WokenPerS: 1990}}),
			nil},
		{"nfsd threads busy on busy CPUs: the CPUs, not the thread count",
			repeat(5, Sample{CPU: CPUSample{BusyPct: 96, Cores: []CoreShare{{CPU: 0, BusyPct: 96}, {CPU: 1, BusyPct: 96}}},
				NFSd: &NFSdSample{PacketsPerS: 300, EnqueuedPerS: 300, WokenPerS: 10, Threads: 1}}),
			[]string{"cpu:all CPUs"}},
		// QD1 (a single-threaded copy with fsync per block): 300 IOPS ×
		// 2 ms = 0.6 in flight = 60% busy; below the 80% saturation line,
		// yet the disk's latency sets the pace.
		{"QD1 workload latency-bound at 60% busy",
			repeat(5, Sample{CPU: idle, Disks: []DiskSample{{Name: "sda", UtilPct: 60, WriteIOPS: 300, AwaitMS: 2, QueueDepth: 0.6, AvgReqKiB: 4, Rotational: true}}}),
			[]string{"disk:sda"}},
		{"bursty parallel load at 60% busy is not QD1",
			repeat(5, Sample{CPU: idle, Disks: []DiskSample{{Name: "sda", UtilPct: 60, WriteIOPS: 300, AwaitMS: 8, QueueDepth: 2.4, AvgReqKiB: 4, Rotational: true}}}),
			nil},
		{"light QD1 background writer at 30% busy",
			repeat(5, Sample{CPU: idle, Disks: []DiskSample{{Name: "sda", UtilPct: 30, WriteIOPS: 150, AwaitMS: 2, QueueDepth: 0.3, Rotational: true}}}),
			nil},
		// An SMB read over a 20 ms VPN: 4 MB/s out of a 1 Gbit/s link,
		// the sender's buffer full 90% of the time.
		{"tcp stream held by its send buffer at its RTT",
			repeat(5, Sample{CPU: idle, NICs: []NICSample{{Name: "eth0", TxBps: 33e6, SpeedBps: 1e9}}, TCP: TCPSample{Streams: []TCPStream{
				{Local: "192.168.1.10:445", Remote: "10.8.0.6:50122", TxBps: 33e6, RTTms: 20, SndbufLimitedPct: 90, Limits: true}}}}),
			[]string{"network:tcp 192.168.1.10:445 → 10.8.0.6:50122"}},
		{"tcp stream held by the peer's window",
			repeat(5, Sample{CPU: idle, TCP: TCPSample{Streams: []TCPStream{
				{Local: "192.168.1.10:2049", Remote: "192.168.1.30:900", TxBps: 200e6, RTTms: 0.5, RwndLimitedPct: 75, Limits: true}}}}),
			[]string{"network:tcp 192.168.1.10:2049 → 192.168.1.30:900"}},
		{"tcp stream limited only briefly",
			append(repeat(4, Sample{CPU: idle}), Sample{CPU: idle, TCP: TCPSample{Streams: []TCPStream{
				{Local: "192.168.1.10:445", Remote: "192.168.1.20:5000", TxBps: 900e6, RTTms: 0.3, SndbufLimitedPct: 100, Limits: true}}}}),
			nil},
		{"softirq on one core",
			repeat(5, Sample{CPU: CPUSample{BusyPct: 50, Cores: []CoreShare{{CPU: 0, BusyPct: 95, SoftIRQPct: 85}, {CPU: 1, BusyPct: 5}}}}),
			[]string{"cpu:cpu0 interrupts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Bottlenecks(c.samples)
			var ks []string
			for _, b := range got {
				ks = append(ks, b.Kind+":"+b.Subject)
				if b.Why == "" || b.Next == "" || len(b.Evidence) == 0 {
					t.Errorf("%s: missing why/next/evidence: %+v", b.Subject, b)
				}
			}
			if strings.Join(ks, ",") != strings.Join(c.want, ",") {
				t.Errorf("got %v, want %v", ks, c.want)
			}
		})
	}
	// The stack and the rates are reported, not just the names.
	md := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "md0", UtilPct: 99, Below: []string{"sdb"}}, {Name: "sdb", UtilPct: 100, QueueDepth: 8}}}))
	if len(md) != 1 || strings.Join(md[0].Stack, ",") != "md0,sdb" {
		t.Errorf("md stack: %+v", md)
	}
	// Every CPU busy: the busiest processes are named as evidence.
	busy := Bottlenecks(repeat(3, Sample{CPU: CPUSample{BusyPct: 97, Cores: []CoreShare{{CPU: 0, BusyPct: 97}, {CPU: 1, BusyPct: 97}}},
		Threads: []ThreadSample{{PID: 5, TID: 5, Comm: "gzip", ProcessComm: "gzip", CPUPct: 60, WaitPct: 20}, {PID: 7, TID: 8, Comm: "worker", ProcessComm: "rsync", CPUPct: 30}}}))
	if len(busy) == 0 || busy[0].Subject != "all CPUs" || !strings.Contains(strings.Join(busy[0].Evidence, " "), "gzip (pid 5) 60%, rsync (pid 7) 30%") {
		t.Errorf("all CPUs: %+v", busy)
	}
	// Two loop devices and an array on one saturated disk: all are above it.
	shared := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "loop1", Kind: "loop", UtilPct: 50, Below: []string{"vda"}}, {Name: "loop0", Kind: "loop", UtilPct: 40, Below: []string{"vda"}},
		{Name: "md0", UtilPct: 10, Below: []string{"vda", "vdb"}}, {Name: "dm-0", UtilPct: 10, Below: []string{"md0"}}, {Name: "vda", UtilPct: 99, QueueDepth: 3}}}))
	if len(shared) != 1 || strings.Join(shared[0].Stack, ",") != "dm-0,loop0,loop1,md0,vda" {
		t.Errorf("shared disk stack: %+v", shared)
	}
	// A saturated loop device on a saturated disk: both named, the loop
	// device with its queue-depth-1 explanation.
	lp := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "loop0", Kind: "loop", UtilPct: 95, QueueDepth: 0.9, AwaitMS: 0.2, ReadIOPS: 4500, Below: []string{"vda"}}, {Name: "vda", UtilPct: 97, QueueDepth: 1.6}}}))
	if len(lp) != 2 || lp[0].Subject != "vda" || lp[1].Subject != "loop0" || !strings.Contains(lp[1].Why, "rarely more than one") || !strings.Contains(strings.Join(lp[1].Evidence, " "), "vda (below loop0)") {
		t.Errorf("loop on a busy disk: %+v", lp)
	}
	// The kind decides, not the name: a loop device under another name
	// stays its own subject, and a dm device named "loopy" is walked down
	// to its busy member like any stacked device.
	odd := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "img7", Kind: "loop", UtilPct: 95, QueueDepth: 0.9, Below: []string{"vda"}}, {Name: "vda", Kind: "disk", UtilPct: 97, QueueDepth: 1.6}}}))
	if len(odd) != 2 || odd[0].Subject != "vda" || odd[1].Subject != "img7" {
		t.Errorf("loop device by kind: %+v", odd)
	}
	loopy := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "loopy", Kind: "dm", UtilPct: 95, QueueDepth: 0.9, Below: []string{"vda"}}, {Name: "vda", Kind: "disk", UtilPct: 97, QueueDepth: 1.6}}}))
	if len(loopy) != 1 || loopy[0].Subject != "vda" || strings.Join(loopy[0].Stack, ",") != "loopy,vda" {
		t.Errorf("a dm device named loopy: %+v", loopy)
	}
	// A USB 2.0 disk at its bridge's ceiling, though busy only 60% of the time.
	paths := []ceiling.Path{{Name: "sda", Kind: "disk", CeilingMBs: 35, Bottleneck: "sda USB 2.0 usb-storage", Move: "a USB 3 port and a UAS-capable enclosure, or SATA"},
		{Name: "eth0", Kind: "network", CeilingMBs: 117}}
	usb := BottlenecksWith(repeat(3, Sample{Disks: []DiskSample{{Name: "sda", UtilPct: 60, ReadBps: 33e6, QueueDepth: 1}}}), CeilingsFrom(paths))
	if len(usb) != 1 || usb[0].Subject != "sda" || usb[0].Limit != 35e6 || usb[0].Utilization != 0.94 || !strings.Contains(usb[0].Why, "USB 2.0") || !strings.Contains(usb[0].Next, "USB 3 port") {
		t.Errorf("USB ceiling: %+v", usb)
	}
	if got := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "sda", UtilPct: 60, ReadBps: 33e6}}})); len(got) != 0 {
		t.Errorf("without the model the same disk is not a bottleneck: %+v", got)
	}
	// A running rebuild is evidence on a saturated disk.
	rb := Bottlenecks(repeat(3, Sample{Disks: []DiskSample{{Name: "sdb", UtilPct: 100, QueueDepth: 4}}, MD: []MDSync{{Name: "md0", Action: "recovery", Percent: 12.6, SpeedKiBs: 157680}}}))
	if len(rb) != 1 || !strings.Contains(strings.Join(rb[0].Evidence, "\n"), "md0 recovery 12.6% done at 157680 KiB/s") {
		t.Errorf("md rebuild evidence: %+v", rb)
	}
	sh := Bottlenecks(repeat(3, Sample{NICs: []NICSample{{Name: "eth0", TxBps: 19.5e6, Qdisc: "tbf", QdiscRateBps: 20e6}}}))
	if len(sh) != 1 || sh[0].Limit != 20e6 || sh[0].Rate != 19.5e6 || sh[0].Utilization != 0.98 {
		t.Errorf("shaper numbers: %+v", sh)
	}
}

// The /proc files prometheus/procfs tests its parsers against (see
// testdata/real/procfs/ORIGIN): machine data other people collected.
func TestRealProcfsFixtures(t *testing.T) {
	dir := "testdata/real/procfs/proc/"
	read := func(name string) []byte {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sc := make([][]byte, 0, 32)
	var all kernfmt.CPUTimes
	cores, err := kernfmt.Stat(read("stat"), &all, nil, sc)
	if err != nil || len(cores) != 8 || all.User != 301854 || all.SoftIRQ != 3944 || cores[0].SoftIRQ != 3410 {
		t.Errorf("stat: %d cores, %+v, %v", len(cores), all, err)
	}
	ds, err := kernfmt.Diskstats(read("diskstats"), nil, nil, map[string]string{}, sc)
	if err != nil {
		t.Fatalf("diskstats: %v", err)
	}
	found := 0
	for _, d := range ds {
		switch d.Name {
		case "sda": // 4.x layout, 14 fields
			found++
			if d.Reads != 25354637 || d.ReadSectors != 1003346126 || d.IOMS != 9653880 || d.WeightedMS != 82621804 {
				t.Errorf("sda: %+v", d)
			}
		case "sdb": // with discard counters, 18 fields
			found++
			if d.Reads != 326552 || d.WriteMS != 5007 || d.IOMS != 60730 || d.WeightedMS != 67070 {
				t.Errorf("sdb: %+v", d)
			}
		}
	}
	if found != 2 {
		t.Errorf("sda/sdb not both parsed: %d", found)
	}
	nd, err := kernfmt.NetDevCounters(read("net/dev"), nil, map[string]string{}, sc)
	if err != nil || len(nd) < 2 || nd[0].Name != "vethf345468" || nd[0].RxBytes != 648 || nd[0].TxBytes != 438 {
		t.Errorf("net/dev: %+v %v", nd, err)
	}
	if sn, err := kernfmt.SoftnetSum(read("net/softnet_stat"), sc); err != nil || sn.Processed == 0 {
		t.Errorf("softnet_stat: %+v %v", sn, err)
	}
	for _, f := range []string{"cpu", "io", "memory"} {
		if p, err := kernfmt.Pressure(read("pressure/"+f), sc); err != nil || !p.OK {
			t.Errorf("pressure/%s: %+v %v", f, p, err)
		}
	}
	ts, err := kernfmt.ProcStat(read("26231/stat"), sc)
	if err != nil || string(ts.Comm) != "vim" || ts.Ticks != 1677+44 || ts.Threads != 1 {
		t.Errorf("26231/stat: %+v %v", ts, err)
	}
	if run, wait, err := kernfmt.Schedstat(read("26231/schedstat"), sc); err != nil || run != 411605849 || wait != 93680043 {
		t.Errorf("schedstat: %d %d %v", run, wait, err)
	}
	var vm VM
	if err := kernfmt.ScanMeminfo(read("meminfo"), sc, vm.setMeminfo); err != nil || vm.MemTotalKiB != 15666184 || vm.DirtyKiB != 768 {
		t.Errorf("meminfo: %+v %v", vm, err)
	}
	md := mdSyncs(read("mdstat"))
	want := map[string]string{"recovery": "259783", "resync": "259783", "check": "114176", "reshape": "7640"}
	for _, m := range md {
		if w, ok := want[m.Action]; ok && strconv.FormatUint(m.SpeedKiBs, 10) == w {
			delete(want, m.Action)
		}
		if m.Action == "resync" && m.SpeedKiBs == 0 {
			t.Errorf("DELAYED/PENDING resync reported as running: %+v", m)
		}
	}
	if len(want) != 0 {
		t.Errorf("mdstat: missing %v in %+v", want, md)
	}
}

// Garbled input gives an error or nothing, never a panic.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n", "some total=1\nfull total=2\n",
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", "1 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n",
		"md0 : active raid1 sda[0]\n  [=>..]  resync =  8.5% (1/2) finish=1min speed=5K/sec\n", "Tcp: A B\nTcp: 1 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sc := make([][]byte, 0, 8)
		var all kernfmt.CPUTimes
		kernfmt.Stat(b, &all, nil, sc)
		kernfmt.Pressure(b, sc)
		kernfmt.Diskstats(b, nil, nil, map[string]string{}, sc)
		kernfmt.NetDevCounters(b, nil, map[string]string{}, sc)
		kernfmt.TCPStats(b)
		kernfmt.SoftnetSum(b, sc)
		nfsdPool(b)
		mdSyncs(b)
		kernfmt.ProcStat(b, sc)
		kernfmt.Schedstat(b, sc)
		var vm VM
		kernfmt.Vmstat(b, sc, vm.setVmstat)
		netlink.ParseQdisc(b)
		netlink.ParseHTBClassRate(b)
	})
}

// A long watch keeps at most MaxSamples, the newest, and says so.
func TestRunBounded(t *testing.T) {
	// Counted in samples, not wall time: on a busy machine a sample can
	// come late (a fixed 0.7 s got fewer than six). The watch ends after
	// the sixth sample; the minute is only a bound on a stuck run.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := 0
	var last float64
	res, err := Run(ctx, hostfs.Live(), Options{Interval: 100 * time.Millisecond, MaxSamples: 3, OnSample: func(s Sample, _ []Bottleneck) {
		if seen++; seen == 6 {
			cancel()
		}
		last = s.T
	}})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 6 {
		t.Fatalf("%d samples in a minute: Run did not sample every interval", seen)
	}
	if len(res.Samples) != 3 || res.Dropped != seen-3 || res.Samples[2].T < res.Samples[0].T || res.Samples[2].T != last {
		t.Errorf("%d samples kept, %d dropped of %d; want the 3 newest kept and the rest counted", len(res.Samples), res.Dropped, seen)
	}
	var b strings.Builder
	WriteText(&b, res)
	if !strings.Contains(b.String(), "oldest samples were dropped") {
		t.Errorf("text does not say samples were dropped:\n%s", b.String())
	}
}

// BenchmarkNext is one sample of this machine: every file read once, the
// threads of busy processes, the qdisc and TCP dumps and the rates.
// cpu-ns/op is the process's CPU time (user + system, getrusage) per
// sample, which the wall time on a busy machine is not: at the bench
// server's two samples a second, 2% of a core is 10 ms per sample.
func BenchmarkNext(b *testing.B) {
	s, err := NewSampler(hostfs.Live())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	cpu := func() time.Duration {
		var ru unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0 := cpu()
	for b.Loop() {
		if _, err := s.Next(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkNextFollow is a sample of the bench server during a share
// test: as BenchmarkNext, with 8 followed processes (as an smbd per
// client connection) whose threads are read every interval, in a CPU
// cgroup of their own (as root) whose counters are read with them.
func BenchmarkNextFollow(b *testing.B) {
	cg := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(cg + "/cpu.cfs_quota_us"); err != nil {
		cg = "/sys/fs/cgroup" // v2
	}
	cg += "/nastune-benchfollow-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(cg, 0o755); err != nil {
		b.Logf("no cgroup of their own (%v): their cgroups are this one's", err)
		cg = ""
	} else {
		defer os.Remove(cg) // after the children are reaped (defers run last first)
	}
	kids := map[int]bool{}
	for range 8 {
		c := exec.Command("sleep", "600")
		if cg != "" {
			c = exec.Command("sh", "-c", `echo $$ > "$0"/cgroup.procs && exec sleep 600`, cg)
		}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
		kids[c.Process.Pid] = true
	}
	time.Sleep(100 * time.Millisecond) // the shells exec sleep
	s, err := NewSampler(hostfs.Live())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.Follow(func(pid int, comm string) bool { return kids[pid] })
	b.ReportAllocs()
	cpu := func() time.Duration {
		var ru unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if _, err := s.Next(); err != nil {
		b.Fatal(err)
	}
	c0 := cpu()
	for b.Loop() {
		x, err := s.Next()
		if err != nil {
			b.Fatal(err)
		}
		if cg != "" && len(x.Cgroups) == 0 {
			b.Fatal("the followed processes' cgroup was not read")
		}
	}
	b.ReportMetric(float64(cpu()-c0)/float64(b.N), "cpu-ns/op")
}

// The QD1 verdict says why a 60%-busy disk is the limit.
func TestReasonQD1Why(t *testing.T) {
	got := Bottlenecks(repeat(5, Sample{Disks: []DiskSample{{Name: "sda", UtilPct: 60, ReadIOPS: 300, AwaitMS: 2, QueueDepth: 0.6, Rotational: true}}}))
	if len(got) != 1 || !strings.Contains(got[0].Why, "one request at a time") || !strings.Contains(got[0].Why, "Little's law") ||
		!strings.Contains(got[0].Why, "0.60 requests in flight") {
		t.Errorf("%+v", got)
	}
}

// "seek-bound" only where a rotating disk is itself the busy device: the
// kernel lab's dm-delay device over a virtio disk (which reports itself
// rotational, 11% busy below it) is latency-bound at its queue depth.
func TestReasonSeekBoundWhy(t *testing.T) {
	dm := func(below ...DiskSample) []Sample {
		ds := []DiskSample{{Name: "dm-0", UtilPct: 95, ReadIOPS: 608, ReadBps: 37e6, AwaitMS: 25.86, QueueDepth: 15.69, AvgReqKiB: 58.8, Rotational: true, Below: []string{"vda"}}}
		return repeat(5, Sample{Disks: append(ds, below...)})
	}
	for _, tc := range []struct {
		name    string
		samples []Sample
		want    string
		not     string
	}{
		{"dm-delay over an idle rotational virtio disk", dm(DiskSample{Name: "vda", UtilPct: 11, ReadIOPS: 611, AwaitMS: 1.34, Rotational: true}),
			"dm-0 is busy all the time with 15.7 requests queued on average: latency-bound at queue depth 15.7 (25.86 ms per request)", "seek"},
		{"dm over a busy rotating disk", dm(DiskSample{Name: "vda", UtilPct: 94, ReadIOPS: 611, AwaitMS: 25, QueueDepth: 15, Rotational: true}),
			"small requests on a rotating disk are seek-bound", "latency-bound"},
		{"dm over a busy SSD", dm(DiskSample{Name: "vda", UtilPct: 94, ReadIOPS: 611, AwaitMS: 25, QueueDepth: 15}),
			"latency-bound at queue depth", "seek"},
		{"a rotating disk itself", repeat(5, Sample{Disks: []DiskSample{{Name: "sda", UtilPct: 99, ReadIOPS: 150, AwaitMS: 40, QueueDepth: 8, AvgReqKiB: 16, Rotational: true}}}),
			"sda is busy all the time with 8.0 requests queued on average and 40.00 ms per request: the device is saturated; small requests on a rotating disk are seek-bound", "latency-bound"},
		{"an SSD itself", repeat(5, Sample{Disks: []DiskSample{{Name: "nvme0n1", UtilPct: 99, ReadIOPS: 15000, AwaitMS: 2, QueueDepth: 30, AvgReqKiB: 16}}}),
			"nvme0n1 is busy all the time with 30.0 requests queued on average: latency-bound at queue depth 30.0 (2.00 ms per request)", "seek"},
	} {
		got := Bottlenecks(tc.samples)
		if len(got) == 0 || got[0].Kind != "disk" || !strings.Contains(got[0].Why, tc.want) || strings.Contains(got[0].Why, tc.not) {
			t.Errorf("%s: %+v\nwant %q, not %q", tc.name, got, tc.want, tc.not)
			continue
		}
		if got[0].QueueDepth <= 0 || got[0].AwaitMS <= 0 {
			t.Errorf("%s: no queue depth or latency in the verdict: %+v", tc.name, got[0])
		}
	}
}

// The send-buffer verdict gives the window arithmetic and the fix.
func TestReasonTCPSndbufWhy(t *testing.T) {
	got := Bottlenecks(repeat(5, Sample{TCP: TCPSample{Streams: []TCPStream{
		{Local: "192.168.1.10:445", Remote: "10.8.0.6:50122", TxBps: 33e6, RTTms: 20, SndbufLimitedPct: 90, Limits: true}}}}))
	if len(got) != 1 || !strings.Contains(got[0].Why, "send buffer 90%") || !strings.Contains(got[0].Why, "window ÷ RTT") ||
		!strings.Contains(got[0].Next, "tcp_wmem") {
		t.Errorf("%+v", got)
	}
}

// Two tcp_info dumps give each stream's rate and the share of the interval
// it was send-buffer or window limited; slow, vanished and new
// connections are left out.
func TestTCPStreamsDelta(t *testing.T) {
	ap := func(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
	p := map[uint64]netlink.TCPSock{
		1: {Cookie: 1, Local: ap("192.168.1.10:445"), Remote: ap("192.168.1.20:5000"), BytesAcked: 1e9, SndbufLimitedUS: 1e6, RwndLimitedUS: 0, Limits: true},
		2: {Cookie: 2, Local: ap("192.168.1.10:22"), Remote: ap("192.168.1.20:6000"), BytesAcked: 5e6, Limits: true},
		3: {Cookie: 3, Local: ap("192.168.1.10:2049"), Remote: ap("192.168.1.30:900"), BytesAcked: 1e6},
	}
	c := map[uint64]netlink.TCPSock{
		1: {Cookie: 1, Local: ap("192.168.1.10:445"), Remote: ap("192.168.1.20:5000"), BytesAcked: 1e9 + 50e6, RTTus: 20000, SndbufLimitedUS: 1.8e6, RwndLimitedUS: 0.1e6, Limits: true},
		2: {Cookie: 2, Local: ap("192.168.1.10:22"), Remote: ap("192.168.1.20:6000"), BytesAcked: 5e6 + 1000, Limits: true},
		4: {Cookie: 4, Local: ap("192.168.1.10:445"), Remote: ap("192.168.1.40:7000"), BytesAcked: 9e9, Limits: true},
	}
	got := tcpStreams(p, c, 1)
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	g := got[0]
	if g.Local != "192.168.1.10:445" || g.TxBps != 400e6 || g.RTTms != 20 || g.SndbufLimitedPct != 80 || g.RwndLimitedPct != 10 || !g.Limits {
		t.Errorf("%+v", g)
	}
}

// TestNoIdleShare: both meanings of pool_stats' sockets-enqueued. The
// rows marked "lab" are the deltas of the kernel lab's 6.1 nfsd (Debian's
// stock kernel, /proc/fs/nfsd/pool_stats before and after a bench share
// run with 8 parallel readers): 1 thread 2 → 570 packets, all of them
// enqueued, 0 → 35 woken; 8 threads 570 → 2134 packets, 35 → 884 woken.
func TestNoIdleShare(t *testing.T) {
	for _, c := range []struct {
		name                   string
		packets, enq, woken    float64
		wantShare, wantHandled float64
	}{
		{"lab 6.1, 1 thread", 568, 568, 35, 0.938, 568},
		{"lab 6.1, 8 threads", 1564, 1564, 849, 0.457, 1564},
		{"6.1, none woken", 100, 100, 0, 1, 100},
		{"old kernel: queued only when no thread idle", 2000, 600, 1300, 0.316, 1900},
		{"old kernel: XPT_BUSY calls count as packets only", 2000, 0, 1500, 0, 1500},
		{"old kernel: all queued", 50, 50, 0, 1, 50},
		{"nothing", 0, 0, 0, 0, 0},
	} {
		s, h := NoIdleShare(c.packets, c.enq, c.woken)
		if math.Abs(s-c.wantShare) > 0.001 || h != c.wantHandled {
			t.Errorf("%s: NoIdleShare(%v, %v, %v) = %.3f of %v, want %.3f of %v", c.name, c.packets, c.enq, c.woken, s, h, c.wantShare, c.wantHandled)
		}
	}
}

// TestNfsdQueued: the share of arrivals that wait in a pool of n threads
// busy 85% of the time (Erlang C).
func TestNfsdQueued(t *testing.T) {
	for n, want := range map[int]float64{0: 0.85, 1: 0.85, 2: 0.781, 8: 0.573, 16: 0.433, 64: 0.143} {
		if got := nfsdQueued(n); math.Abs(got-want) > 0.001 {
			t.Errorf("nfsdQueued(%d) = %.3f, want %.3f", n, got, want)
		}
	}
}

// A followed process started after the sampler (a new client connection
// forks a new smbd) is found by the next reading and its thread is in the
// sample after it; once it has exited, the task files held open for it
// are closed, and Close closes the rest.
func TestFollowFindsNewProcess(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := fds()
	s, err := NewSampler(hostfs.Live())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	s.Follow(func(p int, comm string) bool { return p == pid })
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sh", "-c", "while :; do :; done")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	pid = c.Process.Pid
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if !s.prev.followed[pid] {
		t.Fatalf("the reading after process %d started did not follow it", pid)
	}
	time.Sleep(200 * time.Millisecond)
	x, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, th := range x.Threads {
		found = found || th.PID == pid && th.TID == pid && th.CPUPct > 0
	}
	if !found {
		t.Errorf("the spinning process %d is not in the sample after the one that found it: %+v", pid, x.Threads)
	}
	c.Process.Kill()
	c.Wait()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	for k := range s.held {
		if k.id == pid {
			t.Errorf("task file %+v of the exited process %d still held", k, pid)
		}
	}
	if len(s.held) == 0 {
		t.Error("no task file held open between readings")
	}
	s.Close()
	if after := fds(); after > before {
		t.Errorf("%d descriptors open after Close, %d before NewSampler", after, before)
	}
}

// Block devices through blockdev: the devices under md and dm are whole
// disks (a member partition is its disk); a loop device's backing file is
// followed on the live system only (a tree's files have the analysing
// machine's device numbers). A cgroup's io.max names devices by number: a
// number sysfs does not know, or that links to a name no kernel gives,
// stays a number.
func TestBlockNames(t *testing.T) {
	dir := t.TempDir()
	v := "sys/devices/virtual/block/"
	sd := "sys/devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/"
	fixture.WriteTree(t, dir, map[string]string{
		sd + "sda/sda1/partition":                                    "1\n",
		sd + "sdb/sdb1/partition":                                    "1\n",
		"sys/class/block/sda1 -> ../../" + sd[4:] + "sda/sda1":       "",
		"sys/class/block/sdb1 -> ../../" + sd[4:] + "sdb/sdb1":       "",
		"sys/class/block/loop0 -> ../../devices/virtual/block/loop0": "",
		"sys/dev/block/8:0 -> ../../" + sd[4:] + "sda":               "",
		"sys/dev/block/7:9 -> ../../devices/virtual/block/\x1b[2J":   "",
		v + "\x1b[2J/dev":  "7:9\n",
		v + "md0/md/level": "raid1\n",
		v + "md0/slaves/sda1 -> ../../../../pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1": "",
		v + "md0/slaves/sdb1 -> ../../../../pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sdb/sdb1": "",
		v + "dm-0/dm/name":                                  "crypt\n",
		v + "dm-0/slaves/loop0 -> ../../loop0":              "",
		v + "loop0/loop/backing_file":                       "/srv/disk.img\n",
		"srv/disk.img":                                      "x",
		"sys/block/md0 -> ../devices/virtual/block/md0":     "",
		"sys/block/dm-0 -> ../devices/virtual/block/dm-0":   "",
		"sys/block/loop0 -> ../devices/virtual/block/loop0": "",
	})
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sys := blockdev.New(root)
	for n, want := range map[string]string{"md0": "sda sdb", "dm-0": "loop0", "loop0": ""} {
		if got := strings.Join(below(sys, n), " "); got != want {
			t.Errorf("below %s: %q, want %q", n, got, want)
		}
	}
	s := &Sampler{root: root, Skipped: map[string]string{}}
	// discover records blockdev's kind, which the samples carry.
	s.discover()
	for n, want := range map[string]string{"md0": "md", "dm-0": "dm", "loop0": "loop"} {
		if got := s.devs[n].kind; got != want {
			t.Errorf("kind %s: %q, want %q", n, got, want)
		}
	}
	for _, c := range []struct {
		ma, mi uint32
		want   string
	}{{8, 0, "sda"}, {8, 99, "8:99"}, {7, 9, "7:9"}} {
		if got := s.devName(c.ma, c.mi); got != c.want {
			t.Errorf("%d:%d: %q, want %q", c.ma, c.mi, got, c.want)
		}
	}
}

// Devices whose Below lists loop back (md0 on md1 on md0, a device on
// itself; the kernel does not stack so, but Bottlenecks is a pure function
// of the samples it is given) end the walk down: one verdict, no hang.
func TestBottlenecksBelowCycle(t *testing.T) {
	for _, disks := range [][]DiskSample{
		{{Name: "md0", UtilPct: 99, Below: []string{"md1"}}, {Name: "md1", UtilPct: 99, Below: []string{"md0"}}},
		{{Name: "md0", UtilPct: 99, Below: []string{"md0"}}},
	} {
		// A loop here hangs the test (go test -timeout ends it).
		if b := Bottlenecks(repeat(3, Sample{Disks: disks})); len(b) != 1 || b[0].Kind != "disk" {
			t.Errorf("%+v: %+v, want one disk verdict", disks, b)
		}
	}
}
