package bench

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/units"
	"github.com/nastune/nastune/internal/watch/wire"
)

// ShareTCP is raw TCP between this client and the share's host, measured
// in the same run against `nastune bench net -s` there.
type ShareTCP struct {
	Server string `json:"server"`
	// Up is client → server (what seqwrite crosses), Down server → client
	// (seqread), in bits per second.
	UpBitsPerSecond   float64 `json:"up_bits_per_second"`
	DownBitsPerSecond float64 `json:"down_bits_per_second"`
	Streams           int     `json:"streams"`
	Seconds           float64 `json:"seconds"`
}

// ShareLimit is the verdict for one test: which layer holds it back.
type ShareLimit struct {
	Test string `json:"test"`
	// Layer is network, server-cpu, disk, protocol or client; or
	// beyond-network when raw TCP was measured but the server's sampling
	// was not available.
	Layer    string   `json:"layer"`
	Subject  string   `json:"subject"`
	Why      string   `json:"why"`
	Evidence []string `json:"evidence"`
}

// Thresholds of the share verdicts (USE: a resource at this share of its
// limit is saturated).
const (
	// NetworkShare is the share of raw TCP from which a share test is
	// called network-bound.
	NetworkShare = 0.85
	// ServingThreadBusy is the share of one core from which a serving
	// thread (smbd, nfsd) is the limit.
	ServingThreadBusy = 85.0
	// ClientBusy is the share of all the client's cores from which the
	// client is the limit.
	ClientBusy = 85.0
	// MinSampled is the sampled time below which the server's view of a
	// test is not judged (two intervals).
	MinSampled = 1.0
)

// shareLimits judges every test: a pure function of the result (tests,
// raw TCP, the server's views) and the session. In order: the network
// (the share moves ≥ NetworkShare of raw TCP in its direction, or the
// server's NIC or shaper is full), then what the server saw saturated
// for the share — a serving thread or its cgroup's CPU quota
// (server-cpu), a backing device or its cgroup's I/O limit (disk), the
// more binding first — then the client's own CPU, and when nothing was
// saturated, the protocol: requests in flight × round trip.
func shareLimits(res *ShareResult) []ShareLimit {
	res.ShortTests = nil
	var out []ShareLimit
	host := ""
	if u, err := ParseShareURL(res.URL); err == nil {
		host = u.Host
	}
	for _, t := range res.Tests {
		v := res.Server[t.Name]
		short := ""
		if v != nil && v.Seconds < MinSampled {
			// Too few samples to say what was saturated: no verdict
			// from them (a wrong one is worse than none).
			short = fmt.Sprintf("%s ran %.1f s, too short for the server's sampling (%.1f s sampled; give a larger --size or --files)", t.Name, t.Seconds, v.Seconds)
			v = nil
			res.ShortTests = append(res.ShortTests, short)
		}
		if l, ok := networkLimit(t, res.TCP, host); ok && (l.Layer == "network" || v == nil) {
			if i := strings.Index(l.Why, "; the server's CPU"); l.Layer != "network" && short != "" && i > 0 {
				l.Why = l.Why[:i] + "; which layer beyond it holds the share back is not known: " + short
			}
			out = append(out, l)
			continue
		}
		if v == nil {
			continue
		}
		if l, ok := serverLimit(t, v, res.ShareInfo); ok {
			out = append(out, l)
			continue
		}
		rate := fmt.Sprintf("%s: %s, %.0f operations/s", t.Name, units.MBs(units.MBsOfMiB(t.MiBPerS)), t.IOPS)
		if v.ClientCPUPct >= ClientBusy {
			out = append(out, ShareLimit{Test: t.Name, Layer: "client", Subject: "this client",
				Why:      fmt.Sprintf("nastune on this client used %.0f%% of all its cores during %s while nothing on the server was saturated: the client's CPU sets the pace", v.ClientCPUPct, t.Name),
				Evidence: []string{rate, fmt.Sprintf("getrusage: the client used %.0f%% of its %s", v.ClientCPUPct, "cores")}})
			continue
		}
		out = append(out, protocolLimit(t, v, res, host))
	}
	return out
}

