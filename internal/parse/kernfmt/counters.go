package kernfmt

import (
	"bytes"

	"github.com/nastune/nastune/internal/facts"
)

// Allocation-free forms for `nastune watch`, which reads these files every
// interval: each fills caller-owned values and takes a scratch slice for
// the fields of a line (pass one with capacity for the widest line; nil
// works, but allocates). Names are interned through a caller's map so a
// device name costs one string for the whole watch. The Scan* functions
// are the one reading of a format: the allocating forms (NetDev, Softnet,
// Meminfo, UDPStats, NFSPoolStats) are built on them.

// CPUTimes are the cumulative jiffies of one /proc/stat cpu line.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is every jiffy the CPU accounted for (guest time is already in user).
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Stat reads the aggregate "cpu" line and the per-CPU "cpuN" lines of
// /proc/stat into all and cores (indexed by N, grown as needed).
func Stat(b []byte, all *CPUTimes, cores []CPUTimes, scratch [][]byte) ([]CPUTimes, error) {
	cores = cores[:0]
	err := eachLine(b, func(n int, l []byte) error {
		if !bytes.HasPrefix(l, []byte("cpu")) {
			return nil
		}
		f := fields(l, scratch)
		if len(f) < 9 {
			return lineErr(n, "%d fields, want at least 9", len(f))
		}
		var t CPUTimes
		dst := [...]*uint64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal}
		for i, p := range dst {
			v, ok := dec(f[i+1])
			if !ok {
				return lineErr(n, "field %d %q is not a number", i+2, clip(string(f[i+1])))
			}
			*p = v
		}
		if len(f[0]) == 3 {
			*all = t
			return nil
		}
		idx, ok := dec(f[0][3:])
		if !ok || idx > 1<<14 {
			return lineErr(n, "bad cpu name %q", clip(string(f[0])))
		}
		for len(cores) <= int(idx) {
			cores = append(cores, CPUTimes{})
		}
		cores[idx] = t
		return nil
	})
	return cores, err
}

// PSI is the cumulative stall time in microseconds of one /proc/pressure
// file.
type PSI struct {
	Some, Full uint64
	OK         bool
}

// Pressure reads a /proc/pressure/{cpu,io,memory} file: the total= of its
// "some" and "full" lines.
func Pressure(b []byte, scratch [][]byte) (PSI, error) {
	var p PSI
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 {
			return nil
		}
		var total []byte
		for _, x := range f[1:] {
			if bytes.HasPrefix(x, []byte("total=")) {
				total = x[6:]
			}
		}
		v, ok := dec(total)
		if !ok {
			return lineErr(n, "no total= value")
		}
		switch string(f[0]) {
		case "some":
			p.Some = v
		case "full":
			p.Full = v
		default:
			return lineErr(n, "want some or full, got %q", clip(string(f[0])))
		}
		p.OK = true
		return nil
	})
	return p, err
}

// DiskCounters are the /proc/diskstats fields nastune uses (sectors are
// 512 bytes whatever the device's sector size).
type DiskCounters struct {
	Name                          string
	Reads, ReadSectors, ReadMS    uint64
	Writes, WriteSectors, WriteMS uint64
	InFlight, IOMS, WeightedMS    uint64
}

// intern returns name as a string, through names when it is not nil.
func intern(names map[string]string, b []byte) string {
	if s, ok := names[string(b)]; ok {
		return s
	}
	s := string(b)
	if names != nil {
		names[s] = s
	}
	return s
}

