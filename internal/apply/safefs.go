package apply

// Root-safe file access. Every path apply reads or writes is walked by
// the one path walker (internal/pathwalk, driven by safefile's held
// descriptors) one component at a time from the root with openat(2) and
// O_NOFOLLOW, so a symbolic link is never followed
// by the kernel behind our back. A link is followed by us, inside the
// root, and only when it is trusted: it and the folder holding it are
// root's or the user's running nastune (anyone else could have planted
// it); the folder written in is not writable by everyone without the
// sticky bit. These are the rules of safefile.OpenDir. Reads inside a
// captured --root tree follow every link, but never out of the tree. New content goes to a temp file created with
// O_CREAT|O_EXCL|O_NOFOLLOW and a random name in the target's own folder,
// gets the old file's owner, group, mode and extended attributes, is
// fsynced and renamed over the target, and the folder is fsynced; the temp
// file is removed on every failure.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/safefile"
	"golang.org/x/sys/unix"
)

// tempPrefix starts the name of every temp file apply creates; leftovers of
// a killed run are recognised by it (see sweepTemps).
const tempPrefix = ".nastune-tmp-"

// oldTemp matches the temp files of nastune before tempPrefix
// (".smb.conf.nastune-123456789", from os.CreateTemp).
var oldTemp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.nastune-[0-9]+$`) })

// resolved is a path walked to its last component: an open folder and the
// name in it.
type resolved struct {
	dir  int    // O_PATH fd of the folder holding name
	name string // last component (not a link when followFinal)
	real string // the path inside the root after following links
}

func (r *resolved) close() {
	if r.dir >= 0 {
		unix.Close(r.dir)
		r.dir = -1
	}
}

// walk resolves p (absolute, inside root) with safefile's walker, confined
// to root. strict is its trust policy (links followed only when they and
// their folder are root's or ours; the folder handed back not writable by
// everyone without the sticky bit); reads of a captured tree (not strict)
// follow any link but never out of the root. The last component is
// followed when followFinal. A missing last component is not an error.
func walk(root, p string, followFinal, strict bool) (*resolved, error) {
	pol := safefile.Policy{AnyOwner: !strict, FollowFinal: followFinal}
	d, err := safefile.OpenRoot(root, pol)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	e, err := d.Resolve(p, pol)
	if err != nil {
		return nil, err
	}
	return &resolved{dir: e.Dir.Fd(), name: e.Name, real: e.Real}, nil // r.close closes it
}

// FileMeta is what an exact restore keeps besides the bytes.
type FileMeta struct {
	Mode   uint32            `json:"mode"`
	UID    int               `json:"uid"`
	GID    int               `json:"gid"`
	Xattrs map[string][]byte `json:"xattrs,omitempty"`
}

// fileState is a regular file as read: content and metadata, or absent.
type fileState struct {
	Exists  bool
	Content []byte
	Meta    FileMeta
	Real    string // path after following links
	Link    bool   // p itself is a symbolic link
}

const maxFileSize = 16 << 20

// readFile reads the regular file at p inside root, following links
// (trusted ones when strict). A missing file is Exists=false.
func readFile(root, p string, strict bool) (*fileState, error) {
	r, err := walk(root, p, true, strict)
	if errors.Is(err, unix.ENOENT) {
		return &fileState{Real: path.Clean(p)}, nil // a folder on the way is missing
	}
	if err != nil {
		return nil, err
	}
	defer r.close()
	fs := &fileState{Real: r.real, Link: r.real != path.Clean(p)}
	fd, err := unix.Openat(r.dir, r.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return fs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.real, err)
	}
	f := os.NewFile(uintptr(fd), r.real)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s: not a regular file", r.real)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.real, err)
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", r.real, maxFileSize)
	}
	fs.Exists, fs.Content = true, b
	fs.Meta = FileMeta{Mode: st.Mode & 0o7777, UID: int(st.Uid), GID: int(st.Gid), Xattrs: xattrs(fd)}
	return fs, nil
}

func xattrs(fd int) map[string][]byte {
	buf := make([]byte, 64<<10)
	n, err := unix.Flistxattr(fd, buf)
	if err != nil || n == 0 {
		return nil
	}
	out := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		v := make([]byte, 64<<10)
		m, err := unix.Fgetxattr(fd, name, v)
		if err != nil {
			continue
		}
		out[name] = bytes.Clone(v[:m])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// expect describes what the target must still hold just before the
// rename: a file changed meanwhile (by an editor, another tool) is not
// overwritten.
type expect struct {
	any    bool   // no check
	exists bool   // must exist (else must be absent)
	sha    string // and have this sha256
}

// errChanged reports a target that changed between reading and renaming.
var errChanged = errors.New("changed by someone else while nastune was writing it; nothing was overwritten")

// writeFile replaces the file at p (following trusted links: a symlinked
// smb.conf stays a link and its target is written) with content and meta.
func writeFile(root, p string, content []byte, meta *FileMeta, want expect, hook func(string)) error {
	r, err := walk(root, p, true, true)
	if err != nil {
		return err
	}
	defer r.close()
	tmp := safefile.RandomName(tempPrefix)
	fd, err := unix.Openat(r.dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating a temp file next to %s: %w", r.real, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	ok := false
	defer func() {
		if !ok {
			f.Close()
			unix.Unlinkat(r.dir, tmp, 0)
		}
	}()
	if _, err := f.Write(content); err != nil {
		return fmt.Errorf("writing %s: %w", r.real, err)
	}
	if meta != nil {
		// chown first: it clears security.capability and set-id bits.
		if err := unix.Fchown(fd, meta.UID, meta.GID); err != nil {
			return fmt.Errorf("%s: chown: %w", r.real, err)
		}
		for name, v := range meta.Xattrs {
			if err := unix.Fsetxattr(fd, name, v, 0); err != nil && !errors.Is(err, unix.ENOTSUP) {
				return fmt.Errorf("%s: setting xattr %s: %w", r.real, name, err)
			}
		}
		if err := unix.Fchmod(fd, meta.Mode&0o7777); err != nil {
			return fmt.Errorf("%s: chmod: %w", r.real, err)
		}
	} else if err := unix.Fchmod(fd, 0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", r.real, err)
	}
	if hook != nil {
		hook(r.real)
	}
	if !want.any {
		if err := checkCurrent(r, want); err != nil {
			return err
		}
	}
	if err := unix.Renameat(r.dir, tmp, r.dir, r.name); err != nil {
		return fmt.Errorf("renaming over %s: %w", r.real, err)
	}
	ok = true
	f.Close()
	return syncDir(r.dir)
}

func checkCurrent(r *resolved, want expect) error {
	var st unix.Stat_t
	err := unix.Fstatat(r.dir, r.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		if want.exists {
			return fmt.Errorf("%s: %w (it was removed)", r.real, errChanged)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !want.exists {
		return fmt.Errorf("%s: %w (it was created)", r.real, errChanged)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: %w (no longer a regular file)", r.real, errChanged)
	}
	fd, err := unix.Openat(r.dir, r.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), r.real)
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return err
	}
	if sha(b) != want.sha {
		return fmt.Errorf("%s: %w", r.real, errChanged)
	}
	return nil
}

// removeFile removes the regular file at p (a link's target; the link
// stays) when it still holds sha.
func removeFile(root, p string, want expect) error {
	r, err := walk(root, p, true, true)
	if err != nil {
		return err
	}
	defer r.close()
	if !want.any {
		if err := checkCurrent(r, want); err != nil {
			return err
		}
	}
	if err := unix.Unlinkat(r.dir, r.name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("removing %s: %w", r.real, err)
	}
	return syncDir(r.dir)
}

func syncDir(dir int) error {
	fd, err := unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

// mkdirAll creates the missing folders of p's parent (0755), walking
// safely; existing links in the way are handled by walk.
func mkdirAll(root, p string) error {
	dir := path.Dir(p)
	if dir == "/" {
		return nil
	}
	r, err := walk(root, dir, true, true)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			if err := mkdirAll(root, dir); err != nil {
				return err
			}
			r, err = walk(root, dir, true, true)
		}
		if err != nil {
			return err
		}
	}
	defer r.close()
	err = unix.Mkdirat(r.dir, r.name, 0o755)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	return err
}

// readValue reads a sysctl or sysfs attribute; a bracketed choice list
// (queue/scheduler) reads as its active entry.
func readValue(root, p string) (string, error) {
	r, err := walk(root, p, false, false) // contained in root; writes are strict
	if err != nil {
		return "", err
	}
	defer r.close()
	fd, err := unix.Openat(r.dir, r.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if err := regular(fd, p); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return valueOf(b), nil
}

// valueOf is an attribute's value as read: a bracketed choice list
// (queue/scheduler) reads as its active entry, blanks are collapsed.
func valueOf(b []byte) string {
	v := strings.TrimSpace(string(b))
	if i := strings.IndexByte(v, '['); i >= 0 {
		if j := strings.IndexByte(v[i:], ']'); j > 0 {
			return v[i+1 : i+j]
		}
	}
	return strings.Join(strings.Fields(v), " ")
}

// writeValue writes a runtime attribute in one write(2), as the kernel
// wants for /proc/sys and /sys.
func writeValue(root, p, v string) error {
	r, err := walk(root, p, false, true)
	if err != nil {
		return err
	}
	defer r.close()
	fd, err := unix.Openat(r.dir, r.name, unix.O_WRONLY|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer unix.Close(fd)
	if err := regular(fd, p); err != nil {
		return err
	}
	if _, err := unix.Write(fd, []byte(v+"\n")); err != nil {
		return fmt.Errorf("writing %q to %s: %w", v, p, err)
	}
	return nil
}

// regular refuses anything but a regular file (sysctl and sysfs
// attributes are regular files): a FIFO or device planted in a tree must
// not hang or feed nastune.
func regular(fd int, p string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: not a regular file", p)
	}
	return nil
}

// sweepTemps removes the temp files a killed nastune left in the folder of
// p (regular files named tempPrefix*, owned by us). Callers hold the lock,
// so no other nastune is writing there.
func sweepTemps(root, p string) {
	r, err := walk(root, p, true, true)
	if err != nil {
		return
	}
	defer r.close()
	fd, err := unix.Openat(r.dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	d := os.NewFile(uintptr(fd), r.real)
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if !strings.HasPrefix(n, tempPrefix) && !oldTemp().MatchString(n) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(r.dir, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && int(st.Uid) == os.Geteuid() {
			unix.Unlinkat(r.dir, n, 0)
		}
	}
}