// networkLimit compares a sequential test with raw TCP in its direction.
func networkLimit(t TestResult, tcp *ShareTCP, host string) (ShareLimit, bool) {
	if tcp == nil {
		return ShareLimit{}, false
	}
	var raw float64
	var dir string
	switch t.Name {
	case "seqwrite":
		raw, dir = tcp.UpBitsPerSecond, "client → server"
	case "seqread":
		raw, dir = tcp.DownBitsPerSecond, "server → client"
	default:
		return ShareLimit{}, false
	}
	if raw <= 0 || t.MiBPerS <= 0 {
		return ShareLimit{}, false
	}
	rate := t.MiBPerS * (1 << 20) * 8
	frac := rate / raw
	l := ShareLimit{Test: t.Name, Subject: host, Evidence: []string{
		fmt.Sprintf("%s: %s = %s of payload", t.Name, units.MBs(units.MBsOfMiB(t.MiBPerS)), units.Mbit(rate)),
		fmt.Sprintf("raw TCP %s to %s, %d stream(s), same run: %s", dir, tcp.Server, tcp.Streams, units.Mbit(raw)),
	}}
	if frac > 1/NetworkShare {
		// The share moved clearly more than raw TCP in the same
		// direction: the one raw stream was held back by something the
		// share's connections were not (its window, the CPU of one
		// stream), so it is no ceiling to judge the share by.
		return ShareLimit{}, false
	}
	if frac >= NetworkShare {
		l.Layer = "network"
		l.Why = fmt.Sprintf("the share moves %.0f%% of what raw TCP moves %s: the network is the limit", frac*100, dir)
	} else {
		l.Layer = "beyond-network"
		l.Why = fmt.Sprintf("the share moves %.0f%% of raw TCP %s: the network is not the limit; the server's CPU, its disks or the protocol (requests in flight × round trip) hold it back, and naming which needs the server's sampling (`nastune bench net -s` on %s, reachable during the tests)", frac*100, dir, host)
	}
	return l, true
}

