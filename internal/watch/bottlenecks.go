package watch

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/units"
	"github.com/nastune/nastune/internal/watch/wire"
)

// The reported types live in watch/wire so that clients on any OS decode
// them (bench share's attribution); watch fills them.
type (
	Bottleneck   = wire.Bottleneck
	ThreadSample = wire.ThreadSample
	CgroupSample = wire.CgroupSample
	CgroupIO     = wire.CgroupIO
)

// Thresholds of the USE verdicts, as shares of the limit averaged over
// the samples.
const (
	threadBusy   = 0.85 // a thread on a CPU this share of the time is CPU-bound
	threadDemand = 0.90 // on a CPU + waiting for one: wanted a whole core
	coreIRQ      = 0.80 // one CPU's irq+softirq share
	allBusy      = 0.90 // every CPU together
	stealShare   = 0.20
	diskBusy     = 0.80 // %util: busy 80% of the time already queues
	// A disk busy at least this share with one request in flight whenever
	// busy (Little's law: mean in flight = IOPS × latency ≈ %util) serves a
	// one-at-a-time workload: latency-bound even below diskBusy, the rest
	// of the time being the issuer's own work between requests.
	diskQD1Busy  = 0.50
	diskQD1IOPS  = 10   // fewer requests per second are not a stream
	diskCeiling  = 0.85 // of the path's modelled ceiling (internal/ceiling)
	ceilingSlack = 1.15 // a sample above this share of the ceiling disproves the model
	nicBusy      = 0.85 // of link speed or qdisc rate
	tcpLimited   = 0.50 // share of the time a stream's sending waited for its send buffer or the peer's window
	memStall     = 0.10 // PSI memory some
	nfsdBusy     = 0.85 // an nfsd thread pool this busy is saturated (nfsdQueued)
)

// nfsdQueued is the share of the work handed to a pool of n nfsd threads
// that finds every thread busy when the pool is busy nfsdBusy of the time:
// Erlang C, the chance that an arrival must wait in an M/M/n queue at
// that utilization (n = 1: 0.85; 8: 0.57; 16: 0.43). A single thread busy
// 85% makes 85% of the requests wait; eight threads at the same 85% leave
// one idle for nearly half of them. Unknown n counts as 1, the strictest.
func nfsdQueued(n int) float64 {
	n = max(n, 1)
	a := float64(n) * nfsdBusy // offered load in threads
	sum, term := 0.0, 1.0      // Σ a^k/k! for k < n; term = a^k/k!
	for k := 0; k < n; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	wait := term / (1 - nfsdBusy)
	return wait / (sum + wait)
}

// Bottlenecks reads the samples of one watch and returns the bottlenecks, the
// most binding first. It is a pure function: the same samples give the
// same answer.
func Bottlenecks(samples []Sample) []Bottleneck { return BottlenecksWith(samples, nil) }

// Ceiling is what nastune's path model (internal/ceiling) says a block
// device's path can carry, and the link that sets it.
type Ceiling struct {
	MBs  float64 // decimal megabytes per second
	Link string  // the path's bottleneck link
	Move string  // what would raise it
}

// BottlenecksWith is Bottlenecks with the modelled ceilings of block devices, by
// name: a device moving data near its path's ceiling is a disk bottleneck
// even when it is not busy all the time (a USB 2.0 bridge, a SATA link
// negotiated down).
func BottlenecksWith(samples []Sample, ceil map[string]Ceiling) []Bottleneck {
	n := float64(len(samples))
	if n == 0 {
		return []Bottleneck{}
	}
	var out []Bottleneck
	out = append(out, threadBottlenecks(samples, n)...)
	out = append(out, cpuBottlenecks(samples, n)...)
	out = append(out, diskBottlenecks(samples, n, ceil)...)
	out = append(out, nicBottlenecks(samples, n)...)
	out = append(out, tcpBottlenecks(samples, n)...)
	out = append(out, memBottleneck(samples, n)...)
	out = append(out, cgroupBottlenecks(samples, n)...)
	out = withKernelErrors(out, samples)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if out == nil {
		out = []Bottleneck{}
	}
	return out
}

func r2(v float64) float64 { return round(v) }

