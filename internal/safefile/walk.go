//go:build linux

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The one path walker of nastune (OpenDir, Dir.Resolve; apply writes
// through it). A path is resolved one component at a time from a held
// directory descriptor: each component is opened O_PATH|O_NOFOLLOW and
// inspected through that descriptor (fstat, readlinkat on the link
// itself), so what is checked is what is used. The trust policy:
//
//   - a symbolic link is followed only when it and the directory holding
//     it belong to root or to us (trusted), unless Policy.AnyOwner;
//   - the last component is followed only when Policy.FollowFinal (or it
//     must be a directory, as in OpenDir);
//   - the directory handed back (OpenDir's, or the one holding a
//     resolved name when not AnyOwner) must not be writable by everyone
//     without the sticky bit;
//   - a walk below a root (Dir.Resolve) never leaves it: ".." stops at
//     the root and an absolute link target starts again at the root.
//
// At most maxLinks links are followed per walk.

// Policy is what a walk may follow (see the comment above).
type Policy struct {
	// AnyOwner follows every symbolic link, whoever owns it; the walk is
	// then protected only by its confinement to the root (reading a
	// captured tree, whose files another machine's users made).
	AnyOwner bool
	// FollowFinal follows a symbolic link in the last component.
	FollowFinal bool
}

// Entry is a path resolved to its last component: the directory holding
// it, held open, and its name there (which may not exist).
type Entry struct {
	Dir  *Dir
	Name string
	Real string // the path below the root after following links
}

// Close releases the directory.
func (e *Entry) Close() error { return e.Dir.Close() }

// Resolve walks p (absolute, taken as below d) to its last component,
// confined to d, under pol. A missing last component is not an error; a
// path that resolves to d itself (or ends in "..") is.
func (d *Dir) Resolve(p string, pol Policy) (*Entry, error) {
	if !path.IsAbs(p) {
		return nil, fmt.Errorf("%s: not an absolute path", p)
	}
	start, err := unix.Dup(d.fd)
	if err != nil {
		return nil, err
	}
	w := walker{confined: true, pol: pol, display: p}
	fd, name, real, err := w.run(start, splitPath(p), false)
	if err != nil {
		return nil, err
	}
	if !pol.AnyOwner {
		if err := checkHeld(fd, path.Dir(real)); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return &Entry{Dir: &Dir{fd: fd, path: filepath.Join(d.path, path.Dir(real))}, Name: name, Real: real}, nil
}

// OpenRoot opens root to walk below it with Resolve: by OpenDir when the
// policy trusts owners, plainly (the operator named it) when AnyOwner.
func OpenRoot(root string, pol Policy) (*Dir, error) {
	if !pol.AnyOwner {
		return OpenDir(root)
	}
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening root %s: %w", root, err)
	}
	return &Dir{fd: fd, path: root}, nil
}

// walker is one resolution in progress.
type walker struct {
	confined bool // ".." and absolute links stay below stack[0]
	pol      Policy
	display  string // the path asked for, for messages
	stack    []int  // held directories, the current one last
	names    []string
	links    int
}

func (w *walker) closeAll() {
	for _, fd := range w.stack {
		unix.Close(fd)
	}
	w.stack = nil
}

// top keeps the current directory open and closes the others.
func (w *walker) top() int {
	fd := w.stack[len(w.stack)-1]
	for _, o := range w.stack[:len(w.stack)-1] {
		unix.Close(o)
	}
	w.stack = nil
	return fd
}

func (w *walker) real(c string) string {
	return "/" + path.Join(append(w.names[:len(w.names):len(w.names)], c)...)
}

// run resolves comps from start (which it owns). wantDir: the whole path
// must be a directory, returned as fd; else the directory holding the last
// component is returned with its name.
func (w *walker) run(start int, comps []string, wantDir bool) (int, string, string, error) {
	w.stack = []int{start}
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		last := len(comps) == 0
		if c == "." {
			continue
		}
		cur := w.stack[len(w.stack)-1]
		if c == ".." {
			switch {
			case len(w.stack) > 1:
				unix.Close(cur)
				w.stack, w.names = w.stack[:len(w.stack)-1], w.names[:len(w.names)-1]
			case !w.confined: // above a relative start
				up, err := unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					w.closeAll()
					return -1, "", "", &os.PathError{Op: "open", Path: w.display, Err: err}
				}
				unix.Close(cur)
				w.stack[0] = up
			}
			continue
		}
		nfd, err := unix.Openat(cur, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if last && !wantDir && errors.Is(err, unix.ENOENT) {
			return w.top(), c, w.real(c), nil
		}
		if err != nil {
			w.closeAll()
			return -1, "", "", &os.PathError{Op: "open", Path: w.real(c), Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(nfd, &st); err != nil {
			unix.Close(nfd)
			w.closeAll()
			return -1, "", "", &os.PathError{Op: "stat", Path: w.real(c), Err: err}
		}
		typ := st.Mode & unix.S_IFMT
		if typ == unix.S_IFLNK && (!last || wantDir || w.pol.FollowFinal) {
			target, err := w.link(cur, nfd, c, st.Uid)
			unix.Close(nfd)
			if err != nil {
				w.closeAll()
				return -1, "", "", err
			}
			if strings.HasPrefix(target, "/") {
				if w.confined {
					for _, fd := range w.stack[1:] {
						unix.Close(fd)
					}
					w.stack = w.stack[:1]
				} else {
					w.closeAll()
					fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
					if err != nil {
						return -1, "", "", err
					}
					w.stack = []int{fd}
				}
				w.names = w.names[:0]
			}
			comps = append(splitPath(target), comps...)
			continue
		}
		if last && !wantDir {
			unix.Close(nfd)
			return w.top(), c, w.real(c), nil
		}
		if typ != unix.S_IFDIR {
			unix.Close(nfd)
			w.closeAll()
			return -1, "", "", fmt.Errorf("%s: not a folder", w.real(c))
		}
		w.stack = append(w.stack, nfd)
		w.names = append(w.names, c)
	}
	if !wantDir {
		w.closeAll()
		return -1, "", "", fmt.Errorf("%s: resolves to a folder", w.display)
	}
	return w.top(), "", "/" + path.Join(w.names...), nil
}

// link checks the symbolic link c (held as nfd, owned by uid, in the
// directory cur) against the policy and reads it.
func (w *walker) link(cur, nfd int, c string, uid uint32) (string, error) {
	if !w.pol.AnyOwner {
		var dst unix.Stat_t
		if err := unix.Fstat(cur, &dst); err != nil {
			return "", err
		}
		if !trusted(uid) || !trusted(dst.Uid) {
			return "", fmt.Errorf("%s: %w: %s is a symbolic link owned by uid %d in a folder owned by uid %d; give the real path",
				w.display, ErrUnsafe, w.real(c), uid, dst.Uid)
		}
	}
	if w.links++; w.links > maxLinks {
		return "", &os.PathError{Op: "open", Path: w.display, Err: unix.ELOOP}
	}
	target, err := readlinkat(nfd, "")
	if err != nil {
		return "", &os.PathError{Op: "readlink", Path: w.real(c), Err: err}
	}
	return target, nil
}

// checkHeld refuses a directory everyone may write without the sticky bit:
// anyone could swap the names in it.
func checkHeld(fd int, p string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&0o002 != 0 && st.Mode&unix.S_ISVTX == 0 {
		return fmt.Errorf("%s: %w: the directory is writable by everyone without the sticky bit", p, ErrUnsafe)
	}
	return nil
}

// splitPath is p's components without empty ones.
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// readlinkat reads the link name in dirfd ("" with an O_PATH descriptor
// of the link itself).
func readlinkat(dirfd int, name string) (string, error) {
	for n := 256; n <= 1<<16; n *= 4 {
		b := make([]byte, n)
		k, err := unix.Readlinkat(dirfd, name, b)
		if err != nil {
			return "", err
		}
		if k < n {
			return string(b[:k]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}
