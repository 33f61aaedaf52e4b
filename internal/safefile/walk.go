//go:build linux

package safefile

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/nastune/nastune/internal/pathwalk"
	"golang.org/x/sys/unix"
)

// The writer's side of the one path walker (internal/pathwalk: the walk
// and the trust policy are there). OpenDir and Dir.Resolve hold directory
// descriptors: each component is opened O_PATH|O_NOFOLLOW on the held
// folder and inspected through that descriptor (fstat, readlinkat on the
// link itself), so what is checked is what is used. Beyond pathwalk's
// policy, the writer refuses to hand back a directory everyone may write
// without the sticky bit (OpenDir's, or the one holding a resolved name
// when not AnyOwner): anyone could swap the names in it. A walk below a
// root (Dir.Resolve) is confined to it; OpenDir walks from "/" (or ".").

// Policy is what a walk may follow: pathwalk's, the one trust policy.
type Policy = pathwalk.Policy

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
	fd, name, real, err := w.run(start, pathwalk.Split(p), false)
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

// walker is one resolution in progress: the pathwalk.Cursor of the
// writer, holding directory descriptors.
type walker struct {
	confined bool // ".." and absolute links stay below stack[0]
	pol      Policy
	display  string // the path asked for, for messages
	stack    []int  // held directories, the current one last
	names    []string
	pending  int // the component Look opened, until Enter takes it (-1: none)
}

func (w *walker) dropPending() {
	if w.pending >= 0 {
		unix.Close(w.pending)
		w.pending = -1
	}
}

func (w *walker) closeAll() {
	w.dropPending()
	for _, fd := range w.stack {
		unix.Close(fd)
	}
	w.stack = nil
}

// top keeps the current directory open and closes the others.
func (w *walker) top() int {
	w.dropPending()
	fd := w.stack[len(w.stack)-1]
	for _, o := range w.stack[:len(w.stack)-1] {
		unix.Close(o)
	}
	w.stack = nil
	return fd
}

// Real is the path below the start of component c of the current folder.
func (w *walker) Real(c string) string {
	return "/" + path.Join(append(w.names[:len(w.names):len(w.names)], c)...)
}

// Look opens c O_PATH|O_NOFOLLOW on the current folder and inspects it
// through that descriptor (kept for Enter): a link's owner, its folder's
// owner and its target.
func (w *walker) Look(c string) (pathwalk.Node, error) {
	w.dropPending()
	cur := w.stack[len(w.stack)-1]
	nfd, err := unix.Openat(cur, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return pathwalk.Node{}, &os.PathError{Op: "open", Path: w.Real(c), Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(nfd, &st); err != nil {
		unix.Close(nfd)
		return pathwalk.Node{}, &os.PathError{Op: "stat", Path: w.Real(c), Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		w.pending = nfd
		return pathwalk.Node{}, nil
	}
	defer unix.Close(nfd)
	var dst unix.Stat_t
	if err := unix.Fstat(cur, &dst); err != nil {
		return pathwalk.Node{}, err
	}
	target, err := readlinkat(nfd, "")
	if err != nil {
		return pathwalk.Node{}, &os.PathError{Op: "readlink", Path: w.Real(c), Err: err}
	}
	return pathwalk.Node{Link: true, Target: target, LinkUID: st.Uid, ParentUID: dst.Uid}, nil
}

// Enter holds c, which Look opened, as the current folder.
func (w *walker) Enter(c string) error {
	nfd := w.pending
	w.pending = -1
	var st unix.Stat_t
	if nfd < 0 || unix.Fstat(nfd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if nfd >= 0 {
			unix.Close(nfd)
		}
		return fmt.Errorf("%s: not a folder", w.Real(c))
	}
	w.stack = append(w.stack, nfd)
	w.names = append(w.names, c)
	return nil
}

// Up goes to the parent folder: a held one, or (not confined, above a
// relative start) the start's parent; at a confined root it stays.
func (w *walker) Up() error {
	w.dropPending()
	cur := w.stack[len(w.stack)-1]
	switch {
	case len(w.stack) > 1:
		unix.Close(cur)
		w.stack, w.names = w.stack[:len(w.stack)-1], w.names[:len(w.names)-1]
	case !w.confined:
		up, err := unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: w.display, Err: err}
		}
		unix.Close(cur)
		w.stack[0] = up
	}
	return nil
}

// Restart goes back to the root for an absolute link target: the start
// when confined, "/" otherwise.
func (w *walker) Restart() error {
	w.dropPending()
	w.names = w.names[:0]
	if w.confined {
		for _, fd := range w.stack[1:] {
			unix.Close(fd)
		}
		w.stack = w.stack[:1]
		return nil
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	for _, o := range w.stack {
		unix.Close(o)
	}
	w.stack = []int{fd}
	return nil
}

// run resolves comps from start (which it owns) through pathwalk.Walk.
// wantDir: the whole path must be a directory, returned as fd; else the
// directory holding the last component is returned with its name.
func (w *walker) run(start int, comps []string, wantDir bool) (int, string, string, error) {
	w.stack, w.pending = []int{start}, -1
	name, err := pathwalk.Walk(w, comps, pathwalk.Options{Policy: w.pol, WantDir: wantDir, MissingOK: true, Display: w.display})
	if err != nil {
		w.closeAll()
		return -1, "", "", err
	}
	if wantDir {
		real := "/" + path.Join(w.names...)
		return w.top(), "", real, nil
	}
	if name == "" {
		w.closeAll()
		return -1, "", "", fmt.Errorf("%s: resolves to a folder", w.display)
	}
	real := w.Real(name)
	return w.top(), name, real, nil
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
