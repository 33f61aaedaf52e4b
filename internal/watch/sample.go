package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/netlink"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// Sample is what one interval looked like: rates and shares computed from
// two readings of the kernel's cumulative counters.
type Sample struct {
	T        float64        `json:"t_s"`        // seconds since the first reading, at the end of the interval
	Interval float64        `json:"interval_s"` // measured length of this interval
	CPU      CPUSample      `json:"cpu"`
	PSI      PSISample      `json:"psi"`
	Threads  []ThreadSample `json:"threads"` // top consumers, busiest first
	Disks    []DiskSample   `json:"disks"`   // whole devices with I/O, busiest first
	NICs     []NICSample    `json:"nics"`
	TCP      TCPSample      `json:"tcp"`
	Softnet  SoftnetSample  `json:"softnet"`
	Memory   MemSample      `json:"memory"`
	NFSd     *NFSdSample    `json:"nfsd,omitempty"`
	MD       []MDSync       `json:"md,omitempty"`
	// Cgroups are the cgroups of the followed processes (Follow).
	Cgroups []CgroupSample `json:"cgroups,omitempty"`
	Self    SelfSample     `json:"self"`
	// KernelEvents are the storage errors the kernel logged in the
	// interval (kernlog.go).
	KernelEvents []KernelEvent `json:"kernel_events,omitempty"`
}

// CPUSample: percentages of each CPU's time (100 = one whole core).
type CPUSample struct {
	BusyPct float64     `json:"busy_pct"` // average over all CPUs
	Cores   []CoreShare `json:"cores"`
}

// CoreShare splits one CPU's interval.
type CoreShare struct {
	CPU        int     `json:"cpu"`
	BusyPct    float64 `json:"busy_pct"`
	UserPct    float64 `json:"user_pct"`
	SystemPct  float64 `json:"system_pct"`
	IRQPct     float64 `json:"irq_pct"`
	SoftIRQPct float64 `json:"softirq_pct"`
	StealPct   float64 `json:"steal_pct"`
	IOWaitPct  float64 `json:"iowait_pct"`
}

// PSISample is the share of the interval in which some (or all) runnable
// tasks stalled on the resource, from /proc/pressure totals.
type PSISample struct {
	CPUSomePct float64 `json:"cpu_some_pct"`
	IOSomePct  float64 `json:"io_some_pct"`
	IOFullPct  float64 `json:"io_full_pct"`
	MemSomePct float64 `json:"memory_some_pct"`
	MemFullPct float64 `json:"memory_full_pct"`
	Available  bool    `json:"available"`
}

// DiskSample is iostat -x for one whole device.
type DiskSample struct {
	Name       string   `json:"name"`
	ReadBps    float64  `json:"read_bytes_per_s"`
	WriteBps   float64  `json:"write_bytes_per_s"`
	ReadIOPS   float64  `json:"read_iops"`
	WriteIOPS  float64  `json:"write_iops"`
	UtilPct    float64  `json:"util_pct"`
	AwaitMS    float64  `json:"await_ms"`
	AvgReqKiB  float64  `json:"avg_request_kib"`
	QueueDepth float64  `json:"queue_depth"` // average requests in flight (aqu-sz)
	InFlight   uint64   `json:"in_flight"`
	Rotational bool     `json:"rotational"`
	Below      []string `json:"below,omitempty"` // devices it sits on (md/dm slaves, a loop device's backing disk)
	Kind       string   `json:"kind,omitempty"`  // blockdev's kind (disk, md, dm, loop …); empty for a device that appeared after the start
}

// NICSample is one interface's traffic against its limits.
type NICSample struct {
	Name         string  `json:"name"`
	RxBps        float64 `json:"rx_bits_per_s"`
	TxBps        float64 `json:"tx_bits_per_s"`
	SpeedBps     float64 `json:"link_bits_per_s,omitempty"`
	Qdisc        string  `json:"qdisc,omitempty"`
	QdiscRateBps float64 `json:"qdisc_rate_bits_per_s,omitempty"`
	Backlog      uint32  `json:"qdisc_backlog_bytes,omitempty"`
	DropsPerS    float64 `json:"qdisc_drops_per_s,omitempty"`
	OverlimitsPS float64 `json:"qdisc_overlimits_per_s,omitempty"`
	RxDropPerS   float64 `json:"rx_drops_per_s,omitempty"`
}