func threadBottlenecks(samples []Sample, n float64) []Bottleneck {
	type acc struct {
		t         ThreadSample
		cpu, wait float64
		seen      int
		first     int // index of the first sample that measured it
	}
	m := map[int]*acc{}
	for i, s := range samples {
		for _, t := range s.Threads {
			a := m[t.TID]
			if a == nil || a.t.PID != t.PID {
				a = &acc{t: t, first: i}
				m[t.TID] = a
			}
			a.cpu += t.CPUPct / 100
			a.wait += t.WaitPct / 100
			a.seen++
		}
	}
	var out []Bottleneck
	perProc := map[int]int{}
	contended := 0
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		return a.cpu+a.wait > b.cpu+b.wait || (a.cpu+a.wait == b.cpu+b.wait && keys[i] < keys[j])
	})
	for _, k := range keys {
		a := m[k]
		// Threads are measured from the interval after their process was
		// first seen busy; average over the intervals since then.
		tn := n - float64(a.first)
		cpu, wait := a.cpu/tn, a.wait/tn
		if cpu < threadBusy && cpu+wait < threadDemand {
			continue
		}
		if perProc[a.t.PID]++; perProc[a.t.PID] > 3 {
			continue
		}
		// A thread that wanted a core but mostly waited for one is a
		// symptom of oversubscribed CPUs: it ranks below resources that
		// are themselves at their limit, and only the first few are named.
		score := cpu
		if cpu < threadBusy {
			if contended++; contended > 3 {
				continue
			}
			score = 0.8 * min(1, cpu+wait)
		}
		name := a.t.Comm
		proc := ""
		if a.t.ProcessComm != "" && a.t.ProcessComm != a.t.Comm {
			proc = fmt.Sprintf(" of process %s", a.t.ProcessComm)
		}
		b := Bottleneck{Kind: "cpu", Subject: name, PID: a.t.PID, TID: a.t.TID, Utilization: r2(cpu), Rate: r2(cpu), Limit: 1, Unit: "cores",
			Score: score,
			Evidence: []string{
				fmt.Sprintf("/proc/%d/task/%d/schedstat: thread %s%s ran %.0f%% and waited for a CPU %.0f%% of the time (mean of %.0f samples)",
					a.t.PID, a.t.TID, name, proc, 100*cpu, 100*wait, tn),
			}}
		if cpu >= threadBusy {
			b.Why = fmt.Sprintf("thread %s (pid %d, tid %d) keeps one core busy: a single thread cannot use more than one core, "+
				"so the rest of the machine can be idle while this thread sets the pace", name, a.t.PID, a.t.TID)
		} else {
			b.Why = fmt.Sprintf("thread %s (pid %d, tid %d) wanted a whole core but got %.0f%% of one: it waited %.0f%% of the time "+
				"in a run queue, so the CPUs are oversubscribed by other work", name, a.t.PID, a.t.TID, 100*cpu, 100*wait)
		}
		if cpu >= threadBusy {
			b.Next = threadNext(name, a.t.ProcessComm, a.t.TID)
		} else {
			b.Next = "more threads are runnable than there are cores: stop or reschedule competing work, or give this one a larger share (nice, CPU affinity, a cgroup cpu.weight)"
		}
		out = append(out, b)
	}
	return out
}

// threadAdvice says what to try for a CPU-bound thread, by what it is:
// the first entry whose in is part of "process thread" (the process's
// and the thread's names), or whose prefix (and infix) begins (and is
// part of) the thread's own name.
var threadAdvice = []struct{ in, prefix, infix, next string }{
	{in: "smbd", next: "smbd serves one client connection per process: check crypto and signing (audit: smb-crypto-without-aes, crypto-aes-not-accelerated, smb-sendfile-off), enable SMB multichannel (smb-multichannel-off), then `nastune tune`"},
	{in: "openvpn", next: "OpenVPN moves every packet through one thread: use an AES-GCM cipher with AES instructions (audit: crypto-aes-not-accelerated) or WireGuard; `nastune calc vpn` for the MTU/MSS"},
	{in: "sshd", prefix: "ssh", next: sshNext},
	{in: "rsync", next: "rsync checksums in one thread: use --whole-file on a LAN, and an rsync daemon or NFS instead of rsync over SSH"},
	{prefix: "md", infix: "_raid", next: "the md parity thread is single-threaded: raise group_thread_cnt and the stripe cache (audit: md-stripe-cache), then `nastune tune`"},
	{prefix: "z_", next: "ZFS I/O pipeline thread: check compression and checksum algorithms of the dataset and the pool layout (audit: zfs-*)"},
	{prefix: "kcryptd", next: cryptNext},
	{prefix: "dmcrypt", next: cryptNext},
	{prefix: "ksoftirqd", next: "packet processing overflowed into ksoftirqd: spread it with RSS/RPS (audit: nic-coalesce-single-core, net-softnet-squeeze)"},
	{prefix: "nfsd", next: "nfsd thread busy: audit: nfs-threads-low; check the export and the disks behind it"},
}

