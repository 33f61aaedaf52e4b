package hostfs

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
)

// ReadInto reads a whole file of at most MaxFileSize bytes into buf,
// growing it when needed, and returns the filled slice. Samplers that read
// the same /proc file every second (nastune watch) pass the previous
// result back in so a steady-state read allocates nothing. It is not
// recorded into snapshots. It reads kernel counter files only (/proc and
// /sys, not command lines or *_key sysctls), which hold no secrets: the
// redaction of ReadFile is skipped, so anything else is refused.
func (r *Root) ReadInto(name string, buf []byte) ([]byte, error) {
	c := path.Clean(name)
	if !(strings.HasPrefix(c, "/proc/") || strings.HasPrefix(c, "/sys/")) ||
		path.Base(c) == "cmdline" || path.Base(c) == "environ" || strings.HasSuffix(c, "_key") {
		return buf[:0], &fs.PathError{Op: "open", Path: name, Err: errors.New("ReadInto reads kernel counter files only; use ReadFile")}
	}
	f, _, err := r.open(name, kindFile)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	if cap(buf) < 4096 {
		buf = make([]byte, 0, 4096)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxFileSize {
				return buf[:0], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 && len(buf) > MaxFileSize {
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
	}
}