// TCPSample: retransmitted segments, system-wide.
type TCPSample struct {
	RetransPerS float64 `json:"retrans_per_s"`
	RetransPct  float64 `json:"retrans_pct"` // of segments sent
	// Streams are the busiest established connections (at least
	// tcpStreamMinBps sent), from inet_diag tcp_info.
	Streams []TCPStream `json:"streams,omitempty"`
}

// TCPStream is one connection's sending in the interval: its rate, RTT and
// the share of the interval its sending was limited by its own send buffer
// or by the peer's receive window (tcp_info tcpi_sndbuf_limited,
// tcpi_rwnd_limited, Linux 4.10+; absent before).
type TCPStream struct {
	Local            string  `json:"local"`
	Remote           string  `json:"remote"`
	TxBps            float64 `json:"tx_bits_per_s"`
	RTTms            float64 `json:"rtt_ms"`
	SndbufLimitedPct float64 `json:"sndbuf_limited_pct"`
	RwndLimitedPct   float64 `json:"rwnd_limited_pct"`
	Limits           bool    `json:"limits_known"`
}

// Streams sending less than this are left out of a sample.
const tcpStreamMinBps = 8e6

// SoftnetSample: packets the per-CPU backlog dropped, and NAPI polls cut
// short by the budget (squeezes).
type SoftnetSample struct {
	DroppedPerS  float64 `json:"dropped_per_s"`
	SqueezedPerS float64 `json:"squeezed_per_s"`
}

// MemSample is reclaim activity and dirty data.
type MemSample struct {
	PgScanPerS     float64 `json:"pgscan_per_s"`
	PgStealPerS    float64 `json:"pgsteal_per_s"`
	RefaultPerS    float64 `json:"refault_per_s"`
	DirtyBytes     uint64  `json:"dirty_bytes"`
	WritebackBytes uint64  `json:"writeback_bytes"`
	AvailableBytes uint64  `json:"available_bytes"`
	TotalBytes     uint64  `json:"total_bytes"`
}

// NFSdSample: /proc/fs/nfsd/pool_stats as rates: transports handed to
// the thread pool per second (packets-arrived), queued (sockets-enqueued)
// and given to an idle thread it woke (threads-woken). What "queued"
// means depends on the kernel (NoIdleShare).
type NFSdSample struct {
	PacketsPerS  float64 `json:"packets_per_s"`
	EnqueuedPerS float64 `json:"sockets_enqueued_per_s"`
	WokenPerS    float64 `json:"threads_woken_per_s"`
	// Threads is /proc/fs/nfsd/threads (0: not read).
	Threads int `json:"threads,omitempty"`
}

// NoIdleShare is the share of the work handed to nfsd's thread pool that
// found no idle thread, from the three pool_stats counters (rates or
// deltas), and how many hand-overs that share is of.
//
// Kernels before the lockless thread pool (svc_xprt_enqueue with
// sp_threads, 2.6 and early 3.x) count packets-arrived on every call and
// then either wake an idle thread (threads-woken) or queue the transport
// (sockets-enqueued, only then): no idle = enqueued ÷ (enqueued + woken),
// and packets ≥ enqueued + woken. Later kernels (svc_xprt_do_enqueue,
// RQ_BUSY; 6.1 in the kernel lab; since 6.3 both columns print the same
// per-CPU counter) queue every transport, counting it in packets-arrived
// and sockets-enqueued alike, and count threads-woken when an idle thread
// takes it: no idle = (enqueued − woken) ÷ enqueued, and enqueued + woken
// > packets as soon as one thread was woken. With no thread woken both
// readings agree (all queued), so the counters tell the two apart.
func NoIdleShare(packets, enqueued, woken float64) (share, handed float64) {
	switch {
	case enqueued <= 0:
		return 0, woken
	case enqueued+woken > packets*1.001+0.5: // every transport queued
		return max(0, enqueued-woken) / enqueued, enqueued
	default: // queued only when no thread was idle
		return enqueued / (enqueued + woken), enqueued + woken
	}
}

// SelfSample is what watch itself cost in this interval.
type SelfSample struct {
	CPUPct float64 `json:"cpu_pct"` // of one core
	RSSKiB int64   `json:"max_rss_kib"`
}