const (
	sshNext   = "SSH encrypts a session in one thread: use aes128-gcm@openssh.com where the CPU has AES instructions (audit: crypto-aes-not-accelerated), or copy over NFS/SMB/rsync daemon instead of scp/sftp"
	cryptNext = "dm-crypt encryption is bound to a core: audit: crypto-aes-not-accelerated, crypto-dmcrypt-workqueue"
)

// threadNext says what to try for a CPU-bound thread, by what it is
// (threadAdvice), else how to profile it.
func threadNext(comm, proc string, tid int) string {
	c := comm
	if proc != "" {
		c = proc + " " + comm
	}
	for _, a := range threadAdvice {
		if a.in != "" && strings.Contains(c, a.in) ||
			a.prefix != "" && strings.HasPrefix(comm, a.prefix) && strings.Contains(comm, a.infix) {
			return a.next
		}
	}
	return fmt.Sprintf("profile the thread (perf top -t %d) and look for a way to split the work over more threads or processes", tid)
}

func cpuBottlenecks(samples []Sample, n float64) []Bottleneck {
	var out []Bottleneck
	busy, steal := 0.0, 0.0
	irq := map[int]float64{}
	cores := 0
	for _, s := range samples {
		busy += s.CPU.BusyPct / 100
		cores = max(cores, len(s.CPU.Cores))
		st := 0.0
		for _, c := range s.CPU.Cores {
			irq[c.CPU] += (c.IRQPct + c.SoftIRQPct) / 100
			st += c.StealPct / 100
		}
		if len(s.CPU.Cores) > 0 {
			steal += st / float64(len(s.CPU.Cores))
		}
	}
	busy, steal = busy/n, steal/n
	psi := 0.0
	for _, s := range samples {
		psi += s.PSI.CPUSomePct
	}
	psi /= n
	if busy >= allBusy {
		ev := []string{fmt.Sprintf("/proc/stat: %d CPUs %.0f%% busy on average", cores, 100*busy), fmt.Sprintf("/proc/pressure/cpu: some %.0f%% of the time", psi)}
		if top := topProcesses(samples, n, 3); top != "" {
			ev = append(ev, "busiest processes (share of one core, threads sampled): "+top)
		}
		out = append(out, Bottleneck{Kind: "cpu", Subject: "all CPUs", Utilization: r2(busy), Rate: r2(busy * float64(cores)), Limit: float64(cores), Unit: "cores",
			Score:    busy,
			Evidence: ev,
			Why:      "every CPU is busy and runnable tasks wait for one: work is queuing for CPU time",
			Next:     "find the consumers (the threads listed in the samples); stop or reschedule competing jobs, or move work (compression, encryption, checksums) off this machine"})
	}
	if steal >= stealShare {
		out = append(out, Bottleneck{Kind: "cpu", Subject: "hypervisor steal", Utilization: r2(steal), Rate: r2(steal), Limit: 1, Unit: "share",
			Score:    0.8 + steal,
			Evidence: []string{fmt.Sprintf("/proc/stat: steal %.0f%% of CPU time", 100*steal)},
			Why:      "the hypervisor ran other guests on this VM's CPUs: the VM gets less CPU than it has",
			Next:     "ask for dedicated or more vCPUs; this is outside the guest's control"})
	}
	var sq, dr, pk, enq, wk float64
	threads := 0
	for _, s := range samples {
		sq += s.Softnet.SqueezedPerS
		dr += s.Softnet.DroppedPerS
		if s.NFSd != nil {
			pk += s.NFSd.PacketsPerS
			enq += s.NFSd.EnqueuedPerS
			wk += s.NFSd.WokenPerS
			threads = max(threads, s.NFSd.Threads)
		}
	}
	sq, dr = sq/n, dr/n
	if u, handed := NoIdleShare(pk, enq, wk); u >= nfsdQueued(threads) && handed/n >= 10 {
		ev := fmt.Sprintf("/proc/fs/nfsd/pool_stats: %.0f hand-overs/s to the nfsd threads, %.0f%% found no idle thread (packets-arrived %.0f/s, sockets-enqueued %.0f/s, threads-woken %.0f/s); a pool of %d busy %.0f%% of the time leaves %.0f%% waiting (Erlang C)",
			handed/n, 100*u, pk/n, enq/n, wk/n, max(threads, 1), 100*nfsdBusy, 100*nfsdQueued(threads))
		if threads > 0 {
			ev += fmt.Sprintf("; /proc/fs/nfsd/threads: %d", threads)
		}
		if busy >= allBusy && len(out) > 0 && out[0].Subject == "all CPUs" {
			// Every CPU busy: the threads are busy waiting for CPU time,
			// theirs or that of the work they wait for (the client's
			// reads of its socket, the disk's completions); more threads
			// would queue for the same CPUs.
			out[0].Evidence = append(out[0].Evidence, ev+": every CPU was busy meanwhile, so more nfsd threads would wait for the same CPUs")
		} else {
			out = append(out, Bottleneck{Kind: "cpu", Subject: "nfsd threads", Utilization: r2(u), Rate: r2(u * handed / n), Limit: r2(handed / n), Unit: "requests/s",
				Score:    0.85 + u/10,
				Evidence: []string{ev},
				Why:      "NFS requests wait for a free nfsd thread while the CPUs have time to spare: the thread count, not a CPU, sets the pace (each thread serves one request at a time, waiting for the disk included)",
				Next:     "raise the number of nfsd threads (audit: nfs-threads-low), then `nastune tune`; if the threads are all waiting on disks, the disk verdicts apply first"})
		}
	}
	ids := make([]int, 0, len(irq))
	for c := range irq {
		ids = append(ids, c)
	}
	sort.Ints(ids)
	for _, c := range ids {
		v := irq[c] / n
		if v < coreIRQ {
			continue
		}
		out = append(out, Bottleneck{Kind: "cpu", Subject: fmt.Sprintf("cpu%d interrupts", c), Utilization: r2(v), Rate: r2(v), Limit: 1, Unit: "cores",
			Score: v,
			Evidence: []string{fmt.Sprintf("/proc/stat: cpu%d spent %.0f%% in irq+softirq", c, 100*v),
				fmt.Sprintf("/proc/net/softnet_stat: %.0f packets dropped/s, %.0f budget squeezes/s (all CPUs)", dr, sq)},
			Why:  "one CPU handles the interrupts and packet processing of a busy device: it runs out before the others are used",
			Next: "spread interrupts and packets over CPUs (RSS queues, RPS, irqbalance) (audit: nic-coalesce-single-core, net-softnet-squeeze, net-softnet-drops)"})
	}
	return out
}