// Diskstats fills out with one entry per /proc/diskstats line whose device
// is in keep (nil keeps all).
func Diskstats(b []byte, out []DiskCounters, keep map[string]bool, names map[string]string, scratch [][]byte) ([]DiskCounters, error) {
	out = out[:0]
	err := eachLine(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 {
			return nil
		}
		if len(f) < 14 {
			return lineErr(n, "%d fields, want at least 14", len(f))
		}
		name := intern(names, f[2])
		if keep != nil && !keep[name] {
			return nil
		}
		d := DiskCounters{Name: name}
		idx := [...]int{3, 5, 6, 7, 9, 10, 11, 12, 13}
		dst := [...]*uint64{&d.Reads, &d.ReadSectors, &d.ReadMS, &d.Writes, &d.WriteSectors, &d.WriteMS, &d.InFlight, &d.IOMS, &d.WeightedMS}
		for i, p := range dst {
			v, ok := dec(f[idx[i]])
			if !ok {
				return lineErr(n, "field %d %q is not a number", idx[i]+1, clip(string(f[idx[i]])))
			}
			*p = v
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

// netDevColumns name the 16 counters of a /proc/net/dev line
// (net/core/net-procfs.c dev_seq_printf_stats). "rx_dropped" there
// includes rx_missed_errors, "rx_frame_errors" sums length, over, CRC and
// frame errors.
var netDevColumns = [16]string{
	"rx_bytes", "rx_packets", "rx_errors", "rx_dropped", "rx_fifo_errors", "rx_frame_errors", "rx_compressed", "multicast",
	"tx_bytes", "tx_packets", "tx_errors", "tx_dropped", "tx_fifo_errors", "collisions", "tx_carrier_errors", "tx_compressed",
}

// ScanNetDev calls fn with the name (pointing into data) and the 16
// counters, in the order of netDevColumns, of every interface line of
// /proc/net/dev. It stops at the first malformed line.
func ScanNetDev(data []byte, scratch [][]byte, fn func(name []byte, c [16]uint64)) error {
	var c [16]uint64
	return eachLine(data, func(n int, l []byte) error {
		i := bytes.IndexByte(l, ':')
		if i < 0 || n <= 2 && bytes.IndexByte(l[i+1:], '|') >= 0 {
			return nil // the two header lines
		}
		f := fields(l[i+1:], scratch)
		if len(f) < len(c) {
			return lineErr(n, "want %d counters, got %d", len(c), len(f))
		}
		for j := range c {
			v, ok := dec(f[j])
			if !ok {
				return lineErr(n, "%s: %q is not a number", netDevColumns[j], clip(string(f[j])))
			}
			c[j] = v
		}
		fn(bytes.TrimSpace(l[:i]), c)
		return nil
	})
}

// NetCounters are the byte, packet and drop counters of one /proc/net/dev
// line.
type NetCounters struct {
	Name                         string
	RxBytes, RxDrop, TxBytes     uint64
	RxPackets, TxPackets, TxDrop uint64
}

// NetDevCounters is the allocation-free form of NetDev.
func NetDevCounters(b []byte, out []NetCounters, names map[string]string, scratch [][]byte) ([]NetCounters, error) {
	out = out[:0]
	err := ScanNetDev(b, scratch, func(name []byte, v [16]uint64) {
		out = append(out, NetCounters{Name: intern(names, name), RxBytes: v[0], RxPackets: v[1], RxDrop: v[3], TxBytes: v[8], TxPackets: v[9], TxDrop: v[11]})
	})
	return out, err
}

// ScanSoftnet calls fn for each CPU line of /proc/net/softnet_stat: one
// line per online CPU, columns in hex: processed, dropped, time_squeeze,
// then columns that vary by kernel. Kernels since 5.10 add the CPU number
// as column 13; older ones are numbered by line. A malformed line is
// skipped; the first one is returned as the error.
func ScanSoftnet(data []byte, scratch [][]byte, fn func(cpu int, processed, dropped, squeezed uint64)) error {
	var firstErr error
	good := 0
	_ = eachLine(data, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 {
			return nil
		}
		if len(f) < 3 {
			if firstErr == nil {
				firstErr = lineErr(n, "want at least 3 hex columns, got %d", len(f))
			}
			return nil
		}
		var v [3]uint64
		for i := range v {
			x, ok := hex32(f[i])
			if !ok {
				if firstErr == nil {
					firstErr = lineErr(n, "column %d: %q is not a 32-bit hex number", i+1, clip(string(f[i])))
				}
				return nil
			}
			v[i] = x
		}
		cpu := good
		if len(f) >= 13 {
			if x, ok := hex32(f[12]); ok {
				cpu = int(x)
			}
		}
		good++
		fn(cpu, v[0], v[1], v[2])
		return nil
	})
	return firstErr
}

// SoftnetTotals sums the per-CPU lines of /proc/net/softnet_stat.
type SoftnetTotals struct{ Processed, Dropped, Squeezed uint64 }

// SoftnetSum is the allocation-free form of Softnet: the sums over CPUs.
func SoftnetSum(b []byte, scratch [][]byte) (SoftnetTotals, error) {
	var s SoftnetTotals
	err := ScanSoftnet(b, scratch, func(_ int, p, d, q uint64) {
		s.Processed += p
		s.Dropped += d
		s.Squeezed += q
	})
	return s, err
}

// ScanMeminfo calls fn with each field name of /proc/meminfo and its value
// in bytes (a "kB" value times 1024; unitless fields such as HugePages_*
// are counts). A malformed line is skipped; the first one is returned as
// the error.
func ScanMeminfo(data []byte, scratch [][]byte, fn func(key []byte, v uint64)) error {
	var firstErr error
	bad := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	_ = eachLine(data, func(n int, l []byte) error {
		line := bytes.TrimSpace(l)
		if len(line) == 0 {
			return nil
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			bad(lineErr(n, "%q has no 'Name: value'", clip(string(line))))
			return nil
		}
		key, rest := line[:i], line[i+1:]
		f := fields(rest, scratch)
		if len(f) == 0 || len(f) > 2 {
			bad(lineErr(n, "%s: want a number and an optional unit, got %q", key, clip(string(rest))))
			return nil
		}
		v, ok := dec(f[0])
		if !ok {
			bad(lineErr(n, "%s: %q is not a number", key, clip(string(f[0]))))
			return nil
		}
		if len(f) == 2 {
			if string(f[1]) != "kB" {
				bad(lineErr(n, "%s: unknown unit %q", key, clip(string(f[1]))))
				return nil
			}
			if v > (1<<64-1)/1024 {
				bad(lineErr(n, "%s: value out of range", key))
				return nil
			}
			v *= 1024
		}
		fn(key, v)
		return nil
	})
	return firstErr
}

// Vmstat calls fn for every "name value" line of /proc/vmstat.
func Vmstat(data []byte, scratch [][]byte, fn func(key []byte, v uint64)) error {
	return eachLine(data, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) < 2 {
			return nil
		}
		v, ok := dec(f[1])
		if !ok {
			return lineErr(n, "%q is not a number", clip(string(f[1])))
		}
		fn(f[0], v)
		return nil
	})
}