// raw is one reading of every counter.
type raw struct {
	at      time.Time
	cpu     kernfmt.CPUTimes
	cores   []kernfmt.CPUTimes
	psi     [3]kernfmt.PSI // cpu, io, memory
	disks   []kernfmt.DiskCounters
	nets    []kernfmt.NetCounters
	qdisc   map[int]netlink.Qdisc
	socks   map[uint64]netlink.TCPSock
	tcp     kernfmt.TCPCounters
	softnet kernfmt.SoftnetTotals
	vm      VM
	nfsd    NFSdPool
	procs   map[int]procCount
	threads map[int]threadCount
	selfCPU time.Duration
	selfRSS int64
	// followed are the processes Follow matched; cgroups their cgroups.
	followed map[int]bool
	cgroups  map[string]cgRaw
}

type procCount struct {
	ticks   uint64
	threads uint64
	comm    string
}

type threadCount struct {
	pid       int
	run, wait uint64 // ns
	comm      string
}

// Sampler reads the counters; Next returns the rates since the previous
// call. It reuses its buffers, so a steady-state sample allocates little.
type Sampler struct {
	root    *hostfs.Root
	prev    *raw
	cur     *raw
	start   time.Time
	buf     []byte
	scratch [][]byte
	names   map[string]string
	comms   map[string]string
	devs    map[string]devInfo // whole block devices
	keep    map[string]bool
	nics    map[string]nicInfo
	qr      *netlink.Conn
	diag    *netlink.Conn // NETLINK_SOCK_DIAG, for tcp_info
	// Skipped names sources that could not be read, once each.
	Skipped   map[string]string
	watchPIDs map[int]bool // processes whose threads are read this interval
	kl        *kmsgTail    // the kernel log since the watch began (nil: not readable)
	noNFSd    bool
	// Follow (cgroup.go).
	follow   func(pid int, comm string) bool
	cgPaths  map[int][]cgDir
	cgV2     string
	cgV1     map[string]string
	devNames map[string]string
	// Task files held open between readings (readHeld), at most maxHeld.
	held    map[heldKey]*heldFile
	gen     uint64
	maxHeld int
}

type devInfo struct {
	rotational bool
	below      []string
	kind       string // blockdev.Kind
}

type nicInfo struct {
	index    int
	speedBps float64
}

// Threshold of one core above which a process's threads are read one by
// one in the next interval.
const threadScanShare = 0.10

// primeDelay separates the two readings NewSampler takes to find busy
// processes.
const primeDelay = 200 * time.Millisecond

// NewSampler takes the first reading. It works without root; what it
// cannot read is listed in Skipped.
func NewSampler(root *hostfs.Root) (*Sampler, error) {
	if !root.IsLive() {
		return nil, errors.New("watch needs the live system: a captured tree has no changing counters")
	}
	s := &Sampler{root: root, names: map[string]string{}, comms: map[string]string{}, Skipped: map[string]string{},
		watchPIDs: map[int]bool{}, scratch: make([][]byte, 0, 64), held: map[heldKey]*heldFile{}, maxHeld: maxHeldFiles()}
	s.discover()
	if qr, err := netlink.Dial(unix.NETLINK_ROUTE); err == nil {
		s.qr = qr
	} else {
		s.skip("netlink qdisc", err)
	}
	if d, err := netlink.Dial(unix.NETLINK_SOCK_DIAG); err == nil {
		s.diag = d
	} else {
		s.skip("netlink inet_diag", err)
	}
	s.openKernelLog()
	s.prev, s.cur = newRaw(), newRaw()
	// Prime: two quick readings find the busy processes, so that the
	// reading the first interval starts from already has their threads.
	if err := s.read(s.cur); err != nil {
		return nil, err
	}
	time.Sleep(primeDelay)
	if err := s.read(s.prev); err != nil {
		return nil, err
	}
	s.delta(s.cur, s.prev)
	if err := s.read(s.prev); err != nil {
		return nil, err
	}
	s.start = s.prev.at
	return s, nil
}

func newRaw() *raw {
	return &raw{qdisc: map[int]netlink.Qdisc{}, socks: map[uint64]netlink.TCPSock{}, procs: map[int]procCount{}, threads: map[int]threadCount{},
		followed: map[int]bool{}, cgroups: map[string]cgRaw{}}
}

// maxHeldFiles is how many task files a sampler keeps open: a quarter of
// the open-file limit, at most 512, so that the process it runs in (the
// bench server accepting connections) keeps its descriptors.
func maxHeldFiles() int {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	return int(min(512, rl.Cur/4))
}