// qd1 reports a one-request-at-a-time workload that keeps a disk busy a
// large share of the time: the mean number in flight (the queue depth,
// which Little's law makes IOPS × await) matches the busy share, i.e. one
// request whenever the disk is busy, and the two measurements agree.
func qd1(util, qd, iops, awaitMS float64) bool {
	if util < diskQD1Busy || iops < diskQD1IOPS || qd <= 0 {
		return false
	}
	little := iops * awaitMS / 1000
	return qd/util >= 0.8 && qd/util <= 1.25 && little >= 0.8*qd && little <= 1.25*qd
}

// seekBound: the device's busy time can be blamed on seeks. A device
// with nothing below it seeks when it reports itself rotational; a
// stacked one (md, dm, loop) when a lowest layer under it is rotational
// and itself busy (≥ diskBusy): a rotating disk idle under a busy dm-delay
// or dm-crypt device is not what makes each request slow (the layer's own
// latency is), and virtio disks report themselves rotational whatever
// backs them. info gives a device's rotational flag, busy share and the
// devices below it (ok false: not sampled).
func seekBound(dev string, info func(string) (rot bool, util float64, below []string)) bool {
	rot, _, below := info(dev)
	if len(below) == 0 {
		return rot
	}
	seen := map[string]bool{dev: true}
	var walk func(d string) bool
	walk = func(d string) bool {
		if seen[d] {
			return false
		}
		seen[d] = true
		rot, util, below := info(d)
		if len(below) == 0 {
			return rot && util >= diskBusy
		}
		for _, b := range below {
			if walk(b) {
				return true
			}
		}
		return false
	}
	for _, b := range below {
		if walk(b) {
			return true
		}
	}
	return false
}