// serverLimit picks, from what the server saw, the most binding
// saturated resource of the share: its NIC or shaper, a serving thread or
// its cgroup's CPU quota, a backing device or its cgroup's I/O limit.
func serverLimit(t TestResult, v *ShareServerView, info ShareInfo) (ShareLimit, bool) {
	type cand struct {
		u float64
		l ShareLimit
	}
	var cs []cand
	rate := fmt.Sprintf("%s: %s, %.0f operations/s", t.Name, units.MBs(units.MBsOfMiB(t.MiBPerS)), t.IOPS)
	samples := fmt.Sprintf("the server sampled %d intervals over %.1f s", v.Samples, v.Seconds)
	onShare := func(dev string) bool {
		if len(v.Devices) == 0 {
			return false
		}
		for _, d := range v.Devices {
			if d == dev {
				return true
			}
		}
		return false
	}
	for _, b := range v.Bottlenecks {
		ev := append([]string{rate, samples}, b.Evidence...)
		switch {
		case b.Kind == "network" && !strings.HasPrefix(b.Subject, "tcp "):
			cs = append(cs, cand{b.Utilization, ShareLimit{Test: t.Name, Layer: "network", Subject: b.Subject, Why: b.Why, Evidence: ev}})
		case b.Kind == "cpu" && b.Cgroup != "":
			// The serving processes' own cgroup (the server follows only those).
			cs = append(cs, cand{b.Utilization, ShareLimit{Test: t.Name, Layer: "server-cpu", Subject: b.Subject,
				Why: b.Why + "; " + cpuCost(info, v, ""), Evidence: ev}})
		case b.Kind == "cpu" && b.Subject == "nfsd threads":
			why, th := b.Why, strings.TrimSpace(v.Settings["nfsd threads"])
			switch {
			case th == "1":
				why += "; the cost is one nfsd thread: it serves every request in turn, waiting for each disk read, while the others queue"
			case th != "":
				why += fmt.Sprintf("; the cost is nfsd's %s threads: every one was serving a request", th)
			}
			if th != "" && !strings.Contains(strings.Join(ev, "\n"), "/proc/fs/nfsd/threads") {
				ev = append(ev, "/proc/fs/nfsd/threads: "+th)
			}
			cs = append(cs, cand{b.Utilization, ShareLimit{Test: t.Name, Layer: "server-cpu", Subject: b.Subject, Why: why, Evidence: ev}})
		case b.Kind == "disk" && b.Cgroup != "" && (onShare(b.Subject) || len(v.Devices) == 0):
			cs = append(cs, cand{b.Utilization, ShareLimit{Test: t.Name, Layer: "disk", Subject: b.Subject + " (cgroup " + b.Cgroup + ")", Why: b.Why, Evidence: ev}})
		case b.Kind == "disk" && b.Cgroup == "":
			hit := onShare(b.Subject)
			for _, d := range b.Stack {
				hit = hit || onShare(d)
			}
			if hit {
				cs = append(cs, cand{b.Utilization, ShareLimit{Test: t.Name, Layer: "disk", Subject: b.Subject, Why: b.Why,
					Evidence: append(ev, "the share's folder "+v.SharePath+" is on "+strings.Join(v.Devices, " → "))}})
			}
		}
	}
	// The share's own rate against a read or write limit of the serving
	// cgroup on a device under the share: the throttle's utilization even
	// where the cgroup's counters do not count bytes (cgroup v1
	// blkio.throttle.io_service_bytes stays 0 on recent kernels).
	shareBps := t.MiBPerS * (1 << 20)
	for _, cg := range v.Cgroups {
		for _, io := range cg.IO {
			if len(v.Devices) > 0 && !onShare(io.Device) {
				continue
			}
			limit, what := io.LimitRBps, "read"
			if t.Name == "seqwrite" {
				limit, what = io.LimitWBps, "write"
			} else if t.Name != "seqread" {
				continue
			}
			if limit <= 0 || shareBps/limit < NetworkShare {
				continue
			}
			u := shareBps / limit
			cs = append(cs, cand{u, ShareLimit{Test: t.Name, Layer: "disk", Subject: io.Device + " (cgroup " + cg.Path + ")",
				Why: fmt.Sprintf("the serving processes' cgroup %s may %s %.0f bytes/s on %s and the share moved %.0f%% of that: the cgroup's I/O throttle holds it, before the device (which can look idle)",
					cg.Path, what, limit, io.Device, 100*u),
				Evidence: []string{rate, samples, fmt.Sprintf("%s/%s: %s limited to %.0f bytes/s on %s", cg.Path, io.Source, what, limit, io.Device),
					fmt.Sprintf("%s: %.0f bytes/s = %.0f%% of the limit", t.Name, shareBps, 100*u),
					"the share's folder " + v.SharePath + " is on " + strings.Join(v.Devices, " → ")}}})
		}
	}
	// A serving thread that wanted a core but waited for one: the
	// server's CPUs are busy with other work (ranked below a resource at
	// its own limit).
	allBusy := false
	for _, b := range v.Bottlenecks {
		allBusy = allBusy || b.Kind == "cpu" && b.Subject == "all CPUs"
	}
	for _, th := range v.Serving {
		if !allBusy || th.CPUPct >= ServingThreadBusy || th.CPUPct+th.WaitPct < 90 {
			continue
		}
		cs = append(cs, cand{0.8 * min(1, (th.CPUPct+th.WaitPct)/100), ShareLimit{Test: t.Name, Layer: "server-cpu", Subject: "all CPUs of the server",
			Why: fmt.Sprintf("the serving thread %s ran %.0f%% and waited for a CPU %.0f%% of the time: every CPU of the server is busy, other work takes the time %s needs",
				th.Comm, th.CPUPct, th.WaitPct, th.ProcessComm),
			Evidence: []string{rate, samples, fmt.Sprintf("/proc/%d/task/%d/schedstat: %s ran %.0f%% and waited for a CPU %.0f%% of the test (mean)", th.PID, th.TID, th.Comm, th.CPUPct, th.WaitPct)}}})
		break
	}
	// A serving thread at a whole core (the mean over the test).
	for _, th := range v.Serving {
		if th.CPUPct < ServingThreadBusy {
			continue
		}
		cs = append(cs, cand{th.CPUPct / 100, ShareLimit{Test: t.Name, Layer: "server-cpu",
			Subject: fmt.Sprintf("%s thread %s (pid %d, tid %d)", th.ProcessComm, th.Comm, th.PID, th.TID),
			Why: fmt.Sprintf("the serving thread %s ran %.0f%% of one core during %s: one thread cannot use more than one core; %s",
				th.Comm, th.CPUPct, t.Name, cpuCost(info, v, th.ProcessComm)),
			Evidence: []string{rate, samples, fmt.Sprintf("/proc/%d/task/%d/schedstat: %s ran %.0f%% and waited for a CPU %.0f%% of the test (mean)", th.PID, th.TID, th.Comm, th.CPUPct, th.WaitPct)}}})
		break
	}
	if len(cs) == 0 {
		return ShareLimit{}, false
	}
	// nfsd's pool exhausted and a device under the share busy at about
	// the queue depth the pool gives it: both look saturated and their
	// utilizations tie, but the device only answers what the threads
	// issue. It is latency-bound at that depth, so the pool is the limit
	// (more threads raise the device's queue depth); the device's latency
	// is the evidence. A device queued clearly deeper than the threads
	// issue, or at its path's ceiling, stays the verdict.
	pool := -1
	for i, c := range cs {
		if c.l.Layer == "server-cpu" && c.l.Subject == "nfsd threads" {
			pool = i
		}
	}
	if th, err := strconv.Atoi(strings.TrimSpace(v.Settings["nfsd threads"])); pool >= 0 && err == nil && th > 0 {
		p := &cs[pool].l
		drop := map[int]bool{}
		for i, c := range cs {
			b, ok := diskOf(c.l, v)
			if !ok || b.Limit > 0 || b.QueueDepth <= 0 || b.QueueDepth > PoolQueueDepth(th) {
				continue
			}
			drop[i] = true
			threads := fmt.Sprintf("%d threads", th)
			one := fmt.Sprintf("%d requests", th)
			if th == 1 {
				threads, one = "1 thread", "1 request"
			}
			p.Why += fmt.Sprintf("; %s is busy only with what the pool gives it — %s: %s answers %s at a time (queue depth %.1f) at %.1f ms each; more threads raise its queue depth",
				b.Subject, threads, b.Subject, one, b.QueueDepth, b.AwaitMS)
			p.Evidence = append(p.Evidence, fmt.Sprintf("%s: %.0f%% busy at queue depth %.2f, %.2f ms per request: at most about %.0f block requests in flight from %s (%d per thread + %d), so latency-bound at the depth the pool gives it",
				b.Subject, 100*b.Utilization, b.QueueDepth, b.AwaitMS, PoolQueueDepth(th), threads, poolPerThread, poolSlack))
			p.Evidence = append(p.Evidence, b.Evidence...)
		}
		kept := cs[:0:0]
		for i, c := range cs {
			if !drop[i] {
				kept = append(kept, c)
			}
		}
		cs = kept
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].u > cs[j].u })
	return cs[0].l, true
}

