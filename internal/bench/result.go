// Package bench measures disks and networks so that every change nastune
// suggests can be proven on the user's own box, with or without fio and
// iperf3.
//
// bench disk writes only the file the user names, and is careful about it
// because it runs as root (testfile.go): the file is created O_EXCL|
// O_NOFOLLOW through a directory descriptor (internal/safefile), kept open
// and used by descriptor for every test and by fio (as fd 3), marked with
// a header so a leftover is recognised, checked against the free space and
// removed on every error and signal unless --keep.
//
// The network server (server.go) binds only the address it is given, and
// expects hostile clients: hello within 3 s, per-address and total
// connection caps that evict silent connections, byte and time caps per
// test, one test at a time with fair turns.
//
// The disk bench (disk.go, aio.go, fio.go, testfile.go) is Linux-only; the
// result types, the latency histogram and the network and share clients
// build for every OS the release builds for (macOS and Windows laptops).
package bench

import (
	"errors"
	"math/rand/v2"
	"sort"
	"time"
)

// DiskTests are the disk test names, in run order.
var DiskTests = []string{"seqread-direct", "seqwrite-direct", "seqread-buffered", "seqwrite-buffered", "randread4k-qd1", "randread4k-qd32", "randwrite4k-qd1"}

// TestResult is one measured test.
type TestResult struct {
	Name     string  `json:"name"`
	Bytes    int64   `json:"bytes"`
	Seconds  float64 `json:"seconds"`
	MiBPerS  float64 `json:"mib_per_s"`
	IOPS     float64 `json:"iops"`
	LatUS    Lat     `json:"lat_us"`
	Skipped  string  `json:"skipped,omitempty"`
	Runs     int     `json:"runs,omitempty"`
	SpreadLo float64 `json:"spread_lo,omitempty"` // min and max MiB/s over --repeat runs
	SpreadHi float64 `json:"spread_hi,omitempty"`
	// Verified: every byte read back was compared with what was written
	// (bench share).
	Verified bool `json:"verified,omitempty"`
}

// Lat are latency percentiles in microseconds.
type Lat struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// DiskResult is the answer of `nastune bench disk`.
type DiskResult struct {
	Kind   string       `json:"kind"` // "disk"
	Tests  []TestResult `json:"tests"`
	Host   string       `json:"host"`
	Device string       `json:"device"`
	Engine string       `json:"engine"`
	File   string       `json:"file"`
	// MemoryBacked names why the file lives in RAM (tmpfs, zram, ...):
	// such a run measures memory, not the disk.
	MemoryBacked string `json:"memory_backed,omitempty"`
	// Interrupted: a signal stopped the run; Tests holds those finished.
	Interrupted bool   `json:"interrupted,omitempty"`
	Size        int64  `json:"size"`
	Date        string `json:"date"`
}

const (
	seqBlock  = 1 << 20
	randBlock = 4096
	align     = 4096
	xattrName = "user.nastune.bench"
)

// ErrNotOurs refuses to overwrite a file nastune did not create.
var ErrNotOurs = errors.New("the file exists and was not created by nastune bench")

// ErrInterrupted is returned with the tests finished before a signal.
var ErrInterrupted = errors.New("interrupted")

func fillRandom(r *rand.Rand, b []byte) {
	for i := 0; i+8 <= len(b); i += 8 {
		v := r.Uint64()
		b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[i+4], b[i+5], b[i+6], b[i+7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	}
}

// median keeps the run with the median throughput and records the spread.
func median(runs []TestResult) TestResult {
	sort.Slice(runs, func(i, j int) bool { return runs[i].MiBPerS < runs[j].MiBPerS })
	m := runs[(len(runs)-1)/2] // the lower median with an even count: the cautious side
	if len(runs) > 1 {
		m.Runs, m.SpreadLo, m.SpreadHi = len(runs), runs[0].MiBPerS, runs[len(runs)-1].MiBPerS
	}
	return m
}

func result(name string, bytes int64, d time.Duration, ios int64, h *hist) TestResult {
	s := d.Seconds()
	return TestResult{Name: name, Bytes: bytes, Seconds: s, MiBPerS: float64(bytes) / (1 << 20) / s, IOPS: float64(ios) / s,
		LatUS: Lat{P50: h.quantile(0.50), P99: h.quantile(0.99)}}
}

// hist is a latency histogram with 4 buckets per power of two from 1 µs
// to ~70 s: fixed memory whatever the number of I/Os, ±10% accuracy.
type hist struct {
	b     [128]int64
	count int64
}

func bucket(d time.Duration) int {
	us := float64(d.Nanoseconds()) / 1000
	if us < 1 {
		return 0
	}
	i := 0
	for v := us; v >= 2; v /= 2 {
		i += 4
	}
	frac := us / float64(uint64(1)<<(i/4))
	i += int((frac - 1) * 4)
	return min(i, 127)
}

func bucketValue(i int) float64 {
	return float64(uint64(1)<<(i/4)) * (1 + (float64(i%4)+0.5)/4)
}

func (h *hist) add(d time.Duration) { h.b[bucket(d)]++; h.count++ }

func (h *hist) merge(o *hist) {
	for i := range h.b {
		h.b[i] += o.b[i]
	}
	h.count += o.count
}

func (h *hist) quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	want := int64(q*float64(h.count-1)) + 1
	var seen int64
	for i, c := range h.b {
		seen += c
		if seen >= want {
			return bucketValue(i)
		}
	}
	return bucketValue(127)
}

// The first 4 KiB of a test file nastune makes (bench disk's, bench
// share's) are a header naming it as nastune's.
const (
	headerSize  = 4096
	headerMagic = "NASTUNE-BENCH-FILE 1\n"
)