// Close releases the netlink sockets and the files held open.
func (s *Sampler) Close() error {
	s.closeHeld()
	if s.kl != nil {
		s.kl.Close()
	}
	if s.diag != nil {
		s.diag.Close()
	}
	if s.qr != nil {
		return s.qr.Close()
	}
	return nil
}

func (s *Sampler) skip(src string, err error) {
	if _, ok := s.Skipped[src]; !ok {
		s.Skipped[src] = err.Error()
	}
}

// discover lists block devices (with their stacking) and interfaces (with
// link speeds). It runs once: devices that appear later are not watched.
func (s *Sampler) discover() {
	s.devs, s.keep, s.nics = map[string]devInfo{}, map[string]bool{}, map[string]nicInfo{}
	ents, err := s.root.ReadDir("/sys/block")
	if err != nil {
		s.skip("/sys/block", err)
	}
	sys := blockdev.New(s.root)
	for _, e := range ents {
		n := e.Name()
		d := devInfo{}
		if v, err := s.root.ReadString("/sys/block/" + n + "/queue/rotational"); err == nil {
			d.rotational = v == "1"
		}
		d.below = below(sys, n)
		d.kind = sys.Kind(n)
		s.devs[n] = d
		s.keep[n] = true
	}
	nets, err := s.root.ReadDir("/sys/class/net")
	if err != nil {
		s.skip("/sys/class/net", err)
	}
	for _, e := range nets {
		n := e.Name()
		ni := nicInfo{}
		if v, err := s.root.ReadString("/sys/class/net/" + n + "/ifindex"); err == nil {
			ni.index, _ = strconv.Atoi(v)
		}
		// speed is Mb/s; -1 or unreadable (link down, virtual) means unknown.
		if v, err := s.root.ReadString("/sys/class/net/" + n + "/speed"); err == nil {
			if mb, err := strconv.ParseFloat(v, 64); err == nil && mb > 0 {
				ni.speedBps = mb * 1e6
			}
		}
		s.nics[n] = ni
	}
}

// below names the whole devices n is built on: the members of an md or
// dm device, the disks holding a loop device's backing file (not when that
// file was deleted: its path may name another file now, on another disk).
func below(sys blockdev.Sys, n string) []string {
	var out []string
	m, _ := sys.Members(n)
	for _, x := range m {
		out = append(out, x.Whole)
	}
	if l, ok := sys.Loop(n); ok && !l.Deleted {
		if b, err := sys.FileDevices(l.File); err == nil {
			for _, d := range b.Devices { // every member of a btrfs
				out = append(out, d.Whole)
			}
		}
	}
	return out
}

func (s *Sampler) readFile(name string) ([]byte, bool) {
	b, err := s.root.ReadInto(name, s.buf)
	s.buf = b[:0]
	if err != nil {
		s.skip(name, err)
		return nil, false
	}
	return b, true
}