// ScanSNMP calls fn with each name and value of one protocol's pair of
// lines in /proc/net/snmp (proto "Tcp", "Udp" …): a header line naming the
// columns, then a line of values. It reads the first pair only.
func ScanSNMP(data []byte, proto string, fn func(name []byte, v uint64)) error {
	var head []byte
	done := false
	last := 0
	err := eachLine(data, func(n int, l []byte) error {
		last = n
		first, rest := nextField(l)
		if done || len(first) != len(proto)+1 || first[len(proto)] != ':' || string(first[:len(proto)]) != proto {
			return nil
		}
		if head == nil {
			head = rest
			return nil
		}
		names, vals := head, rest
		nn, nv := countFields(names), countFields(vals)
		if nn != nv {
			return lineErr(n, "%s: has %d values for %d names", proto, nv, nn)
		}
		done = true
		return columns(names, vals, func(name, val []byte) error {
			v, ok := dec(val)
			if !ok {
				if _, neg := dec(bytes.TrimPrefix(val, []byte("-"))); neg && len(val) > 1 && val[0] == '-' {
					return nil // a signed column (Tcp's MaxConn is -1: no limit), not a counter
				}
				return lineErr(n, "%s %s: %q is not a number", proto, name, clip(string(val)))
			}
			fn(name, v)
			return nil
		})
	})
	if err == nil && !done {
		err = lineErr(last, "no %s: lines", proto)
	}
	return err
}

// columns calls fn with each name of a header line and the value under it
// in a line of values, in order, until fn fails or the names run out.
func columns(names, vals []byte, fn func(name, val []byte) error) error {
	for {
		var name, val []byte
		name, names = nextField(names)
		val, vals = nextField(vals)
		if len(name) == 0 {
			return nil
		}
		if err := fn(name, val); err != nil {
			return err
		}
	}
}

func countFields(b []byte) int {
	n := 0
	for {
		var f []byte
		f, b = nextField(b)
		if len(f) == 0 {
			return n
		}
		n++
	}
}

// TCPCounters are from the Tcp: lines of /proc/net/snmp.
type TCPCounters struct{ OutSegs, RetransSegs uint64 }

// tcpKeys are the Tcp: counters TCPCounters keeps, in its fields' order.
var tcpKeys = []string{"OutSegs", "RetransSegs"}