func diskBottlenecks(samples []Sample, n float64, ceil map[string]Ceiling) []Bottleneck {
	type acc struct {
		util, rbps, wbps, riops, wiops, await, qd, req float64
		peak                                           float64 // highest bytes/s of one sample
		last                                           DiskSample
	}
	m := map[string]*acc{}
	for _, s := range samples {
		for _, d := range s.Disks {
			a := m[d.Name]
			if a == nil {
				a = &acc{}
				m[d.Name] = a
			}
			a.util += d.UtilPct / 100
			a.rbps += d.ReadBps
			a.wbps += d.WriteBps
			a.peak = max(a.peak, d.ReadBps+d.WriteBps)
			a.riops += d.ReadIOPS
			a.wiops += d.WriteIOPS
			a.await += d.AwaitMS
			a.qd += d.QueueDepth
			a.req += d.AvgReqKiB
			a.last = d
		}
	}
	sat := map[string]bool{}
	atCeil := map[string]float64{} // share of the modelled ceiling in use
	for name, a := range m {
		// A device that moved clearly more than its modelled ceiling in
		// some interval shows the model is wrong for it (a virtio or
		// hardware-RAID disk that reports itself rotational): no ceiling
		// verdict then, only its busy time counts.
		if c, ok := ceil[name]; ok && c.MBs > 0 && a.peak <= ceilingSlack*c.MBs*1e6 {
			if u := (a.rbps + a.wbps) / n / (c.MBs * 1e6); u >= diskCeiling {
				atCeil[name] = u
				sat[name] = true
			}
		}
		if a.util/n >= diskBusy || qd1(a.util/n, a.qd/n, (a.riops+a.wiops)/n, a.await/n) {
			sat[name] = true
		}
	}
	// above[x] lists devices stacked on x.
	above := map[string][]string{}
	for name, a := range m {
		for _, b := range a.last.Below {
			above[b] = append(above[b], name)
		}
	}
	names := make([]string, 0, len(sat))
	for name := range sat {
		names = append(names, name)
	}
	sort.Strings(names)
	done := map[string]bool{}
	var out []Bottleneck
	for _, name := range names {
		if done[name] {
			continue
		}
		// Walk down to the lowest saturated device as busy as this one;
		// a lower device clearly less busy is not the limit.
		subj := name
		down := map[string]bool{subj: true} // the walk's devices: a cycle in Below ends it
		// A loop device's backing disk also carries the rest of the host's
		// filesystem: the loop device stays its own subject (the disk below
		// is evidence, and a verdict of its own when saturated). md and dm
		// members are dedicated to the array: the busiest one is named.
		// The kind is blockdev's, recorded in the sample, not the name's.
		for m[subj].last.Kind != blockdev.Loop {
			next := ""
			for _, b := range m[subj].last.Below {
				if sat[b] && !down[b] && m[b].util >= m[subj].util-0.05*n {
					next = b
				}
			}
			if next == "" {
				break
			}
			subj = next
			down[subj] = true
		}
		// Walk up: every device stacked above the subject (several loop
		// devices or arrays can share one disk), top layers first.
		var ups []string
		seen := map[string]bool{subj: true}
		for layer := []string{subj}; len(layer) > 0; {
			var next []string
			for _, d := range layer {
				for _, u := range above[d] {
					if !seen[u] {
						seen[u] = true
						next = append(next, u)
					}
				}
			}
			sort.Strings(next)
			ups = append(append([]string{}, next...), ups...)
			layer = next
		}
		stack := append(ups, subj)
		for _, d := range stack {
			done[d] = true
		}
		a := m[subj]
		util, await, qd, req := a.util/n, a.await/n, a.qd/n, a.req/n
		iops := (a.riops + a.wiops) / n
		bps := (a.rbps + a.wbps) / n
		b := Bottleneck{Kind: "disk", Subject: subj, Utilization: r2(util), Rate: r2(bps), Unit: "bytes/s", Score: util,
			QueueDepth: r2(qd), AwaitMS: r2(await),
			Evidence: []string{fmt.Sprintf("/proc/diskstats %s: %.0f%% busy, %.0f IOPS, %s, %.1f KiB per request, await %.2f ms, queue depth %.2f",
				subj, 100*util, iops, units.MBsOfBytes(bps), req, await, qd)}}
		if len(stack) > 1 {
			b.Stack = stack
			for _, d := range stack {
				if d == subj {
					continue
				}
				if x, ok := m[d]; ok {
					b.Evidence = append(b.Evidence, fmt.Sprintf("/proc/diskstats %s (stacked): %.0f%% busy, %.0f IOPS, await %.2f ms",
						d, 100*x.util/n, (x.riops+x.wiops)/n, x.await/n))
				}
			}
		}
		for _, d := range a.last.Below {
			if x, ok := m[d]; ok && len(b.Stack) == 0 {
				b.Evidence = append(b.Evidence, fmt.Sprintf("/proc/diskstats %s (below %s): %.0f%% busy, %.0f IOPS, await %.2f ms",
					d, subj, 100*x.util/n, (x.riops+x.wiops)/n, x.await/n))
			}
		}
		if u, ok := atCeil[subj]; ok {
			c := ceil[subj]
			b.Utilization, b.Limit, b.Score = r2(max(u, util)), c.MBs*1e6, max(u, util)
			b.Evidence = append(b.Evidence, fmt.Sprintf("path model: %s can carry %s, set by %s; it moved %s (%.0f%%)",
				subj, units.MBs(c.MBs), c.Link, units.MBsOfBytes(bps), 100*u))
			b.Why = fmt.Sprintf("%s moves %.0f%% of what its path can carry (%s of %s): %s sets the pace, not the disk's busy time",
				subj, 100*u, units.MBsOfBytes(bps), units.MBs(c.MBs), c.Link)
			b.Next = "raise the path's ceiling: " + c.Move + " (audit: bus-usb3-bridge-on-usb2, bus-usb-storage-not-uas, bus-sata-link-slow, bus-pcie-link-degraded, bus-shared-link-oversubscribed)"
			out = append(out, b)
			continue
		}
		if last := samples[len(samples)-1]; len(last.MD) > 0 {
			for _, md := range last.MD {
				b.Evidence = append(b.Evidence, fmt.Sprintf("/proc/mdstat: %s %s %.1f%% done at %d KiB/s: it competes for the same disks (audit: md-rebuild-capped)", // units:input: mdstat's own unit
					md.Name, md.Action, md.Percent, md.SpeedKiBs))
			}
		}
		// A loop, md or dm device reports its own rotational flag; what
		// seeks is the device below it.
		rot := a.last.Rotational
		if len(a.last.Below) > 0 {
			rot = false
			for _, d := range a.last.Below {
				rot = rot || m[d] != nil && m[d].last.Rotational
			}
		}
		seeks := seekBound(subj, func(d string) (bool, float64, []string) {
			x := m[d]
			if x == nil {
				return false, 0, nil
			}
			return x.last.Rotational, x.util / n, x.last.Below
		})
		switch {
		case util < diskBusy && qd1(util, qd, iops, await):
			b.Why = fmt.Sprintf("%s serves one request at a time: %.0f IOPS × %.2f ms = %.2f requests in flight on average (Little's law), "+
				"the same as its %.0f%% busy time, so whenever it is busy exactly one request waits; each I/O waits for the one before and "+
				"the remaining %.0f%% is the issuer's own time between requests: throughput is bound by the disk's latency, not its capacity",
				subj, iops, await, iops*await/1000, 100*util, 100*(1-util))
			if !rot {
				b.Why += "; a solid-state device could serve more requests at once"
			}
			b.Next = "raise the parallelism of the workload (more threads or async I/O, fewer fsyncs), larger requests and readahead for sequential reads (audit: blk-read-ahead, blk-scheduler); `nastune bench disk` shows what the device can do at higher queue depth"
		case qd < 1.5:
			b.Why = fmt.Sprintf("%s always has a request in flight but rarely more than one (queue depth %.1f): each I/O waits for the one before, "+
				"so throughput is latency-bound (%.2f ms × %.0f IOPS ≈ the whole second)", subj, qd, await, iops)
			if !rot {
				b.Why += "; a solid-state device could serve more requests at once"
			}
			b.Next = "raise the parallelism of the workload (more threads or async I/O), larger requests and readahead for sequential reads (audit: blk-read-ahead, blk-scheduler); `nastune bench disk` shows what the device can do at higher queue depth"
		default:
			if seeks {
				b.Why = fmt.Sprintf("%s is busy all the time with %.1f requests queued on average and %.2f ms per request: the device is saturated", subj, qd, await)
				if req < 64 {
					b.Why += "; small requests on a rotating disk are seek-bound"
				}
			} else {
				// Not a rotating disk that is itself busy (an SSD, or a
				// layer such as dm-delay or a network block device over
				// an idle disk): no seeks to blame, only what was
				// measured.
				b.Why = fmt.Sprintf("%s is busy all the time with %.1f requests queued on average: latency-bound at queue depth %.1f (%.2f ms per request)", subj, qd, qd, await)
			}
			b.Next = "spread the load over more devices or use faster ones; check the I/O scheduler, stripe geometry and md stripe cache (audit: blk-scheduler, fs-stripe-geometry, md-stripe-cache, bus-bench-vs-ceiling), then `nastune tune`"
		}
		out = append(out, b)
	}
	return out
}

