//go:build linux && !(amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64 || mips64 || mips64le)

package bench

import "golang.org/x/sys/unix"

// rawIO is false where the pread64 offset spans two registers (32-bit
// ARM, 386, mips): there the ordinary wrappers are used.
const rawIO = false

func rawPread(fd int, b []byte, off int64) (int, error)  { return unix.Pread(fd, b, off) }
func rawPwrite(fd int, b []byte, off int64) (int, error) { return unix.Pwrite(fd, b, off) }