// TCPStats reads the Tcp: lines of /proc/net/snmp without allocating.
func TCPStats(b []byte) (TCPCounters, error) {
	var t TCPCounters
	err := ScanSNMP(b, "Tcp", func(name []byte, v uint64) {
		setNamed(name, v, tcpKeys, &t.OutSegs, &t.RetransSegs)
	})
	return t, err
}

// nfsPoolKeys are the pool_stats columns facts.NFSPool keeps as counters.
var nfsPoolKeys = []string{"packets-arrived", "sockets-enqueued", "threads-woken", "threads-timedout"}

// ScanNFSPoolStats calls fn for each pool of /proc/fs/nfsd/pool_stats,
// read by its header line, which names the columns ("# pool
// packets-arrived sockets-enqueued threads-woken threads-timedout" on 6.1;
// 2.6 kernels had overloads-avoided between the last two). Columns it does
// not know are ignored.
func ScanNFSPoolStats(data []byte, fn func(facts.NFSPool)) error {
	var head []byte
	return eachLine(data, func(n int, l []byte) error {
		first, rest := nextField(l)
		if len(first) == 0 {
			return nil
		}
		if string(first) == "#" {
			head = rest
			return nil
		}
		if head == nil {
			return lineErr(n, "counters before the header line")
		}
		if nv, nh := countFields(l), countFields(head); nv != nh {
			return lineErr(n, "%d fields, the header names %d", nv, nh)
		}
		var pl facts.NFSPool
		err := columns(head, l, func(c, f []byte) error {
			v, ok := dec(f)
			if !ok {
				return lineErr(n, "%s: not a counter: %q", c, clip(string(f)))
			}
			if string(c) == "pool" {
				pl.Pool = int(min(v, 1<<20))
			}
			setNamed(c, v, nfsPoolKeys, &pl.PacketsArrived, &pl.SocketsEnqueued, &pl.ThreadsWoken, &pl.ThreadsTimedout)
			return nil
		})
		if err != nil {
			return err
		}
		fn(pl)
		return nil
	})
}

// NFSPoolStats parses /proc/fs/nfsd/pool_stats, one entry per pool.
func NFSPoolStats(data []byte) ([]facts.NFSPool, error) {
	var out []facts.NFSPool
	if err := ScanNFSPoolStats(data, func(p facts.NFSPool) { out = append(out, p) }); err != nil {
		return nil, err
	}
	return out, nil
}

// TaskStat is what /proc/PID/stat and /proc/PID/task/TID/stat say about a
// process or thread.
type TaskStat struct {
	Comm    []byte // points into the read buffer; copy before keeping
	State   byte
	Ticks   uint64 // utime + stime, in USER_HZ (100 on Linux)
	Threads uint64
}

// ProcStat reads /proc/PID/stat (or a thread's): the command name between
// the first "(" and the last ")", then the state, utime, stime and
// num_threads fields.
func ProcStat(b []byte, scratch [][]byte) (TaskStat, error) {
	var t TaskStat
	open := bytes.IndexByte(b, '(')
	cl := bytes.LastIndexByte(b, ')')
	if open < 0 || cl < open {
		return t, lineErr(1, "no (comm)")
	}
	t.Comm = b[open+1 : cl]
	f := fields(bytes.TrimSpace(b[cl+1:]), scratch)
	if len(f) < 18 {
		return t, lineErr(1, "%d fields after comm, want at least 18", len(f))
	}
	t.State = f[0][0]
	ut, ok1 := dec(f[11])
	st, ok2 := dec(f[12])
	nt, ok3 := dec(f[17])
	if !ok1 || !ok2 || !ok3 {
		return t, lineErr(1, "utime/stime/num_threads not numbers")
	}
	t.Ticks, t.Threads = ut+st, nt
	return t, nil
}

// Schedstat reads /proc/PID/schedstat: "run_ns wait_ns slices".
func Schedstat(b []byte, scratch [][]byte) (run, wait uint64, err error) {
	f := fields(bytes.TrimSpace(b), scratch)
	if len(f) < 2 {
		return 0, 0, lineErr(1, "%d fields, want 3", len(f))
	}
	r, ok1 := dec(f[0])
	w, ok2 := dec(f[1])
	if !ok1 || !ok2 {
		return 0, 0, lineErr(1, "not numbers")
	}
	return r, w, nil
}