func nicBottlenecks(samples []Sample, n float64) []Bottleneck {
	type acc struct {
		rx, tx, over, drops, retrans float64
		last                         NICSample
	}
	m := map[string]*acc{}
	retrans := 0.0
	for _, s := range samples {
		retrans += s.TCP.RetransPct
		for _, x := range s.NICs {
			a := m[x.Name]
			if a == nil {
				a = &acc{}
				m[x.Name] = a
			}
			a.rx += x.RxBps
			a.tx += x.TxBps
			a.over += x.OverlimitsPS
			a.drops += x.DropsPerS
			a.last = x
		}
	}
	retrans /= n
	var out []Bottleneck
	for _, name := range slices.Sorted(maps.Keys(m)) {
		a := m[name]
		rx, tx := a.rx/n, a.tx/n
		l := a.last
		var b Bottleneck
		switch {
		case l.QdiscRateBps > 0 && tx/l.QdiscRateBps >= nicBusy:
			u := tx / l.QdiscRateBps
			b = Bottleneck{Kind: "network", Subject: name, Utilization: r2(u), Rate: r2(tx), Limit: l.QdiscRateBps, Unit: "bits/s", Score: u,
				Evidence: []string{
					fmt.Sprintf("/proc/net/dev %s: sending %s", name, units.BitRate(tx)),
					fmt.Sprintf("netlink qdisc %s on %s: rate %s, %.0f overlimits/s, %.0f drops/s, backlog %d bytes", l.Qdisc, name, units.BitRate(l.QdiscRateBps), a.over/n, a.drops/n, l.Backlog)},
				Why: fmt.Sprintf("the %s qdisc on %s shapes egress to %s and the traffic runs at %.0f%% of that rate: the shaper, not the link, sets the speed",
					l.Qdisc, name, units.BitRate(l.QdiscRateBps), 100*u),
				Next: fmt.Sprintf("if the shaping is not intended, look at it with `tc -s qdisc show dev %s` and raise or remove it; a shaper below the link rate is usually an ISP/VPN setting applied to the LAN too", name)}
			if l.SpeedBps > 0 {
				b.Evidence = append(b.Evidence, fmt.Sprintf("/sys/class/net/%s/speed: link %s", name, units.BitRate(l.SpeedBps)))
			}
		case l.SpeedBps > 0 && max(rx, tx)/l.SpeedBps >= nicBusy:
			r := max(rx, tx)
			dir := "receiving"
			if tx > rx {
				dir = "sending"
			}
			u := r / l.SpeedBps
			b = Bottleneck{Kind: "network", Subject: name, Utilization: r2(u), Rate: r2(r), Limit: l.SpeedBps, Unit: "bits/s", Score: u,
				Evidence: []string{fmt.Sprintf("/proc/net/dev %s: %s %s", name, dir, units.BitRate(r)), fmt.Sprintf("/sys/class/net/%s/speed: link %s", name, units.BitRate(l.SpeedBps))},
				Why:      fmt.Sprintf("%s carries %.0f%% of its link speed: the link is full", name, 100*u),
				Next:     "a faster link, or more links (bonding with several clients, SMB multichannel); check the negotiated speed (audit: nic-link-slow, nic-link-below-supported, bond-single-stream, smb-multichannel-off)"}
		default:
			continue
		}
		if retrans > 0 {
			b.Evidence = append(b.Evidence, fmt.Sprintf("/proc/net/snmp: %.2f%% of TCP segments retransmitted", retrans))
		}
		out = append(out, b)
	}
	return out
}

