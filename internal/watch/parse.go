package watch

import (
	"bytes"
	"fmt"
	"strconv"
)

// The parsers below read one /proc file each into caller-owned structs.
// They allocate as little as possible: the sampler calls every one of
// them once per interval.

// fields splits line on spaces and tabs into dst (reused).
func fields(line []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

// lines calls fn for each line of b with its 1-based number.
func lines(b []byte, fn func(n int, l []byte) error) error {
	n := 0
	for len(b) > 0 {
		n++
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		if err := fn(n, l); err != nil {
			return err
		}
	}
	return nil
}

func atou(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

func hexu(b []byte) (uint64, bool) {
	v, err := strconv.ParseUint(string(b), 16, 64)
	return v, err == nil
}

// CPUTimes are the cumulative jiffies of one /proc/stat cpu line.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is every jiffy the CPU accounted for (guest time is already in user).
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// parseStat reads the aggregate "cpu" line and the per-CPU "cpuN" lines of
// /proc/stat into all and cores (indexed by N, grown as needed).
func parseStat(b []byte, all *CPUTimes, cores []CPUTimes, scratch [][]byte) ([]CPUTimes, error) {
	cores = cores[:0]
	err := lines(b, func(n int, l []byte) error {
		if !bytes.HasPrefix(l, []byte("cpu")) {
			return nil
		}
		f := fields(l, scratch)
		if len(f) < 9 {
			return fmt.Errorf("/proc/stat line %d: %d fields, want at least 9", n, len(f))
		}
		var t CPUTimes
		dst := []*uint64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal}
		for i, p := range dst {
			v, ok := atou(f[i+1])
			if !ok {
				return fmt.Errorf("/proc/stat line %d: field %d %q is not a number", n, i+2, f[i+1])
			}
			*p = v
		}
		if len(f[0]) == 3 {
			*all = t
			return nil
		}
		idx, ok := atou(f[0][3:])
		if !ok || idx > 1<<14 {
			return fmt.Errorf("/proc/stat line %d: bad cpu name %q", n, f[0])
		}
		for len(cores) <= int(idx) {
			cores = append(cores, CPUTimes{})
		}
		cores[idx] = t
		return nil
	})
	return cores, err
}

// PSI is the cumulative stall time in microseconds of one
// /proc/pressure file.
type PSI struct {
	Some, Full uint64
	OK         bool
}

func parsePSI(b []byte, scratch [][]byte) (PSI, error) {
	var p PSI
	err := lines(b, func(n int, l []byte) error {
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
		v, ok := atou(total)
		if !ok {
			return fmt.Errorf("line %d: no total= value", n)
		}
		switch string(f[0]) {
		case "some":
			p.Some = v
		case "full":
			p.Full = v
		default:
			return fmt.Errorf("line %d: want some or full, got %q", n, f[0])
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

// parseDiskstats fills out with one entry per line whose device is in
// keep (nil keeps all); names are interned through names to avoid a
// string allocation per line per sample.
func parseDiskstats(b []byte, out []DiskCounters, keep map[string]bool, names map[string]string, scratch [][]byte) ([]DiskCounters, error) {
	out = out[:0]
	err := lines(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 {
			return nil
		}
		if len(f) < 14 {
			return fmt.Errorf("/proc/diskstats line %d: %d fields, want at least 14", n, len(f))
		}
		name, ok := names[string(f[2])]
		if !ok {
			name = string(f[2])
			if names != nil {
				names[name] = name
			}
		}
		if keep != nil && !keep[name] {
			return nil
		}
		var d DiskCounters
		d.Name = name
		idx := []int{3, 5, 6, 7, 9, 10, 11, 12, 13}
		dst := []*uint64{&d.Reads, &d.ReadSectors, &d.ReadMS, &d.Writes, &d.WriteSectors, &d.WriteMS, &d.InFlight, &d.IOMS, &d.WeightedMS}
		for i, p := range dst {
			v, ok := atou(f[idx[i]])
			if !ok {
				return fmt.Errorf("/proc/diskstats line %d: field %d %q is not a number", n, idx[i]+1, f[idx[i]])
			}
			*p = v
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

// NetCounters are the byte and drop counters of one /proc/net/dev line.
type NetCounters struct {
	Name                         string
	RxBytes, RxDrop, TxBytes     uint64
	RxPackets, TxPackets, TxDrop uint64
}

func parseNetDev(b []byte, out []NetCounters, names map[string]string, scratch [][]byte) ([]NetCounters, error) {
	out = out[:0]
	err := lines(b, func(n int, l []byte) error {
		c := bytes.IndexByte(l, ':')
		if c < 0 || n <= 2 {
			return nil
		}
		nm := bytes.TrimSpace(l[:c])
		name, ok := names[string(nm)]
		if !ok {
			name = string(nm)
			if names != nil {
				names[name] = name
			}
		}
		f := fields(l[c+1:], scratch)
		if len(f) < 16 {
			return fmt.Errorf("/proc/net/dev line %d: %d counters, want 16", n, len(f))
		}
		var v [16]uint64
		for i := range v {
			x, ok := atou(f[i])
			if !ok {
				return fmt.Errorf("/proc/net/dev line %d: counter %d %q is not a number", n, i+1, f[i])
			}
			v[i] = x
		}
		out = append(out, NetCounters{Name: name, RxBytes: v[0], RxPackets: v[1], RxDrop: v[3], TxBytes: v[8], TxPackets: v[9], TxDrop: v[11]})
		return nil
	})
	return out, err
}

// parseKeyed reads "Name: value ..." (meminfo) or "name value" (vmstat)
// lines and calls set for every key with a numeric first value.
func parseKeyed(b []byte, scratch [][]byte, set func(key []byte, v uint64)) error {
	return lines(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) < 2 {
			return nil
		}
		v, ok := atou(f[1])
		if !ok {
			return fmt.Errorf("line %d: %q is not a number", n, f[1])
		}
		set(bytes.TrimSuffix(f[0], []byte(":")), v)
		return nil
	})
}

// VM holds the /proc/vmstat and /proc/meminfo values watch reasons on.
type VM struct {
	PgScan, PgSteal, Refault, AllocStall uint64 // cumulative pages / events
	DirtyKiB, WritebackKiB               uint64
	MemTotalKiB, MemAvailableKiB         uint64
}

func (m *VM) setVmstat(k []byte, v uint64) {
	switch {
	case bytes.HasPrefix(k, []byte("pgscan_")) && !bytes.Equal(k, []byte("pgscan_anon")) && !bytes.Equal(k, []byte("pgscan_file")):
		m.PgScan += v
	case bytes.HasPrefix(k, []byte("pgsteal_")) && !bytes.Equal(k, []byte("pgsteal_anon")) && !bytes.Equal(k, []byte("pgsteal_file")):
		m.PgSteal += v
	case bytes.Equal(k, []byte("workingset_refault_file")) || bytes.Equal(k, []byte("workingset_refault_anon")) || bytes.Equal(k, []byte("workingset_refault")):
		m.Refault += v
	case bytes.HasPrefix(k, []byte("allocstall")):
		m.AllocStall += v
	}
}

func (m *VM) setMeminfo(k []byte, v uint64) {
	switch string(k) {
	case "Dirty":
		m.DirtyKiB = v
	case "Writeback":
		m.WritebackKiB = v
	case "MemTotal":
		m.MemTotalKiB = v
	case "MemAvailable":
		m.MemAvailableKiB = v
	}
}

// TCPCounters are from the Tcp: lines of /proc/net/snmp.
type TCPCounters struct{ OutSegs, RetransSegs uint64 }

func parseSNMP(b []byte, scratch [][]byte) (TCPCounters, error) {
	var t TCPCounters
	var head [][]byte
	found := false
	err := lines(b, func(n int, l []byte) error {
		if !bytes.HasPrefix(l, []byte("Tcp:")) {
			return nil
		}
		if head == nil {
			head = bytes.Fields(l)
			return nil
		}
		f := fields(l, scratch)
		if len(f) != len(head) {
			return fmt.Errorf("/proc/net/snmp line %d: %d values for %d names", n, len(f), len(head))
		}
		for i := range head {
			switch string(head[i]) {
			case "OutSegs":
				t.OutSegs, _ = atou(f[i])
			case "RetransSegs":
				t.RetransSegs, _ = atou(f[i])
			}
		}
		found = true
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("/proc/net/snmp: no Tcp: lines")
	}
	return t, err
}

// Softnet sums the per-CPU lines of /proc/net/softnet_stat.
type Softnet struct{ Processed, Dropped, Squeezed uint64 }

func parseSoftnet(b []byte, scratch [][]byte) (Softnet, error) {
	var s Softnet
	err := lines(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 {
			return nil
		}
		if len(f) < 3 {
			return fmt.Errorf("/proc/net/softnet_stat line %d: %d columns, want at least 3", n, len(f))
		}
		var v [3]uint64
		for i := range v {
			x, ok := hexu(f[i])
			if !ok {
				return fmt.Errorf("/proc/net/softnet_stat line %d: %q is not hexadecimal", n, f[i])
			}
			v[i] = x
		}
		s.Processed += v[0]
		s.Dropped += v[1]
		s.Squeezed += v[2]
		return nil
	})
	return s, err
}

// NFSdPool sums /proc/fs/nfsd/pool_stats over pools.
type NFSdPool struct {
	Packets, SocketsEnqueued, ThreadsWoken uint64
	OK                                     bool
}

func parseNFSdPool(b []byte, scratch [][]byte) (NFSdPool, error) {
	var p NFSdPool
	err := lines(b, func(n int, l []byte) error {
		f := fields(l, scratch)
		if len(f) == 0 || f[0][0] == '#' {
			return nil
		}
		if len(f) < 4 {
			return fmt.Errorf("/proc/fs/nfsd/pool_stats line %d: %d columns, want at least 4", n, len(f))
		}
		var v [3]uint64
		for i := range v {
			x, ok := atou(f[i+1])
			if !ok {
				return fmt.Errorf("/proc/fs/nfsd/pool_stats line %d: %q is not a number", n, f[i+1])
			}
			v[i] = x
		}
		p.Packets += v[0]
		p.SocketsEnqueued += v[1]
		p.ThreadsWoken += v[2]
		p.OK = true
		return nil
	})
	return p, err
}

// MDSync is a running resync/recovery/check of one md array.
type MDSync struct {
	Name      string  `json:"name"`
	Action    string  `json:"action"`          // resync, recovery, check, reshape
	Percent   float64 `json:"percent"`         // done
	SpeedKiBs uint64  `json:"speed_kib_per_s"` // the kernel's own current speed
}

// parseMdstat returns the arrays of /proc/mdstat with a progress line.
func parseMdstat(b []byte) []MDSync {
	var out []MDSync
	cur := ""
	_ = lines(b, func(_ int, l []byte) error {
		f := bytes.Fields(l)
		if len(f) >= 3 && bytes.Equal(f[1], []byte(":")) && bytes.HasPrefix(f[0], []byte("md")) {
			cur = string(f[0])
			return nil
		}
		if cur == "" {
			return nil
		}
		var m MDSync
		for i, x := range f {
			switch {
			case bytes.Equal(x, []byte("=")) && i > 0 && i+1 < len(f):
				m.Action = string(f[i-1])
				p, err := strconv.ParseFloat(string(bytes.TrimSuffix(f[i+1], []byte("%"))), 64)
				if err == nil {
					m.Percent = p
				}
			case bytes.HasPrefix(x, []byte("speed=")):
				v, ok := atou(bytes.TrimSuffix(x[6:], []byte("K/sec")))
				if ok {
					m.SpeedKiBs = v
				}
			}
		}
		if m.Action != "" {
			m.Name = cur
			out = append(out, m)
		}
		return nil
	})
	return out
}

// TaskStat is what /proc/PID/stat and /proc/PID/task/TID/stat say about a
// process or thread.
type TaskStat struct {
	Comm    []byte // points into the read buffer; copy before keeping
	State   byte
	Ticks   uint64 // utime + stime, in USER_HZ (100 on Linux)
	Threads uint64
}

func parseTaskStat(b []byte, scratch [][]byte) (TaskStat, error) {
	var t TaskStat
	open := bytes.IndexByte(b, '(')
	cl := bytes.LastIndexByte(b, ')')
	if open < 0 || cl < open {
		return t, fmt.Errorf("no (comm)")
	}
	t.Comm = b[open+1 : cl]
	f := fields(bytes.TrimSpace(b[cl+1:]), scratch)
	if len(f) < 18 {
		return t, fmt.Errorf("%d fields after comm, want at least 18", len(f))
	}
	t.State = f[0][0]
	ut, ok1 := atou(f[11])
	st, ok2 := atou(f[12])
	nt, ok3 := atou(f[17])
	if !ok1 || !ok2 || !ok3 {
		return t, fmt.Errorf("utime/stime/num_threads not numbers")
	}
	t.Ticks, t.Threads = ut+st, nt
	return t, nil
}

// parseSchedstat reads "run_ns wait_ns slices".
func parseSchedstat(b []byte, scratch [][]byte) (run, wait uint64, err error) {
	f := fields(bytes.TrimSpace(b), scratch)
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("%d fields, want 3", len(f))
	}
	r, ok1 := atou(f[0])
	w, ok2 := atou(f[1])
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("not numbers")
	}
	return r, w, nil
}
