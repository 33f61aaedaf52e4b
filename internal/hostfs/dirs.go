package hostfs

import (
	"cmp"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A captured tree is walked once: instead of resolving a path from the
// top for every lookup (which re-opens each folder on the way, so a
// 650-file tree cost 120,000 openat calls), a dirs holds the folders it
// has opened, each a bare descriptor, keyed by its real path inside the
// tree. A lookup of /sys/block/sda/size is one fstatat(2) or openat(2) on
// the held /sys/block/sda, and a missing folder is opened from its nearest
// held ancestor one component at a time (openat O_DIRECTORY|O_NOFOLLOW).
//
// Safety: the keys are real paths (every symlink already resolved,
// chroot-style, by walk: internal/pathwalk with this cache as its
// cursor's lookups), so no name handed to the kernel holds a "/" or a
// "..", and every open, of a folder or a file, is of one component on a
// held folder with O_NOFOLLOW: even a tree that changes while it is read
// cannot lead a read outside DIR (a folder turned into a symlink in
// between fails the open, ELOOP or ENOTDIR; a held folder moved away
// keeps being the folder it was).
//
// What a lookup costs is bounded too: at most maxHeldDirs folders stay open
// (the least recently used one is closed first; RLIMIT_NOFILE is 1024 on
// small boxes), and at most maxResolved folder names keep their resolved
// path. All of it is guarded by one mutex, held across each lookup and
// open, never across a read.
type dirs struct {
	mu       sync.Mutex
	top      int // DIR, opened O_DIRECTORY
	held     map[string]*heldDir
	tick     uint64
	resolved map[string]string // folder (or link) as a probe names it → its real path
	// The last lstat: open checks the type of the path resolve just
	// looked at without a second fstatat (fstat after open checks again).
	lastPath string
	lastStat unix.Stat_t
	opens    int // openat calls made: folders and files (tests)
}

// A held folder is a bare descriptor (O_DIRECTORY|O_NOFOLLOW), used with
// the *at(2) calls directly: an os.Root (or os.File) per lookup costs its
// bookkeeping (the poller, a cleanup, the path checks) on every call,
// which is most of a captured tree's read under emulation (ARMv5).
type heldDir struct {
	fd   int
	used uint64
}

const (
	maxHeldDirs = 128
	maxResolved = 2048
)

// openTop opens DIR, the tree's top (its own links are followed: the
// user named it).
func openTop(dir string) (*dirs, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &dirs{top: fd, held: map[string]*heldDir{}, resolved: map[string]string{}}, nil
}

func (d *dirs) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for p, h := range d.held {
		unix.Close(h.fd)
		delete(d.held, p)
	}
	if d.top < 0 {
		return nil
	}
	err := unix.Close(d.top)
	d.top = -1
	return err
}

// dir returns the open folder at real path p ("/" is the tree). The caller
// holds d.mu and uses the folder before its next call to dir.
func (d *dirs) dir(p string) (int, error) {
	if p == "/" {
		return d.top, nil
	}
	d.tick++
	if h, ok := d.held[p]; ok {
		h.used = d.tick
		return h.fd, nil
	}
	parent, base := splitLast(p)
	pfd, err := d.dir(parent)
	if err != nil {
		return -1, err
	}
	d.opens++
	// One component, no link followed (a folder swapped for a link
	// since resolve looked at it fails here): the walk stays in DIR.
	fd, err := openat(pfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return -1, err
	}
	if len(d.held) >= maxHeldDirs {
		d.evict()
	}
	d.held[p] = &heldDir{fd: fd, used: d.tick}
	return fd, nil
}

// openat is openat(2), again on EINTR.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// evict closes the least recently used quarter of the held folders, in
// one pass over them (one pass per folder opened cost a large tree 6% of
// its CPU). Their children stay valid (each holds its own descriptor).
func (d *dirs) evict() {
	type aged struct {
		p    string
		used uint64
	}
	all := make([]aged, 0, len(d.held))
	for p, h := range d.held {
		all = append(all, aged{p, h.used})
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.used, b.used) })
	for _, a := range all[:max(1, len(all)/4)] {
		unix.Close(d.held[a.p].fd)
		delete(d.held, a.p)
	}
}

// at runs f on the held parent folder of real path p and p's last
// component ("." for the tree itself).
func at[T any](d *dirs, p string, f func(dirfd int, name string) (T, error)) (T, error) {
	if p == "/" {
		return f(d.top, ".")
	}
	parent, base := splitLast(p)
	dir, err := d.dir(parent)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(dir, base)
}

// lstatInto is fstatat(2) of real path p, not following a final link.
func (d *dirs) lstatInto(p string, st *unix.Stat_t) error {
	_, err := at(d, p, func(dirfd int, name string) (struct{}, error) {
		for {
			err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
			if err != unix.EINTR {
				return struct{}{}, err
			}
		}
	})
	return err
}

func (d *dirs) lstat(p string) (fs.FileInfo, error) {
	if err := d.lstatInto(p, &d.lastStat); err != nil {
		d.lastPath = ""
		return nil, err
	}
	d.lastPath = p
	return newFileInfo(p, &d.lastStat), nil
}

