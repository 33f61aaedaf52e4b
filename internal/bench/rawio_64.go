//go:build linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64 || mips64 || mips64le)

package bench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawIO reports whether rawPread/rawPwrite bypass the Go scheduler here.
const rawIO = true

// rawPread is pread(2) without the scheduler's syscall bookkeeping. At
// QD1 a request takes tens of microseconds, and the runtime handing the P
// to another thread while it waits cost 10% of the IOPS fio's psync engine
// reaches on the same file (measured: 11.8k vs 13.1k; raw 13.0k). Only
// used from a locked thread with GOMAXPROCS > 1, so other goroutines keep
// running while a request blocks. On 64-bit Linux the offset is one
// register.
func rawPread(fd int, b []byte, off int64) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return int(n), e
	}
	return int(n), nil
}

func rawPwrite(fd int, b []byte, off int64) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return int(n), e
	}
	return int(n), nil
}