func memBottleneck(samples []Sample, n float64) []Bottleneck {
	var some, full, scan, steal, refault float64
	avail, total := uint64(0), uint64(0)
	psi := false
	for _, s := range samples {
		some += s.PSI.MemSomePct / 100
		full += s.PSI.MemFullPct / 100
		psi = psi || s.PSI.Available
		scan += s.Memory.PgScanPerS
		steal += s.Memory.PgStealPerS
		refault += s.Memory.RefaultPerS
		avail, total = s.Memory.AvailableBytes, s.Memory.TotalBytes
	}
	some, full, scan, steal, refault = some/n, full/n, scan/n, steal/n, refault/n
	if !psi || some < memStall {
		return nil
	}
	b := Bottleneck{Kind: "memory", Subject: "memory", Utilization: r2(some), Rate: r2(some), Limit: 1, Unit: "share of time stalled",
		Score: 0.85 + some + full,
		Evidence: []string{
			fmt.Sprintf("/proc/pressure/memory: some %.0f%%, full %.0f%% of the time", 100*some, 100*full),
			fmt.Sprintf("/proc/vmstat: %.0f pages scanned/s, %.0f reclaimed/s, %.0f refaults/s", scan, steal, refault),
			fmt.Sprintf("/proc/meminfo: %d MiB available of %d MiB", avail>>20, total>>20)},
		Why: fmt.Sprintf("tasks stalled waiting for memory %.0f%% of the time (reclaim and refaults of evicted pages): "+
			"the working set does not fit in the memory it may use, so the kernel keeps evicting what it needs next", 100*some),
		Next: "find what holds the memory (ZFS ARC, tmpfs, a memory limit on the service's cgroup) (audit: zfs-arc-small-box, net-tcp-buffers-ram); reduce it or add RAM"}
	return []Bottleneck{b}
}

