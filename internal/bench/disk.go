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
package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
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

// DiskOptions configure a disk run.
type DiskOptions struct {
	File    string
	Size    int64
	Tests   []string
	Runtime time.Duration
	Force   bool // overwrite a file nastune did not create
	Keep    bool // keep the file afterwards
	Repeat  int
	// SeqBlock is the request size of the sequential tests (0: 1 MiB); a
	// multiple of 4 KiB (O_DIRECT alignment), at most 16 MiB.
	SeqBlock int
	// Progress, when set, is called as tests advance (0..1 of the run).
	Progress func(test string, frac float64)

	fd int // the open test file (setup)
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

// alignedBuf returns page-aligned memory for O_DIRECT (an anonymous mmap).
func alignedBuf(n int) ([]byte, func(), error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { _ = unix.Munmap(b) }, nil
}

// setup checks and completes the options, opens or creates the test file
// (see testfile.go) and starts the result; done closes the file and
// removes it unless --keep. Both engines run through it.
func setup(ctx context.Context, o *DiskOptions, engine string) (res *DiskResult, tf *testFile, err error) {
	if o.Size < 16<<20 {
		return nil, nil, fmt.Errorf("size %d is below the 16 MiB minimum", o.Size)
	}
	o.Size = o.Size / seqBlock * seqBlock
	if o.SeqBlock < 0 || o.SeqBlock%align != 0 || o.SeqBlock > 16<<20 {
		return nil, nil, fmt.Errorf("block size %d: give a multiple of 4 KiB up to 16 MiB", o.SeqBlock)
	}
	if o.Runtime <= 0 {
		o.Runtime = 10 * time.Second
	}
	if len(o.Tests) == 0 {
		o.Tests = DiskTests
	}
	for _, t := range o.Tests {
		if !slices.Contains(DiskTests, t) {
			return nil, nil, fmt.Errorf("unknown test %q (known: %s)", t, strings.Join(DiskTests, ", "))
		}
	}
	tf, err = openTestFile(ctx, *o)
	if err != nil {
		return nil, nil, err
	}
	o.fd = int(tf.f.Fd())
	host, _ := os.Hostname()
	return &DiskResult{Kind: "disk", Host: host, Engine: engine, File: o.File, Size: o.Size, Device: tf.device,
		MemoryBacked: tf.memory, Date: time.Now().UTC().Format(time.RFC3339)}, tf, nil
}

// runAll runs each test --repeat times through one, keeping the median
// run and the spread. On a cancelled ctx it returns the finished tests
// and ErrInterrupted.
func runAll(ctx context.Context, o DiskOptions, res *DiskResult, one func(name string, prog func(float64)) (TestResult, error)) error {
	reps := max(o.Repeat, 1)
	for i, name := range o.Tests {
		var runs []TestResult
		for r := 0; r < reps; r++ {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			prog := func(f float64) {
				if o.Progress != nil {
					o.Progress(name, (float64(i)+(float64(r)+min(f, 1))/float64(reps))/float64(len(o.Tests)))
				}
			}
			t, err := one(name, prog)
			if ctx.Err() != nil {
				return ErrInterrupted // a test cut short by the signal is not a result
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if t.Skipped != "" {
				runs = []TestResult{t}
				break
			}
			runs = append(runs, t)
		}
		res.Tests = append(res.Tests, median(runs))
	}
	return nil
}

// RunDisk runs the disk tests with the built-in engine.
func RunDisk(ctx context.Context, o DiskOptions) (*DiskResult, error) {
	res, tf, err := setup(ctx, &o, "builtin")
	if err != nil {
		return nil, err
	}
	defer tf.close()
	directOK := setDirect(o.fd, true) == nil
	_ = setDirect(o.fd, false)
	err = runAll(ctx, o, res, func(name string, prog func(float64)) (TestResult, error) {
		if (strings.Contains(name, "direct") || strings.HasPrefix(name, "rand")) && !directOK {
			return TestResult{Name: name, Skipped: "the filesystem refuses O_DIRECT (tmpfs?)"}, nil
		}
		return runDiskTest(ctx, name, o, prog)
	})
	return res, err
}

// setDirect turns O_DIRECT on or off on the open test file.
func setDirect(fd int, on bool) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		fl |= unix.O_DIRECT
	} else {
		fl &^= unix.O_DIRECT
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
	return err
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

func runDiskTest(ctx context.Context, name string, o DiskOptions, prog func(float64)) (TestResult, error) {
	switch name {
	case "seqread-direct":
		return seq(ctx, name, o, true, false, prog)
	case "seqwrite-direct":
		return seq(ctx, name, o, true, true, prog)
	case "seqread-buffered":
		return seq(ctx, name, o, false, false, prog)
	case "seqwrite-buffered":
		return seq(ctx, name, o, false, true, prog)
	case "randread4k-qd1":
		return random(ctx, name, o, false, 1, prog)
	case "randread4k-qd32":
		return random(ctx, name, o, false, 32, prog)
	case "randwrite4k-qd1":
		return random(ctx, name, o, true, 1, prog)
	}
	return TestResult{}, fmt.Errorf("unknown test %q", name)
}

// seq reads or writes the file once from the start in 1 MiB requests,
// stopping early at the runtime. Buffered reads start cold for this file
// (POSIX_FADV_DONTNEED after an fsync); buffered writes include the final
// fsync.
func seq(ctx context.Context, name string, o DiskOptions, direct, write bool, prog func(float64)) (TestResult, error) {
	fd := o.fd
	if err := setDirect(fd, direct); err != nil {
		return TestResult{}, err
	}
	if !direct {
		_ = unix.Fsync(fd)
		_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	}
	bs := int64(seqBlock)
	if o.SeqBlock > 0 {
		bs = int64(o.SeqBlock)
	}
	buf, free, err := alignedBuf(int(bs))
	if err != nil {
		return TestResult{}, err
	}
	defer free()
	fillRandom(rand.New(rand.NewPCG(1, 2)), buf)
	var h hist
	start := time.Now()
	deadline := start.Add(o.Runtime)
	var done int64
	for off := int64(0); off+bs <= o.Size; off += bs {
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		t0 := time.Now()
		var n int
		if write {
			n, err = unix.Pwrite(fd, buf, headerSize+off)
		} else {
			n, err = unix.Pread(fd, buf, headerSize+off)
		}
		if err != nil {
			return TestResult{}, err
		}
		h.add(time.Since(t0))
		done += int64(n)
		if off%(64*seqBlock) < bs {
			prog(float64(off) / float64(o.Size))
		}
	}
	if write && !direct {
		if err := unix.Fsync(fd); err != nil {
			return TestResult{}, err
		}
	}
	return result(name, done, time.Since(start), h.count, &h), nil
}

// random does 4 KiB O_DIRECT requests at random aligned offsets until the
// runtime ends: one synchronous request at a time at QD1 (fio's psync),
// native AIO at higher depths (fio's libaio), worker threads where the
// kernel has no AIO.
func random(ctx context.Context, name string, o DiskOptions, write bool, qd int, prog func(float64)) (TestResult, error) {
	if qd > 1 {
		if r, ok, err := randomAIO(ctx, name, o, write, qd, prog); ok {
			return r, err
		}
	}
	fd := o.fd
	if err := setDirect(fd, true); err != nil {
		return TestResult{}, err
	}
	blocks := o.Size / randBlock
	var total atomic.Int64
	var ios atomic.Int64
	hists := make([]hist, qd)
	errs := make(chan error, qd)
	stop := time.Now().Add(o.Runtime)
	start := time.Now()
	var wg sync.WaitGroup
	// One request at a time on a thread of its own, past the scheduler
	// (see rawPread), when another P keeps the rest of the program alive.
	raw := qd == 1 && rawIO && runtime.GOMAXPROCS(0) > 1
	pread, pwrite := unix.Pread, unix.Pwrite
	if raw {
		pread, pwrite = rawPread, rawPwrite
	}
	for w := 0; w < qd; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if raw {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			buf, free, err := alignedBuf(randBlock)
			if err != nil {
				errs <- err
				return
			}
			defer free()
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(time.Now().UnixNano())))
			for i := 0; ; i++ {
				if i%64 == 0 && (ctx.Err() != nil || time.Now().After(stop)) {
					return
				}
				off := headerSize + rng.Int64N(blocks)*randBlock
				t0 := time.Now()
				var n int
				if write {
					n, err = pwrite(fd, buf, off)
				} else {
					n, err = pread(fd, buf, off)
				}
				if err != nil {
					errs <- err
					return
				}
				hists[w].add(time.Since(t0))
				total.Add(int64(n))
				if c := ios.Add(1); w == 0 && c%1024 == 0 {
					prog(float64(time.Since(start)) / float64(o.Runtime))
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return TestResult{}, err
	}
	var h hist
	for i := range hists {
		h.merge(&hists[i])
	}
	return result(name, total.Load(), time.Since(start), ios.Load(), &h), nil
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