// The block requests one nfsd thread keeps in flight: its NFS request
// (a read of up to 1 MiB is split into the device's largest requests)
// and the readahead behind it; the kernel lab's dm-delay device, 20 ms a
// read, ran at queue depth 2.2 under 1 thread and 15.7 under 8. poolSlack
// is the margin of the sampling's averages.
const (
	poolPerThread = 2
	poolSlack     = 1
)

// PoolQueueDepth is the deepest mean queue a pool of th nfsd threads can
// give a device by itself (the kernel lab checks its verdicts with it).
func PoolQueueDepth(th int) float64 { return float64(poolPerThread*th + poolSlack) }

// diskOf is the server's disk bottleneck behind a disk verdict (not a
// cgroup's I/O limit).
func diskOf(l ShareLimit, v *ShareServerView) (wire.Bottleneck, bool) {
	if l.Layer != "disk" || strings.Contains(l.Subject, "(cgroup ") {
		return wire.Bottleneck{}, false
	}
	for _, b := range v.Bottlenecks {
		if b.Kind == "disk" && b.Cgroup == "" && b.Subject == l.Subject {
			return b, true
		}
	}
	return wire.Bottleneck{}, false
}

// cpuCost names what the serving CPU time pays for.
func cpuCost(info ShareInfo, v *ShareServerView, proc string) string {
	var costs []string
	if info.Encryption == "on" {
		costs = append(costs, "encryption (every byte is encrypted and decrypted by the serving process)")
	}
	if info.Signing == "on" {
		costs = append(costs, "signing (every message is hashed)")
	}
	if proc == "nfsd" || info.Protocol == "nfs" {
		if n := strings.TrimSpace(v.Settings["nfsd threads"]); n == "1" {
			costs = append(costs, "one nfsd thread serves every request")
		} else {
			costs = append(costs, "nfsd threads")
		}
	}
	if len(costs) == 0 {
		if info.Protocol == "smb" {
			return "the cost is smbd's own per-connection work (one client connection is served by one smbd process; check sendfile and aio)"
		}
		return "the cost is the serving work itself"
	}
	return "the cost is " + strings.Join(costs, " and ")
}