// isLink is lstat for a walk's question: is real path p a symbolic link?
func (d *dirs) isLink(p string) (bool, error) {
	if err := d.lstatInto(p, &d.lastStat); err != nil {
		d.lastPath = ""
		return false, err
	}
	d.lastPath = p
	return d.lastStat.Mode&unix.S_IFMT == unix.S_IFLNK, nil
}

// lstatAgain is the mode lstat gives, from the last call when it looked
// at p.
func (d *dirs) lstatAgain(p string) (fs.FileMode, error) {
	if d.lastPath != p {
		if _, err := d.isLink(p); err != nil {
			return 0, err
		}
	}
	return modeOf(d.lastStat.Mode), nil
}

func (d *dirs) readlink(p string) (string, error) {
	return at(d, p, func(dirfd int, name string) (string, error) {
		for n := 128; ; n *= 2 {
			b := make([]byte, n)
			m, err := unix.Readlinkat(dirfd, name, b)
			if err == unix.EINTR {
				n /= 2
				continue
			}
			if err != nil {
				return "", err
			}
			if m < n {
				return string(b[:m]), nil
			}
		}
	})
}

// fileInfo is fs.FileInfo from a stat(2), as os.Lstat makes it.
type fileInfo struct {
	name string
	st   unix.Stat_t
}

func newFileInfo(p string, st *unix.Stat_t) *fileInfo {
	_, base := splitLast(p)
	if base == "" {
		base = "/"
	}
	return &fileInfo{name: base, st: *st}
}

func (f *fileInfo) Name() string { return f.name }
func (f *fileInfo) Size() int64  { return f.st.Size }
func (f *fileInfo) Mode() fs.FileMode {
	m := modeOf(f.st.Mode)
	if f.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if f.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if f.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
func (f *fileInfo) ModTime() time.Time {
	return time.Unix(int64(f.st.Mtim.Sec), int64(f.st.Mtim.Nsec)) //nolint:unconvert // int32 on 32-bit targets
}
func (f *fileInfo) IsDir() bool { return f.st.Mode&unix.S_IFMT == unix.S_IFDIR }

// Sys is a *syscall.Stat_t, as os.Lstat gives.
func (f *fileInfo) Sys() any {
	return &syscall.Stat_t{Dev: f.st.Dev, Ino: f.st.Ino, Nlink: f.st.Nlink, Mode: f.st.Mode, Uid: f.st.Uid, Gid: f.st.Gid,
		Rdev: f.st.Rdev, Size: f.st.Size, Blksize: f.st.Blksize, Blocks: f.st.Blocks,
		Atim: syscall.Timespec(f.st.Atim), Mtim: syscall.Timespec(f.st.Mtim), Ctim: syscall.Timespec(f.st.Ctim)}
}

// resolve maps an absolute host path to the real path it names inside
// the tree, as walk does from the top, but starting from the resolved
// path of name's folder (kept in d.resolved) so a lookup looks at one
// component only. The caller holds d.mu.
//
// A last component that is a plain name and not a link (what most
// lookups are) is joined to its folder's real path here, with the one
// fstatat a walk would make (none when the last link is not followed):
// pathwalk.Walk gives the same answer for it. Links, "." and ".." go
// through Walk, and a name that ended on a link followed is kept with its
// answer, as a folder is. (A cached answer is only where to look: every
// open is still one component on a held folder, not following a link.)
func (d *dirs) resolve(name string, follow bool) (string, error) {
	name = strings.TrimRight(name, "/")
	if name == "" {
		return "/", nil
	}
	if p, ok := d.resolved[name]; ok && follow {
		return p, nil // a folder, or a link resolved before
	}
	folder, last := splitLast(name)
	start, ok := d.resolved[folder]
	if !ok {
		var err error
		if start, err = d.resolve(folder, true); err != nil {
			return "", err
		}
		d.remember(folder, start)
	}
	if last != "." && last != ".." && last != "" {
		p := start + "/" + last
		if start == "/" {
			p = start + last
		}
		if !follow {
			return p, nil
		}
		link, err := d.isLink(p)
		if err != nil {
			return "", err
		}
		if !link {
			return p, nil
		}
	}
	p, err := walkFrom(splitPath(start), []string{last}, follow, true, d.isLink, d.readlink, nil)
	if err == nil && follow {
		// A link (sysfs's /sys/block/sda, /sys/class/net/eth0) is
		// looked up again and again, and its target is a walk of a
		// dozen components.
		d.remember(name, p)
	}
	return p, err
}

// remember keeps what name resolves to (links followed), within
// maxResolved names.
func (d *dirs) remember(name, real string) {
	if len(d.resolved) >= maxResolved {
		clear(d.resolved)
	}
	d.resolved[name] = real
}

// splitLast splits an absolute path into its folder and last component:
// "/a/b" → "/a", "b"; "/a" → "/", "a".
func splitLast(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/", p[i+1:]
	}
	return p[:i], p[i+1:]
}
