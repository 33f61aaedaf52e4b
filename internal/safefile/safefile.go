//go:build linux

// Package safefile creates and replaces files as root without following a
// link someone else could plant, and holds nastune's one path walker
// (walk.go: OpenDir, and Dir.Resolve confined to a root, which apply
// writes through), with one trust policy.
//
// Everything goes through a directory opened once (Dir): the path to it is
// walked one component at a time with O_NOFOLLOW, and a symbolic link on
// the way is followed only when its owner and the directory holding it are
// root's or ours (the rule of fs.protected_symlinks). A directory owned by
// another user is accepted (a media share owned by its user is the normal
// case on a NAS): its owner may rename entries under us, but inside the Dir
// every call is relative to its descriptor (openat, renameat, unlinkat),
// creation never goes through an existing name, and a file once opened is
// used through its descriptor only, so a swapped entry changes nothing we
// write. A world-writable directory without the sticky bit is refused.
//
// New files are made with O_CREAT|O_EXCL|O_NOFOLLOW under random names, so
// a name planted in advance (a symlink to /etc/shadow, say) makes creation
// fail instead of writing through it. WriteFile writes such a temporary
// file, fsyncs it and renames it over the target, refusing a target that is
// a symlink or not a regular file, then fsyncs the directory.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/pathwalk"
	"golang.org/x/sys/unix"
)

// Dir is a directory held open by descriptor.
type Dir struct {
	fd   int
	path string
}

// ErrUnsafe marks a refusal: a symlink or a directory someone else
// controls (pathwalk's, so one errors.Is serves both).
var ErrUnsafe = pathwalk.ErrUnsafe

// OpenDir opens the directory path through the walker (walk.go): links
// followed only when trusted, the result not world-writable without the
// sticky bit. See the package comment for the rules.
func OpenDir(path string) (*Dir, error) {
	if path == "" {
		path = "."
	}
	start := "/"
	if !filepath.IsAbs(path) {
		start = "."
	}
	fd, err := unix.Open(start, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: start, Err: err}
	}
	w := walker{display: path}
	fd, _, _, err = w.run(fd, pathwalk.Split(path), true)
	if err != nil {
		return nil, err
	}
	if err := checkHeld(fd, path); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Dir{fd: fd, path: path}, nil
}

// Path is the path the Dir was opened with (for messages).
func (d *Dir) Path() string { return d.path }

// Fd is the directory's O_PATH descriptor (valid as an *at dirfd and for fstatfs).
func (d *Dir) Fd() int { return d.fd }

// Close releases the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Join names an entry of the Dir for messages.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return fmt.Errorf("%q is not a file name", name)
	}
	return nil
}

// RandomName is prefix followed by 16 random hex digits.
func RandomName(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Create makes a new file name in the Dir: O_CREAT|O_EXCL|O_NOFOLLOW, so it
// fails with EEXIST on anything already there, a symlink included.
func (d *Dir) Create(name string, perm os.FileMode) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: d.Join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// CreateTemp makes a new file with a random name starting with prefix.
func (d *Dir) CreateTemp(prefix string, perm os.FileMode) (*os.File, string, error) {
	for range 10 {
		name := RandomName(prefix)
		f, err := d.Create(name, perm)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("%s: no free temporary name", d.path)
}

// Open opens an existing regular file without following a symlink and
// without opening anything else: name is first opened O_PATH (which runs
// no driver's open), checked to be a regular file, and only then opened
// for I/O through that descriptor (/proc/self/fd), so the file checked is
// the file opened even if name is swapped in between. A device node is
// never opened (opening one can act: a tape drive rewinds, a modem
// hangs up), nor a FIFO (it would block). flags are O_RDONLY, O_WRONLY or
// O_RDWR (plus O_DIRECT etc.).
func (d *Dir) Open(name string, flags int) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	pfd, err := unix.Openat(d.fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.Join(name), Err: err}
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFLNK:
		return nil, fmt.Errorf("%s: %w: it is a symlink; give the real path", d.Join(name), ErrUnsafe)
	default:
		return nil, fmt.Errorf("%s: %w: not a regular file", d.Join(name), ErrUnsafe)
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), flags|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.Join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// Lstat describes name in the Dir without following a symlink.
func (d *Dir) Lstat(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// Same reports whether name in the Dir is still the file f.
func (d *Dir) Same(name string, f *os.File) bool {
	st, err := d.Lstat(name)
	if err != nil {
		return false
	}
	var fs unix.Stat_t
	if unix.Fstat(int(f.Fd()), &fs) != nil {
		return false
	}
	return st.Dev == fs.Dev && st.Ino == fs.Ino
}

// Remove unlinks name only while it is still the file f (someone may have
// renamed ours away and put theirs in its place).
func (d *Dir) Remove(name string, f *os.File) error {
	if !d.Same(name, f) {
		return fmt.Errorf("%s: not removed: it is no longer the file nastune made", d.Join(name))
	}
	return unix.Unlinkat(d.fd, name, 0)
}

// Replace renames tmp over name, refusing a name that exists as a symlink
// or as anything but a regular file, then fsyncs the directory.
func (d *Dir) Replace(tmp, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if st, err := d.Lstat(name); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFLNK:
			return fmt.Errorf("%s: %w: it is a symlink; give the real path", d.Join(name), ErrUnsafe)
		default:
			return fmt.Errorf("%s: %w: exists and is not a regular file", d.Join(name), ErrUnsafe)
		}
	} else if !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "stat", Path: d.Join(name), Err: err}
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		return &os.PathError{Op: "rename", Path: d.Join(name), Err: err}
	}
	return d.Sync()
}

// Sync fsyncs the directory itself (so a rename survives a crash).
func (d *Dir) Sync() error {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return nil
}

// Statfs describes the Dir's filesystem.
func (d *Dir) Statfs() (unix.Statfs_t, error) {
	var st unix.Statfs_t
	err := unix.Fstatfs(d.fd, &st)
	return st, err
}

// WriteFile replaces path with data atomically: a random temporary file in
// the same directory, written, fsynced, chmodded to perm and renamed over
// path. The temporary file is removed on every error.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	name := filepath.Base(path)
	if err := checkName(name); err != nil || strings.HasSuffix(path, "/") {
		return fmt.Errorf("%s: give a file name, not a directory", path)
	}
	d, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	f, tmp, err := d.CreateTemp("."+name+".nastune-", 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = d.Remove(tmp, f)
		}
		f.Close()
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	return d.Replace(tmp, name)
}
