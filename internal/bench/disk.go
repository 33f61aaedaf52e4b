//go:build linux

package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

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
