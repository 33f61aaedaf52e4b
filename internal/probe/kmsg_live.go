package probe

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kmsg"
)

const (
	pathKmsg = "/dev/kmsg"
	// kmsgMax caps what is kept of the log (the kernel's buffer is
	// 2^CONFIG_LOG_BUF_SHIFT bytes, 128 KiB to a few MiB).
	kmsgMax = 4 << 20
)

// readKmsg reads every record /dev/kmsg holds and returns them as dmesg
// prints them. /dev/kmsg is a character device: each read() returns one
// record, and at the end of the buffer a blocking read would wait for the
// next message, so it is opened O_NONBLOCK and read until EAGAIN. EPIPE
// means records were overwritten while reading: skip to the next.
func readKmsg(name string, max int) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return nil, fmt.Errorf("%s: not a character device", name)
	}
	return kmsgLines(func(b []byte) (int, error) { return unix.Read(fd, b) }, name, max)
}

// kmsgLines reads /dev/kmsg records with read (one record per call) until
// EAGAIN or max bytes, and returns them as dmesg prints them; records user
// space wrote are left out (kmsg.FormatRecord).
//
// The log is built in an anonymous mapping of max bytes, of which only
// the pages written count, and copied out at its size: a slice that
// doubled as it grew left each smaller copy on the heap (16 + 32 + … +
// 256 KiB for a 132 KiB log) until a collection the audit never reaches.
func kmsgLines(read func([]byte) (int, error), name string, max int) ([]byte, error) {
	const recMax = 8192 // printk's record limit is below this
	buf, err := unix.Mmap(-1, 0, max+recMax+64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer unix.Munmap(buf)
	out := buf[:0]
	done := func() []byte { return append(make([]byte, 0, len(out)), out...) }
	rec := make([]byte, recMax)
	for len(out) < max {
		n, err := read(rec)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return done(), nil
		case errors.Is(err, unix.EPIPE), errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			if len(out) > 0 {
				return done(), nil
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		case n == 0:
			return done(), nil
		}
		// out has room for a whole record (len(out) < max, buf holds max +
		// recMax + 64): the appends below stay in the mapping.
		if b, ok := kmsg.AppendRecord(out, rec[:n]); ok {
			out = append(b, '\n')
		}
	}
	return done(), nil
}