// topProcesses names the k processes whose sampled threads used the most
// CPU, averaged over the samples.
func topProcesses(samples []Sample, n float64, k int) string {
	type acc struct {
		comm string
		cpu  float64
	}
	m := map[int]*acc{}
	for _, s := range samples {
		for _, t := range s.Threads {
			a := m[t.PID]
			if a == nil {
				a = &acc{comm: t.ProcessComm}
				m[t.PID] = a
			}
			a.cpu += t.CPUPct / n
		}
	}
	pids := make([]int, 0, len(m))
	for p := range m {
		pids = append(pids, p)
	}
	sort.Slice(pids, func(i, j int) bool {
		return m[pids[i]].cpu > m[pids[j]].cpu || (m[pids[i]].cpu == m[pids[j]].cpu && pids[i] < pids[j])
	})
	var parts []string
	for i, p := range pids {
		if i == k {
			break
		}
		parts = append(parts, fmt.Sprintf("%s (pid %d) %.0f%%", m[p].comm, p, m[p].cpu))
	}
	return strings.Join(parts, ", ")
}

// tcpBottlenecks names the TCP streams whose sending was held back, most
// of the watch, by their own send buffer or by the peer's receive window
// (tcp_info chronographs): at their RTT the buffer, not the link, sets
// the rate (rate = window ÷ RTT).
func tcpBottlenecks(samples []Sample, n float64) []Bottleneck {
	type acc struct {
		tx, rtt, snd, rwnd float64
		seen               float64
		local, remote      string
	}
	m := map[string]*acc{}
	for _, s := range samples {
		for _, st := range s.TCP.Streams {
			if !st.Limits {
				continue
			}
			k := st.Local + " " + st.Remote
			a := m[k]
			if a == nil {
				a = &acc{local: st.Local, remote: st.Remote}
				m[k] = a
			}
			a.tx += st.TxBps
			a.rtt += st.RTTms
			a.snd += st.SndbufLimitedPct / 100
			a.rwnd += st.RwndLimitedPct / 100
			a.seen++
		}
	}
	var out []Bottleneck
	for _, k := range slices.Sorted(maps.Keys(m)) {
		a := m[k]
		snd, rwnd := a.snd/n, a.rwnd/n // absent intervals count as not limited
		if max(snd, rwnd) < tcpLimited {
			continue
		}
		tx, rtt := a.tx/a.seen, a.rtt/a.seen
		inflight := tx / 8 * rtt / 1000 // bytes in flight: rate × RTT
		subj := "tcp " + a.local + " → " + a.remote
		b := Bottleneck{Kind: "network", Subject: subj, Utilization: r2(max(snd, rwnd)), Rate: r2(tx), Unit: "bits/s", Score: max(snd, rwnd),
			Evidence: []string{fmt.Sprintf("netlink inet_diag tcp_info %s → %s: %s, RTT %.2f ms, send-buffer-limited %.0f%% and receive-window-limited %.0f%% of the time",
				a.local, a.remote, units.BitRate(tx), rtt, 100*snd, 100*rwnd)}}
		if snd >= rwnd {
			b.Why = fmt.Sprintf("the stream %s → %s waited for its own send buffer %.0f%% of the time: about %s in flight at a %.2f ms RTT gives %s (rate = window ÷ RTT); the link is not what limits it",
				a.local, a.remote, 100*snd, units.Bytes(uint64(inflight)), rtt, units.BitRate(tx))
			b.Next = "raise the sender's buffer: the maximum of net.ipv4.tcp_wmem (audit: net-tcp-buffers-small; nastune calc tcp for the size at this RTT), and remove a fixed SO_SNDBUF (Samba `socket options`) that stops autotuning"
		} else {
			b.Why = fmt.Sprintf("the stream %s → %s waited for the peer's receive window %.0f%% of the time: about %s in flight at a %.2f ms RTT gives %s (rate = window ÷ RTT); the receiver, not the link, limits it",
				a.local, a.remote, 100*rwnd, units.Bytes(uint64(inflight)), rtt, units.BitRate(tx))
			b.Next = "on the receiving host " + a.remote + ": raise the maximum of net.ipv4.tcp_rmem (or the client OS's receive window), and check that the receiving application reads as fast as data arrives"
		}
		out = append(out, b)
	}
	return out
}
