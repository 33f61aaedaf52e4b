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
	b, release, err := readKmsgMapped(name, max)
	if err != nil {
		return nil, err
	}
	defer release()
	return append(make([]byte, 0, len(b)), b...), nil
}

// readKmsgMapped is readKmsg returning the log where kmsgLinesMapped
// built it, valid until release is called.
func readKmsgMapped(name string, max int) (b []byte, release func(), err error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return nil, nil, fmt.Errorf("%s: not a character device", name)
	}
	return kmsgLinesMapped(func(b []byte) (int, error) { return unix.Read(fd, b) }, name, max)
}

// kmsgLines reads /dev/kmsg records with read (one record per call) until
// EAGAIN or max bytes, and returns them as dmesg prints them; records user
// space wrote are left out (kmsg.FormatRecord).
func kmsgLines(read func([]byte) (int, error), name string, max int) ([]byte, error) {
	b, release, err := kmsgLinesMapped(read, name, max)
	if err != nil {
		return nil, err
	}
	defer release()
	return append(make([]byte, 0, len(b)), b...), nil
}

// kmsgLinesMapped is kmsgLines building the log in an anonymous mapping
// of max bytes, of which only the pages written count, valid until
// release unmaps it. The live audit parses the log there (kmsg.Parse
// keeps copies of what it keeps): the heap never holds it, where a slice
// that doubled as it grew left each smaller copy on the heap (16 + 32 +
// … + 256 KiB for a 132 KiB log) until a collection the audit never
// reaches.
func kmsgLinesMapped(read func([]byte) (int, error), name string, max int) ([]byte, func(), error) {
	const recMax = 8192 // printk's record limit is below this
	buf, err := unix.Mmap(-1, 0, max+recMax+64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	release := func() { _ = unix.Munmap(buf) } // a failed munmap leaves the pages mapped, nothing to undo
	out := buf[:0]
	rec := make([]byte, recMax)
	for len(out) < max {
		n, err := read(rec)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return out, release, nil
		case errors.Is(err, unix.EPIPE), errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			if len(out) > 0 {
				return out, release, nil
			}
			release()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		case n == 0:
			return out, release, nil
		}
		// out has room for a whole record (len(out) < max, buf holds max +
		// recMax + 64); a longer line would move to the heap, still right.
		if b, ok := kmsg.AppendRecord(out, rec[:n]); ok {
			out = append(b, '\n')
		}
	}
	return out, release, nil
}
