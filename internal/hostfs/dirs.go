package hostfs

import (
	"io/fs"
	"os"
	"strings"
	"sync"
)

// A captured tree is walked once: instead of handing os.Root a path from
// the top for every lookup (which re-opens each folder on the way, so a
// 650-file tree cost 120,000 openat calls), a dirs holds the folders it
// has opened, each an os.Root of its own, keyed by its real path inside the
// tree. A lookup of /sys/block/sda/size is one fstatat(2) or openat(2) on
// the held /sys/block/sda, and a missing folder is opened from its nearest
// held ancestor one component at a time (O_NOFOLLOW, as os.Root does).
//
// Safety is unchanged: the keys are real paths (every symlink already
// resolved, chroot-style, by walk: internal/pathwalk with this cache as
// its cursor's lookups), so no name handed to the kernel holds a
// "/" or a "..", and each held folder is an os.Root opened inside its
// parent, so even a tree that changes while it is read cannot lead a read
// outside DIR (a folder turned into a symlink in between is followed by
// os.Root only inside its parent).
//
// What a lookup costs is bounded too: at most maxHeldDirs folders stay open
// (the least recently used one is closed first; RLIMIT_NOFILE is 1024 on
// small boxes), and at most maxResolved folder names keep their resolved
// path. All of it is guarded by one mutex, held across each lookup and
// open, never across a read.
type dirs struct {
	mu       sync.Mutex
	top      *os.Root
	held     map[string]*heldDir
	tick     uint64
	resolved map[string]string // folder as a probe names it → its real path
	// The last lstat: open checks the type of the path resolve just
	// looked at without a second fstatat (fstat after open checks again).
	lastPath string
	lastInfo fs.FileInfo
	opens    int // openat calls made: folders and files (tests)
}

type heldDir struct {
	root *os.Root
	used uint64
}

const (
	maxHeldDirs = 128
	maxResolved = 2048
)

func newDirs(top *os.Root) *dirs {
	return &dirs{top: top, held: map[string]*heldDir{}, resolved: map[string]string{}}
}

func (d *dirs) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for p, h := range d.held {
		h.root.Close()
		delete(d.held, p)
	}
	return d.top.Close()
}

// dir returns the open folder at real path p ("/" is the tree). The caller
// holds d.mu and uses the folder before its next call to dir.
func (d *dirs) dir(p string) (*os.Root, error) {
	if p == "/" {
		return d.top, nil
	}
	d.tick++
	if h, ok := d.held[p]; ok {
		h.used = d.tick
		return h.root, nil
	}
	parent, base := splitLast(p)
	pr, err := d.dir(parent)
	if err != nil {
		return nil, err
	}
	d.opens++
	r, err := pr.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	if len(d.held) >= maxHeldDirs {
		d.evict()
	}
	d.held[p] = &heldDir{root: r, used: d.tick}
	return r, nil
}

// evict closes the least recently used folder. Its children stay valid
// (each holds its own descriptor).
func (d *dirs) evict() {
	var old string
	var oldest uint64
	for p, h := range d.held {
		if old == "" || h.used < oldest {
			old, oldest = p, h.used
		}
	}
	d.held[old].root.Close()
	delete(d.held, old)
}

// at runs f on the held parent folder of real path p and p's last
// component ("." for the tree itself).
func at[T any](d *dirs, p string, f func(dir *os.Root, name string) (T, error)) (T, error) {
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

func (d *dirs) lstat(p string) (fs.FileInfo, error) {
	fi, err := at(d, p, func(dir *os.Root, name string) (fs.FileInfo, error) { return dir.Lstat(name) })
	if err == nil {
		d.lastPath, d.lastInfo = p, fi
	}
	return fi, err
}

// lstatAgain is lstat, from the last call when it looked at p.
func (d *dirs) lstatAgain(p string) (fs.FileInfo, error) {
	if d.lastPath == p && d.lastInfo != nil {
		return d.lastInfo, nil
	}
	return d.lstat(p)
}

func (d *dirs) readlink(p string) (string, error) {
	return at(d, p, func(dir *os.Root, name string) (string, error) { return dir.Readlink(name) })
}

// resolve maps an absolute host path to the real path it names inside
// the tree, as walk does from the top, but starting from the resolved
// path of name's folder (kept in d.resolved) so a lookup looks at one
// component only. The caller holds d.mu.
func (d *dirs) resolve(name string, follow bool) (string, error) {
	name = strings.TrimRight(name, "/")
	if name == "" {
		return "/", nil
	}
	folder, last := splitLast(name)
	start, ok := d.resolved[folder]
	if !ok {
		var err error
		if start, err = d.resolve(folder, true); err != nil {
			return "", err
		}
		if len(d.resolved) >= maxResolved {
			clear(d.resolved)
		}
		d.resolved[folder] = start
	}
	return walkFrom(splitPath(start), []string{last}, follow, true, d.lstat, d.readlink, nil)
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
