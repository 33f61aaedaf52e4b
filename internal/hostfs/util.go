package hostfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"golang.org/x/sys/unix"
)

func sortEntries(e []fs.DirEntry) {
	sort.Slice(e, func(i, j int) bool { return e[i].Name() < e[j].Name() })
}

func realpathLive(name string) (string, error) {
	return filepath.EvalSymlinks(name)
}

// openNonblock opens name read-only without waiting for a writer (a FIFO)
// or a carrier (a tty): open(2) with O_NONBLOCK returns at once.
func openNonblock(name string) (int, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

// fdPath is the path the kernel reports for an open file: the real path,
// links resolved. It falls back to name when /proc is not mounted.
func fdPath(fd int, name string) string {
	if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err == nil && filepath.IsAbs(p) {
		return p
	}
	if p, err := filepath.EvalSymlinks(name); err == nil {
		return p
	}
	return filepath.Clean(name)
}

// OpenRegular opens a file the user named on the command line (a snapshot,
// an audit JSON, a saved benchmark) read-only. It refuses FIFOs, sockets
// and devices with ErrNotRegular naming the file and its type, so such a
// file cannot hang nastune.
func OpenRegular(name string) (*os.File, error) {
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, typeName(st.Mode()))}
	}
	fd, err := openNonblock(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%w (%s)", ErrNotRegular, typeName(st.Mode()))
		if st.IsDir() {
			err = errors.New("is a directory")
		}
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapPathErr(err)}
	}
	return f, nil
}

// ReadRegular reads a file the user named, at most limit bytes (larger
// is ErrTooLarge), through OpenRegular.
func ReadRegular(name string, limit int64) ([]byte, error) {
	f, err := OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPathErr(err)}
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return b, nil
}