// protocolLimit: nothing saturated on either end, so the requests in
// flight and their round trip bound the rate (Little's law: rate = bytes
// in flight ÷ time per request).
func protocolLimit(t TestResult, v *ShareServerView, res *ShareResult, host string) ShareLimit {
	ev := []string{fmt.Sprintf("%s: %s, %.0f operations/s, latency p50 %.0f µs, p99 %.0f µs", t.Name, units.MBs(units.MBsOfMiB(t.MiBPerS)), t.IOPS, t.LatUS.P50, t.LatUS.P99),
		fmt.Sprintf("the server sampled %d intervals over %.1f s: no serving thread, cgroup limit, backing device or NIC saturated", v.Samples, v.Seconds)}
	if len(v.Serving) > 0 {
		th := v.Serving[0]
		ev = append(ev, fmt.Sprintf("busiest serving thread: %s %s (pid %d) ran %.0f%% of a core and waited for one %.0f%%", th.ProcessComm, th.Comm, th.PID, th.CPUPct, th.WaitPct))
	}
	busy := ""
	for _, b := range v.Bottlenecks {
		if b.Kind == "cpu" && b.Subject == "all CPUs" {
			ev = append(ev, b.Evidence[0])
			busy = "; the server's CPUs were all busy with other work, so part of each request's time is waiting for a CPU"
		}
	}
	ev = append(ev, fmt.Sprintf("this client used %.0f%% of its cores", v.ClientCPUPct))
	l := ShareLimit{Test: t.Name, Layer: "protocol", Subject: host, Evidence: ev}
	switch t.Name {
	case "seqread", "seqwrite":
		inflight := res.Streams * res.InFlight
		l.Why = fmt.Sprintf("nothing on the server or the client was saturated: %d request(s) of %d KiB in flight (%d stream(s) × %d), each taking %.1f ms from request to answer, bound the rate to about %d × %d KiB ÷ %.1f ms; more in flight raises it: more streams (-P), a larger --bs, SMB multichannel or more clients",
			inflight, res.BlockSize>>10, res.Streams, res.InFlight, t.LatUS.P50/1000, inflight, res.BlockSize>>10, t.LatUS.P50/1000)
	default:
		l.Why = fmt.Sprintf("nothing on the server or the client was saturated: %s runs one request after another per worker (%d worker(s)), so each round trip (%.1f ms at the median) is paid in full; more workers (-P) raise it", t.Name, res.Streams, t.LatUS.P50/1000)
	}
	l.Why += busy
	return l
}
