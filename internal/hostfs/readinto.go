package hostfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// fdReader reads a descriptor with read(2), io.EOF at its end.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// ReadInto reads a whole file of at most MaxFileSize bytes into buf,
// growing it when needed, and returns the filled slice. Samplers that read
// the same /proc file every second (nastune watch) pass the previous
// result back in so a steady-state read allocates nothing. It is not
// recorded into snapshots. It reads kernel counter files only (/proc and
// /sys, not command lines or *_key sysctls), which hold no secrets: the
// redaction of ReadFile is skipped, so anything else is refused.
func (r *Root) ReadInto(name string, buf []byte) ([]byte, error) {
	if err := counterName(name); err != nil {
		return buf[:0], err
	}
	// The descriptor itself, not an os.File (whose non-blocking
	// descriptor would be offered to the poller): a sampler reads
	// hundreds of these a second.
	fd, real, err := r.openFD(name, kindFile)
	if err != nil {
		return buf[:0], err
	}
	if err := counterReal(name, real); err != nil {
		unix.Close(fd)
		return buf[:0], err
	}
	defer unix.Close(fd)
	return readAll(fdReader(fd), name, buf)
}

// counterReal refuses a counter name whose real path (links resolved) is
// not one: what is read unredacted is decided by the file read, not by
// the name that led there (a captured tree's /proc/1/stat may be a link
// to its smb.conf, /proc/self/root/… leads anywhere on the live system).
func counterReal(name, real string) error {
	if counterName(real) != nil {
		return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("leads to %q, not a kernel counter file: ReadInto reads kernel counter files only; use ReadFile", real)}
	}
	return nil
}

// counterName refuses what ReadInto and OpenCounter do not read.
func counterName(name string) error {
	c := path.Clean(name)
	if !(strings.HasPrefix(c, "/proc/") || strings.HasPrefix(c, "/sys/")) ||
		path.Base(c) == "cmdline" || path.Base(c) == "environ" || strings.HasSuffix(c, "_key") {
		return &fs.PathError{Op: "open", Path: name, Err: errors.New("ReadInto reads kernel counter files only; use ReadFile")}
	}
	return nil
}

func readAll(f io.Reader, name string, buf []byte) ([]byte, error) {
	if cap(buf) < 4096 {
		buf = make([]byte, 0, 4096)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		// Checked at every read, the last too: a file of up to the
		// next growth of the buffer past MaxFileSize (~5 MiB) used to
		// be returned whole when its end came with the read that
		// crossed the limit.
		if len(buf) > MaxFileSize {
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
}

// Counter is a kernel counter file of the live system held open, read
// again from its start by each ReadInto: a sampler reading a task's stat
// every interval makes one system call instead of five. A /proc/PID file
// held open stays the file of that task: once the task has exited, a read
// fails with ESRCH even when its pid is used again.
type Counter struct {
	p    preader
	name string
}

// OpenCounter opens name as ReadInto would (a kernel counter file, checked
// the same way) and keeps it open; live system only.
func (r *Root) OpenCounter(name string) (*Counter, error) {
	if err := counterName(name); err != nil {
		return nil, err
	}
	if r.tree != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a captured tree's counters do not change: use ReadInto")}
	}
	fd, real, err := openLive(name, kindFile)
	if err != nil {
		return nil, err
	}
	if err := counterReal(name, real); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Counter{p: preader{fd: fd}, name: name}, nil
}

// ReadInto reads the whole file again into buf, as Root.ReadInto.
func (c *Counter) ReadInto(buf []byte) ([]byte, error) {
	c.p.off = 0
	return readAll(&c.p, c.name, buf)
}

// Close closes the file.
func (c *Counter) Close() error { return unix.Close(c.p.fd) }

// preader reads a descriptor from offset 0 on with pread(2).
type preader struct {
	fd  int
	off int64
}

func (p *preader) Read(b []byte) (int, error) {
	for {
		n, err := unix.Pread(p.fd, b, p.off)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		p.off += int64(n)
		return n, nil
	}
}

// streamable are the files Stream opens: large, read once front to back
// for a small part, and holding no secret.
var streamable = map[string]bool{
	"/var/lib/dpkg/status": true, // Debian's package database (deb-status(5))
}

// Stream opens a large file to be read once, front to back, without
// holding it: Debian's package database is 0.5-2 MiB, of which the audit
// wants one stanza. The open is ReadFile's checked open (type, secret
// paths); what is read is neither recorded into snapshots nor redacted, so
// only the files of an allow-list that hold no secret are opened.
func (r *Root) Stream(name string) (io.ReadCloser, error) {
	if !streamable[path.Clean(name)] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("Stream opens listed package databases only; use ReadFile")}
	}
	f, _, err := r.open(name, kindFile)
	if err != nil {
		return nil, err
	}
	return f, nil
}