func (s *Sampler) read(r *raw) error {
	r.at = time.Now()
	b, ok := s.readFile("/proc/stat")
	if !ok {
		return fmt.Errorf("watch: cannot read /proc/stat: %s", s.Skipped["/proc/stat"])
	}
	var err error
	if r.cores, err = kernfmt.Stat(b, &r.cpu, r.cores, s.scratch); err != nil {
		return err
	}
	for i, n := range []string{"cpu", "io", "memory"} {
		r.psi[i] = kernfmt.PSI{}
		if b, ok := s.readFile("/proc/pressure/" + n); ok {
			if p, err := kernfmt.Pressure(b, s.scratch); err == nil {
				r.psi[i] = p
			} else {
				s.skip("/proc/pressure/"+n, err)
			}
		}
	}
	if b, ok := s.readFile("/proc/diskstats"); ok {
		if r.disks, err = kernfmt.Diskstats(b, r.disks, s.keep, s.names, s.scratch); err != nil {
			s.skip("/proc/diskstats", err)
		}
	}
	if b, ok := s.readFile("/proc/net/dev"); ok {
		if r.nets, err = kernfmt.NetDevCounters(b, r.nets, s.names, s.scratch); err != nil {
			s.skip("/proc/net/dev", err)
		}
	}
	if s.qr != nil {
		if err := s.qr.RootQdiscs(r.qdisc); err != nil {
			s.skip("netlink qdisc", err)
		}
	}
	if s.diag != nil {
		clear(r.socks)
		socks, err := s.diag.TCPSocks()
		if err != nil {
			s.skip("netlink inet_diag", err)
		}
		for _, k := range socks {
			r.socks[k.Cookie] = k
		}
	}
	if b, ok := s.readFile("/proc/net/snmp"); ok {
		if r.tcp, err = kernfmt.TCPStats(b); err != nil {
			s.skip("/proc/net/snmp", err)
		}
	}
	if b, ok := s.readFile("/proc/net/softnet_stat"); ok {
		if r.softnet, err = kernfmt.SoftnetSum(b, s.scratch); err != nil {
			s.skip("/proc/net/softnet_stat", err)
		}
	}
	r.vm = VM{}
	if b, ok := s.readFile("/proc/vmstat"); ok {
		if err := kernfmt.Vmstat(b, s.scratch, r.vm.setVmstat); err != nil {
			s.skip("/proc/vmstat", err)
		}
	}
	if b, ok := s.readFile("/proc/meminfo"); ok {
		if err := kernfmt.ScanMeminfo(b, s.scratch, r.vm.setMeminfo); err != nil {
			s.skip("/proc/meminfo", err)
		}
	}
	r.nfsd = NFSdPool{}
	if !s.noNFSd {
		if b, ok := s.readFileQuiet("/proc/fs/nfsd/pool_stats"); !ok {
			s.noNFSd = true // no nfsd: not an error, and not read again
		} else {
			if r.nfsd, err = nfsdPool(b); err != nil {
				s.skip("/proc/fs/nfsd/pool_stats", err)
			}
			if b, ok := s.readFileQuiet("/proc/fs/nfsd/threads"); ok {
				r.nfsd.Threads, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
	}
	s.readTasks(r)
	s.readCgroups(r)
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		r.selfCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		r.selfRSS = int64(ru.Maxrss) // int32 on 32-bit targets
	}
	return nil
}

// readTasks reads /proc/PID/stat of every process, and the threads
// (stat + schedstat) of the processes that used at least threadScanShare
// of a core in the previous interval, and of the followed ones.
func (s *Sampler) readTasks(r *raw) {
	clear(r.procs)
	clear(r.threads)
	clear(r.followed)
	s.gen++
	defer s.dropUnread()
	ents, err := s.root.ReadDir("/proc")
	if err != nil {
		s.skip("/proc", err)
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		b, err := s.readHeld(heldKey{pid, heldProcStat}, dir, "/stat")
		if err != nil {
			continue // exited
		}
		t, err := kernfmt.ProcStat(b, s.scratch)
		if err != nil {
			s.skip(dir+"/stat", err)
			continue
		}
		r.procs[pid] = procCount{ticks: t.Ticks, threads: t.Threads, comm: s.intern(t.Comm)}
		if s.follow != nil && s.follow(pid, r.procs[pid].comm) {
			r.followed[pid] = true
		} else if !s.watchPIDs[pid] {
			continue
		}
		if t.Threads <= 1 {
			// Its one thread's stat is the process's, just read.
			s.readThread(r, pid, pid, dir, &t)
			continue
		}
		tasks, err := s.root.ReadDir(dir + "/task")
		if err != nil {
			continue
		}
		for _, te := range tasks {
			if tid, err := strconv.Atoi(te.Name()); err == nil {
				s.readThread(r, pid, tid, dir+"/task/"+te.Name(), nil)
			}
		}
	}
}

// readThread reads one thread's stat (unless st has it) and schedstat;
// dir is /proc/PID for a process's only thread, else
// /proc/PID/task/TID.
func (s *Sampler) readThread(r *raw, pid, tid int, dir string, st *kernfmt.TaskStat) {
	if st == nil {
		b, err := s.readHeld(heldKey{tid, heldTaskStat}, dir, "/stat")
		if err != nil {
			return
		}
		t, err := kernfmt.ProcStat(b, s.scratch)
		if err != nil {
			return
		}
		st = &t
	}
	comm := s.intern(st.Comm)
	kind := heldTaskSchedstat
	if tid == pid && !strings.Contains(dir, "/task/") {
		kind = heldProcSchedstat
	}
	b, err := s.readHeld(heldKey{tid, kind}, dir, "/schedstat")
	tc := threadCount{pid: pid, comm: comm}
	if err == nil {
		tc.run, tc.wait, err = kernfmt.Schedstat(b, s.scratch)
	}
	if err != nil {
		// No schedstat (CONFIG_SCHED_INFO off): fall back to ticks.
		s.skip("/proc/PID/task/TID/schedstat", err)
		tc.run, tc.wait = st.Ticks*10_000_000, 0
	}
	r.threads[tid] = tc
}

// The task files a sampler holds open between readings (readHeld).
const (
	heldProcStat      = iota // /proc/PID/stat
	heldProcSchedstat        // /proc/PID/schedstat
	heldTaskStat             // /proc/PID/task/TID/stat
	heldTaskSchedstat        // /proc/PID/task/TID/schedstat
)

type heldKey struct {
	id   int // pid or tid
	kind int
}

type heldFile struct {
	c   *hostfs.Counter
	gen uint64 // the reading that last read it
}

// readHeld reads dir+file, a task's counter file, through the file held
// open since an earlier reading, else opens it and, up to maxHeld files,
// keeps it open. A held file whose task has exited fails (ESRCH) and is
// opened anew by name: the pid's new process, if any.
func (s *Sampler) readHeld(k heldKey, dir, file string) ([]byte, error) {
	if h, ok := s.held[k]; ok {
		b, err := h.c.ReadInto(s.buf)
		s.buf = b[:0]
		if err == nil {
			h.gen = s.gen
			return b, nil
		}
		h.c.Close()
		delete(s.held, k)
	}
	if len(s.held) >= s.maxHeld {
		b, err := s.root.ReadInto(dir+file, s.buf)
		s.buf = b[:0]
		return b, err
	}
	c, err := s.root.OpenCounter(dir + file)
	if err != nil {
		return nil, err
	}
	b, err := c.ReadInto(s.buf)
	s.buf = b[:0]
	if err != nil {
		c.Close()
		return nil, err
	}
	s.held[k] = &heldFile{c: c, gen: s.gen}
	return b, nil
}

// dropUnread closes the held files this reading did not read: their
// task exited, or its threads are no longer read.
func (s *Sampler) dropUnread() {
	for k, h := range s.held {
		if h.gen != s.gen {
			h.c.Close()
			delete(s.held, k)
		}
	}
}

func (s *Sampler) closeHeld() {
	for k, h := range s.held {
		h.c.Close()
		delete(s.held, k)
	}
}

func (s *Sampler) intern(b []byte) string {
	if c, ok := s.comms[string(b)]; ok {
		return c
	}
	c := string(b)
	s.comms[c] = c
	return c
}

// Next waits for nothing: it reads the counters now and returns the rates
// since the previous reading.
func (s *Sampler) Next() (Sample, error) {
	if err := s.read(s.cur); err != nil {
		return Sample{}, err
	}
	smp := s.delta(s.prev, s.cur)
	s.prev, s.cur = s.cur, s.prev
	if s.kl != nil {
		smp.KernelEvents = s.kl.read()
	}
	return smp, nil
}

func pct(num, den float64) float64 {
	if den <= 0 {
		return 0
	}
	return round(100 * num / den)
}

func round(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

func sub(a, b uint64) float64 {
	if a < b {
		return 0 // counter reset or wrapped
	}
	return float64(a - b)
}

// delta turns two readings into a Sample and picks the processes whose
// threads the next reading looks at.
func (s *Sampler) delta(p, c *raw) Sample {
	dt := c.at.Sub(p.at).Seconds()
	out := Sample{T: round(c.at.Sub(s.start).Seconds()), Interval: round(dt)}
	if dt <= 0 {
		return out
	}
	// CPU.
	tot := sub(c.cpu.Total(), p.cpu.Total())
	out.CPU.BusyPct = pct(tot-sub(c.cpu.Idle, p.cpu.Idle)-sub(c.cpu.IOWait, p.cpu.IOWait), tot)
	for i := range c.cores {
		if i >= len(p.cores) {
			break
		}
		a, b := c.cores[i], p.cores[i]
		t := sub(a.Total(), b.Total())
		if t == 0 {
			continue // offline
		}
		out.CPU.Cores = append(out.CPU.Cores, CoreShare{CPU: i,
			BusyPct:    pct(t-sub(a.Idle, b.Idle)-sub(a.IOWait, b.IOWait), t),
			UserPct:    pct(sub(a.User, b.User)+sub(a.Nice, b.Nice), t),
			SystemPct:  pct(sub(a.System, b.System), t),
			IRQPct:     pct(sub(a.IRQ, b.IRQ), t),
			SoftIRQPct: pct(sub(a.SoftIRQ, b.SoftIRQ), t),
			StealPct:   pct(sub(a.Steal, b.Steal), t),
			IOWaitPct:  pct(sub(a.IOWait, b.IOWait), t)})
	}
	// PSI totals are microseconds.
	us := dt * 1e6
	if c.psi[0].OK {
		out.PSI = PSISample{Available: true,
			CPUSomePct: pct(sub(c.psi[0].Some, p.psi[0].Some), us),
			IOSomePct:  pct(sub(c.psi[1].Some, p.psi[1].Some), us),
			IOFullPct:  pct(sub(c.psi[1].Full, p.psi[1].Full), us),
			MemSomePct: pct(sub(c.psi[2].Some, p.psi[2].Some), us),
			MemFullPct: pct(sub(c.psi[2].Full, p.psi[2].Full), us)}
	}
	// Threads: schedstat nanoseconds; processes: ticks (USER_HZ is 100).
	ns := dt * 1e9
	for tid, t := range c.threads {
		if o, ok := p.threads[tid]; ok && o.pid == t.pid {
			run, wait := sub(t.run, o.run), sub(t.wait, o.wait)
			if run+wait < 0.01*ns {
				continue
			}
			out.Threads = append(out.Threads, ThreadSample{PID: t.pid, TID: tid, Comm: t.comm,
				ProcessComm: c.procs[t.pid].comm, CPUPct: pct(run, ns), WaitPct: pct(wait, ns)})
		}
	}
	clear(s.watchPIDs)
	ticks := dt * 100
	for pid, pc := range c.procs {
		if o, ok := p.procs[pid]; ok && sub(pc.ticks, o.ticks) >= threadScanShare*ticks {
			s.watchPIDs[pid] = true
		}
	}
	sort.Slice(out.Threads, func(i, j int) bool {
		a, b := out.Threads[i], out.Threads[j]
		if a.CPUPct+a.WaitPct != b.CPUPct+b.WaitPct {
			return a.CPUPct+a.WaitPct > b.CPUPct+b.WaitPct
		}
		return a.TID < b.TID
	})
	if len(out.Threads) > 8 {
		out.Threads = out.Threads[:8]
	}
	// Disks.
	ms := dt * 1000
	for _, d := range c.disks {
		var o *kernfmt.DiskCounters
		for i := range p.disks {
			if p.disks[i].Name == d.Name {
				o = &p.disks[i]
				break
			}
		}
		if o == nil {
			continue
		}
		rd, wr := sub(d.Reads, o.Reads), sub(d.Writes, o.Writes)
		io := rd + wr
		busy := sub(d.IOMS, o.IOMS)
		if io == 0 && busy == 0 {
			continue
		}
		info := s.devs[d.Name]
		ds := DiskSample{Name: d.Name, Rotational: info.rotational, Below: info.below, Kind: info.kind, InFlight: d.InFlight,
			ReadBps:    round(sub(d.ReadSectors, o.ReadSectors) * 512 / dt),
			WriteBps:   round(sub(d.WriteSectors, o.WriteSectors) * 512 / dt),
			ReadIOPS:   round(rd / dt),
			WriteIOPS:  round(wr / dt),
			UtilPct:    min(100, pct(busy, ms)),
			QueueDepth: round(sub(d.WeightedMS, o.WeightedMS) / ms)}
		if io > 0 {
			ds.AwaitMS = round((sub(d.ReadMS, o.ReadMS) + sub(d.WriteMS, o.WriteMS)) / io)
			ds.AvgReqKiB = round((sub(d.ReadSectors, o.ReadSectors) + sub(d.WriteSectors, o.WriteSectors)) / 2 / io)
		}
		out.Disks = append(out.Disks, ds)
	}
	sort.Slice(out.Disks, func(i, j int) bool { return out.Disks[i].UtilPct > out.Disks[j].UtilPct })
	// NICs.
	for _, n := range c.nets {
		var o *kernfmt.NetCounters
		for i := range p.nets {
			if p.nets[i].Name == n.Name {
				o = &p.nets[i]
				break
			}
		}
		if o == nil || n.Name == "lo" {
			continue
		}
		ni := s.nics[n.Name]
		ns := NICSample{Name: n.Name, SpeedBps: ni.speedBps,
			RxBps:      round(sub(n.RxBytes, o.RxBytes) * 8 / dt),
			TxBps:      round(sub(n.TxBytes, o.TxBytes) * 8 / dt),
			RxDropPerS: round(sub(n.RxDrop, o.RxDrop) / dt)}
		if q, ok := c.qdisc[ni.index]; ok && ni.index > 0 {
			ns.Qdisc = q.Kind
			ns.QdiscRateBps = float64(q.RateBps)
			ns.Backlog = q.Backlog
			if oq, ok := p.qdisc[ni.index]; ok {
				ns.DropsPerS = round(sub(q.Drops, oq.Drops) / dt)
				ns.OverlimitsPS = round(sub(q.Overlimits, oq.Overlimits) / dt)
			}
		}
		if ns.RxBps == 0 && ns.TxBps == 0 {
			continue
		}
		out.NICs = append(out.NICs, ns)
	}
	sort.Slice(out.NICs, func(i, j int) bool {
		return max(out.NICs[i].RxBps, out.NICs[i].TxBps) > max(out.NICs[j].RxBps, out.NICs[j].TxBps)
	})
	// TCP, softnet, memory, nfsd, md.
	sent := sub(c.tcp.OutSegs, p.tcp.OutSegs)
	out.TCP = TCPSample{RetransPerS: round(sub(c.tcp.RetransSegs, p.tcp.RetransSegs) / dt),
		RetransPct: pct(sub(c.tcp.RetransSegs, p.tcp.RetransSegs), sent), Streams: tcpStreams(p.socks, c.socks, dt)}
	out.Softnet = SoftnetSample{DroppedPerS: round(sub(c.softnet.Dropped, p.softnet.Dropped) / dt),
		SqueezedPerS: round(sub(c.softnet.Squeezed, p.softnet.Squeezed) / dt)}
	out.Memory = MemSample{PgScanPerS: round(sub(c.vm.PgScan, p.vm.PgScan) / dt),
		PgStealPerS: round(sub(c.vm.PgSteal, p.vm.PgSteal) / dt), RefaultPerS: round(sub(c.vm.Refault, p.vm.Refault) / dt),
		DirtyBytes: c.vm.DirtyKiB << 10, WritebackBytes: c.vm.WritebackKiB << 10,
		AvailableBytes: c.vm.MemAvailableKiB << 10, TotalBytes: c.vm.MemTotalKiB << 10}
	if c.nfsd.OK && p.nfsd.OK {
		out.NFSd = &NFSdSample{PacketsPerS: round(sub(c.nfsd.Packets, p.nfsd.Packets) / dt),
			EnqueuedPerS: round(sub(c.nfsd.SocketsEnqueued, p.nfsd.SocketsEnqueued) / dt),
			WokenPerS:    round(sub(c.nfsd.ThreadsWoken, p.nfsd.ThreadsWoken) / dt), Threads: c.nfsd.Threads}
	}
	if b, ok := s.readFileQuiet("/proc/mdstat"); ok {
		out.MD = mdSyncs(b)
	}
	out.Cgroups = s.cgroupDelta(p, c, dt)
	out.Self = SelfSample{CPUPct: pct((c.selfCPU - p.selfCPU).Seconds(), dt), RSSKiB: c.selfRSS}
	return out
}

func (s *Sampler) readFileQuiet(name string) ([]byte, bool) {
	b, err := s.root.ReadInto(name, s.buf)
	s.buf = b[:0]
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.skip(name, err)
		}
		return nil, false
	}
	return b, true
}

// tcpStreams turns two tcp_info dumps into the rates of the connections
// present in both, busiest first, at most 8.
func tcpStreams(p, c map[uint64]netlink.TCPSock, dt float64) []TCPStream {
	var out []TCPStream
	for k, b := range c {
		a, ok := p[k]
		if !ok || b.BytesAcked < a.BytesAcked {
			continue
		}
		tx := float64(b.BytesAcked-a.BytesAcked) * 8 / dt
		if tx < tcpStreamMinBps {
			continue
		}
		st := TCPStream{Local: b.Local.String(), Remote: b.Remote.String(), TxBps: round(tx), RTTms: round(float64(b.RTTus) / 1000),
			Limits: a.Limits && b.Limits}
		if st.Limits {
			us := dt * 1e6
			st.SndbufLimitedPct = round(min(100, 100*float64(sub(b.SndbufLimitedUS, a.SndbufLimitedUS))/us))
			st.RwndLimitedPct = round(min(100, 100*float64(sub(b.RwndLimitedUS, a.RwndLimitedUS))/us))
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TxBps > out[j].TxBps })
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}
