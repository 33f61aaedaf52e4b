//go:build linux

package bench

import (
	"context"
	"math/rand/v2"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux native AIO (include/uapi/linux/aio_abi.h), the engine fio calls
// libaio: io_setup, io_submit and io_getevents through raw syscalls, so
// QD32 keeps 32 requests in flight from one thread, without cgo.

type iocb struct {
	data   uint64
	_      uint32 // aio_key
	_      uint32 // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	buf    uint64
	nbytes uint64
	offset int64
	_      uint64 // aio_reserved2
	_      uint32 // aio_flags
	_      uint32 // aio_resfd
}

type ioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

const (
	iocbCmdPread  = 0
	iocbCmdPwrite = 1
)

// randomAIO keeps qd 4 KiB O_DIRECT requests in flight at random offsets
// until the runtime ends. ok is false when the kernel has no AIO (the
// caller falls back to worker threads).
func randomAIO(ctx context.Context, name string, o DiskOptions, write bool, qd int, prog func(float64)) (res TestResult, ok bool, err error) {
	fd := o.fd
	if err := setDirect(fd, true); err != nil {
		return TestResult{}, true, err
	}
	var aioCtx uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, uintptr(qd), uintptr(unsafe.Pointer(&aioCtx)), 0); e != 0 {
		return TestResult{}, false, nil
	}
	defer func() { _, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, aioCtx, 0, 0) }()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// As at QD1 (see rawPread): past the scheduler when another P keeps
	// the program alive; io_getevents is where this thread waits.
	sys := unix.Syscall6
	if runtime.GOMAXPROCS(0) > 1 {
		sys = unix.RawSyscall6
	}

	mem, free, err := alignedBuf(qd * randBlock)
	if err != nil {
		return TestResult{}, true, err
	}
	defer free()
	cbs := make([]iocb, qd)
	ptrs := make([]*iocb, qd)
	sent := make([]time.Time, qd)
	events := make([]ioEvent, qd)
	blocks := o.Size / randBlock
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	op := uint16(iocbCmdPread)
	if write {
		op = iocbCmdPwrite
	}
	prep := func(i int) {
		cbs[i] = iocb{data: uint64(i), opcode: op, fildes: uint32(fd),
			buf: uint64(uintptr(unsafe.Pointer(&mem[i*randBlock]))), nbytes: randBlock, offset: headerSize + rng.Int64N(blocks)*randBlock}
		ptrs[i] = &cbs[i]
		sent[i] = time.Now()
	}
	submit := func(list []*iocb) error {
		for len(list) > 0 {
			n, _, e := sys(unix.SYS_IO_SUBMIT, aioCtx, uintptr(len(list)), uintptr(unsafe.Pointer(&list[0])), 0, 0, 0)
			if e != 0 {
				return e
			}
			list = list[n:]
		}
		return nil
	}
	for i := range cbs {
		prep(i)
	}
	start := time.Now()
	stop := start.Add(o.Runtime)
	if err := submit(ptrs); err != nil {
		return TestResult{}, true, err
	}
	var h hist
	var total, ios int64
	inflight := qd
	again := make([]*iocb, 0, qd)
	for inflight > 0 {
		// Reap one completion and refill at once, as fio's libaio engine
		// does by default: reaping everything completed lets the queue
		// drain well below qd before the refill (0.87× fio's IOPS here;
		// one at a time: 1.0×).
		n, _, e := sys(unix.SYS_IO_GETEVENTS, aioCtx, 1, 1, uintptr(unsafe.Pointer(&events[0])), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return TestResult{}, true, e
		}
		now := time.Now()
		draining := now.After(stop) || ctx.Err() != nil
		again = again[:0]
		for _, ev := range events[:n] {
			i := int(ev.data)
			if ev.res < 0 {
				return TestResult{}, true, unix.Errno(-ev.res)
			}
			h.add(now.Sub(sent[i]))
			total += ev.res
			ios++
			if draining {
				inflight--
				continue
			}
			prep(i)
			again = append(again, ptrs[i])
		}
		if len(again) > 0 {
			if err := submit(again); err != nil {
				return TestResult{}, true, err
			}
		}
		if ios%4096 == 0 {
			prog(float64(now.Sub(start)) / float64(o.Runtime))
		}
	}
	runtime.KeepAlive(cbs)
	runtime.KeepAlive(mem)
	return result(name, total, time.Since(start), ios, &h), true, nil
}
