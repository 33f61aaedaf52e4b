// Package hostfs is the read-only view of a machine that every probe reads
// through.
//
// A Root is either the live system ("/") or a captured tree (the --root
// DIR of `nastune audit`, or an unpacked snapshot) laid out as on a live host:
// DIR/proc, DIR/sys, DIR/etc and so on. Paths given to a Root are always
// absolute host paths such as "/proc/meminfo"; the Root maps them into its
// tree.
//
// Inside a captured tree every symbolic link is resolved against the tree,
// the way chroot(2) would: an absolute target such as "/sys/devices/x" means
// DIR/sys/devices/x, and ".." never climbs above DIR: the walk and its link
// policy are internal/pathwalk's (the one path walker; hostfs is its
// reader, following every link of the tree, confined). Every open is of
// one component, not following a link, on a folder held open (dirs.go),
// so even a tree that changes while it is read cannot lead a read outside
// DIR, and a tree is walked once: a lookup costs an fstatat or an openat
// on its folder, not a walk from the top.
//
// A Root writes nothing: it reads files and directories, and it answers
// for the commands a probe needs (Command). On the live system Command runs
// them through internal/cmdrun, whose allow-list admits only commands that
// read; in a captured tree it reads the output recorded at CommandFile(argv)
// and runs nothing. Reads are size-capped and never trust the size that
// stat(2) reports, because files in /proc and /sys report 0 or 4096
// whatever they hold.
//
// Only regular files are read (the pseudo files of /proc and /sys are
// regular): every open is O_NONBLOCK and checked with fstat before a byte
// is read, so a FIFO or a device node planted in a tree (or in /etc) is an
// error naming the file and its type (ErrNotRegular), never a hang.
// ReadHead alone also reads block devices (a superblock); the live kernel
// log, a character device, has its own reader (KernelLog, kmsg.go), which
// checks it is one. Files that hold secrets are never read, and what is
// read passes the one redaction layer of redact.go before any probe or
// the snapshot recorder sees it (the kernel log's lines through
// RedactCommand, as a captured dmesg's).
package hostfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/pathwalk"
)

// MaxFileSize is the most ReadFile returns; larger files are an error
// (ErrTooLarge), never a silent truncation.
const MaxFileSize = 4 << 20

// MaxDirEntries is the most entries ReadDir returns; a larger directory is
// an error (ErrTooLarge).
const MaxDirEntries = 1 << 16

// ErrTooLarge is returned for files larger than MaxFileSize and
// directories with more than MaxDirEntries entries.
var ErrTooLarge = errors.New("larger than the read limit")

// ErrNotRegular is returned for a FIFO, socket or device node where a
// regular file (or a directory, for ReadDir) was expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrNeverRead is returned for files nastune never reads: they hold
// secrets (/etc/shadow, Samba's secrets.tdb, SSH keys) or block forever
// (/proc/kmsg, tracing pipes).
var ErrNeverRead = errors.New("never read by nastune (holds secrets or blocks)")

// Root is a read-only machine root.
type Root struct {
	dir  string    // "/" for the live system
	tree *dirs     // nil for the live system: the folders of DIR held open
	rec  *Recorder // non-nil while recording for a snapshot
}

// Live returns the root of the running system.
func Live() *Root { return &Root{dir: "/"} }

// Open returns the root of a captured tree. It fails when dir does not exist
// or is not a directory, naming dir.
func Open(dir string) (*Root, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("host root %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("host root %s: not a directory", dir)
	}
	if clean := path.Clean(dir); clean == "/" {
		return Live(), nil
	}
	d, err := openTop(dir)
	if err != nil {
		return nil, fmt.Errorf("host root %s: %w", dir, err)
	}
	return &Root{dir: dir, tree: d}, nil
}

// IsLive reports whether the root is the running system. Probes that need a
// live kernel (netlink, ioctl) run only then.
func (r *Root) IsLive() bool { return r.tree == nil }

// Dir is the directory the root maps "/" to.
func (r *Root) Dir() string { return r.dir }

// Close releases the tree handle.
func (r *Root) Close() error {
	if r.tree == nil {
		return nil
	}
	return r.tree.close()
}

// ReadFile reads a whole file of at most MaxFileSize bytes with a single
// open and read loop (no stat).
func (r *Root) ReadFile(name string) ([]byte, error) {
	data, err := r.readFile(name)
	if err == nil {
		r.rec.file(name, data)
	}
	return data, err
}

func (r *Root) readFile(name string) ([]byte, error) {
	// Files (250 of them in a live audit, 700 in a large captured tree)
	// are read on the descriptor itself: an *os.File registers with the
	// runtime's poller (fcntl and two epoll_ctl per file: the descriptor
	// is O_NONBLOCK) and io.ReadAll grows its buffer from 512 bytes.
	fd, real, err := r.openFD(name, kindFile)
	if err != nil {
		return nil, err
	}
	data, err := readFD(fd, MaxFileSize)
	unix.Close(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return Redact(real, data), nil
}

// ReadHead reads at most n bytes from the start of a file: the
// superblock of a block device, without reading the device.
func (r *Root) ReadHead(name string, n int) ([]byte, error) {
	f, real, err := r.open(name, kindHead)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, min(max(n, 0), MaxFileSize))
	got, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPathErr(err)}
	}
	b = Redact(real, b[:got])
	r.rec.file(name, b)
	return b, nil
}

// ReadString reads a file and trims surrounding white space, the usual
// shape of a sysfs attribute or a sysctl.
func (r *Root) ReadString(name string) (string, error) {
	b, err := r.ReadFile(name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadDir lists a directory, sorted by name. Entries that are symlinks are
// reported as such (use Stat to follow them).
func (r *Root) ReadDir(name string) ([]fs.DirEntry, error) {
	f, _, err := r.open(name, kindDir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(MaxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: unwrapPathErr(err)}
	}
	if len(ents) > MaxDirEntries {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fmt.Errorf("more than %d entries: %w", MaxDirEntries, ErrTooLarge)}
	}
	if ents == nil {
		ents = []fs.DirEntry{}
	}
	sortEntries(ents)
	r.rec.dir(name, ents)
	return ents, nil
}

// Stat follows symlinks (inside the root) and describes the target.
func (r *Root) Stat(name string) (fs.FileInfo, error) {
	st, err := r.statRaw(name)
	if err == nil {
		r.rec.seen(name, true)
	}
	return st, err
}

func (r *Root) statRaw(name string) (fs.FileInfo, error) {
	if r.tree == nil {
		return os.Stat(name)
	}
	r.tree.mu.Lock()
	defer r.tree.mu.Unlock()
	p, err := r.resolve(name, true)
	if err != nil {
		return nil, err
	}
	// p has no link in it (resolve followed them all), unless the tree
	// changed since: then it is an error, not a link followed.
	fi, err := r.tree.lstat(p)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errChanged}
	}
	return fi, nil
}

// errChanged is a captured tree that changed while it was read: a path
// resolved to a link.
var errChanged = errors.New("the captured tree changed while it was read")

// Lstat describes name itself, not what a final symlink points to.
func (r *Root) Lstat(name string) (fs.FileInfo, error) {
	st, err := r.lstatRaw(name)
	if err == nil {
		r.rec.seen(name, false)
	}
	return st, err
}

func (r *Root) lstatRaw(name string) (fs.FileInfo, error) {
	if r.tree == nil {
		return os.Lstat(name)
	}
	r.tree.mu.Lock()
	defer r.tree.mu.Unlock()
	p, err := r.resolve(name, false)
	if err != nil {
		return nil, err
	}
	fi, err := r.tree.lstat(p)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fi, nil
}

// Readlink returns the target of a symlink as stored.
func (r *Root) Readlink(name string) (string, error) {
	t, err := r.readlinkRaw(name)
	if err == nil {
		r.rec.seen(name, false)
	}
	return t, err
}

func (r *Root) readlinkRaw(name string) (string, error) {
	if r.tree == nil {
		return os.Readlink(name)
	}
	r.tree.mu.Lock()
	defer r.tree.mu.Unlock()
	p, err := r.resolve(name, false)
	if err != nil {
		return "", err
	}
	t, err := r.tree.readlink(p)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return t, nil
}

// CommandsDir holds captured command output in a captured tree.
const CommandsDir = "/.nastune/commands"

// CommandFile is where a captured tree keeps the output of argv: the
// arguments joined by "_", with "/" written as "%", plus ".txt"
// ("hdparm -B /dev/sda" → hdparm_-B_%dev%sda.txt).
func CommandFile(argv ...string) string {
	return CommandsDir + "/" + strings.ReplaceAll(strings.Join(argv, "_"), "/", "%") + ".txt"
}

// Command returns what argv prints: on the live system by running it
// through the read-only allow-list of internal/cmdrun, in a captured tree
// from CommandFile(argv) (its "# command:" header line removed). The
// second value names the source for evidence: the command as typed
// ("ethtool -k eth0"), live or captured; on an error in a captured tree,
// the file that is missing.
func (r *Root) Command(ctx context.Context, argv ...string) ([]byte, string, error) {
	if r.tree == nil {
		out, err := cmdrun.Run(ctx, argv...)
		out = RedactCommand(argv, out)
		if err == nil {
			r.rec.command(argv, out)
		}
		return out, strings.Join(argv, " "), err
	}
	name := CommandFile(argv...)
	b, err := r.readFile(name) // recorded below as a command, not as a file
	if err != nil {
		return nil, name, err
	}
	if bytes.HasPrefix(b, []byte("# command:")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	b = RedactCommand(argv, b)
	r.rec.command(argv, b)
	return b, strings.Join(argv, " "), nil
}

// RealPath resolves every symlink in name and returns the host path it
// names (for the live root, what realpath(1) prints). Sysfs topology (which
// bus a disk hangs from) is read from these paths.
func (r *Root) RealPath(name string) (string, error) {
	var p string
	var err error
	if r.tree == nil {
		p, err = realpathLive(name)
	} else {
		r.tree.mu.Lock()
		p, err = r.resolve(name, true)
		r.tree.mu.Unlock()
	}
	if err == nil {
		r.rec.seen(name, true)
	}
	return p, err
}

// What an open expects to find.
const (
	kindFile = iota // a regular file
	kindHead        // a regular file or a block device
	kindDir         // a directory
)

// open opens name read-only and non-blocking, checks with fstat that it is
// what kind asks for, and returns the file and the real host path it
// names (links resolved). Secret and blocking files are refused by their
// real path, so a link to /etc/shadow is refused like /etc/shadow.
func (r *Root) open(name string, kind int) (*os.File, string, error) {
	fd, real, err := r.openFD(name, kind)
	if err != nil {
		return nil, "", err
	}
	return os.NewFile(uintptr(fd), name), real, nil
}

// openFD is open, returning the descriptor.
func (r *Root) openFD(name string, kind int) (int, string, error) {
	if r.tree == nil {
		return openLive(name, kind)
	}
	fd, real, err := r.openTree(name, kind)
	if err != nil {
		return -1, "", err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if err := checkKind(modeOf(st.Mode), kind); err != nil {
		unix.Close(fd)
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fd, real, nil
}

// openLive is open on the live system, returning the descriptor: the
// path's type is checked before open(2), the open file's type and real
// path (links resolved, for NeverRead) after it.
func openLive(name string, kind int) (int, string, error) {
	if !strings.HasPrefix(name, "/") {
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: errors.New("path must be absolute")}
	}
	if NeverRead(path.Clean(name)) {
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: ErrNeverRead}
	}
	// Type first: opening a device can act (a watchdog arms, a tape
	// rewinds, a serial line raises DTR), so only fstat after open
	// would be too late. fstat below catches a swap in between. sysfs
	// and /proc/sys make no device nodes (and their links stay inside
	// sysfs): most of an audit's reads skip the stat, a second walk of
	// the path.
	var st unix.Stat_t
	if !noDevices(name) {
		if err := unix.Stat(name, &st); err == nil {
			if err := checkKind(modeOf(uint32(st.Mode)), kind); err != nil {
				return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
			}
		}
	}
	fd, err := openNonblock(name)
	if err != nil {
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	fail := func(err error) (int, string, error) {
		unix.Close(fd)
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	// The real path decides NeverRead and Redact. In sysfs's own trees
	// and /proc/sys a link leads only to another sysfs path (and /proc/sys
	// has none), where both decide as for the name: no readlink of
	// /proc/self/fd there.
	real := path.Clean(name)
	if !noDevices(name) {
		real = fdPath(fd, name)
	}
	if NeverRead(real) {
		return fail(ErrNeverRead)
	}
	if err := unix.Fstat(fd, &st); err != nil {
		return fail(err)
	}
	if err := checkKind(modeOf(uint32(st.Mode)), kind); err != nil {
		return fail(err)
	}
	return fd, real, nil
}

// noDevices reports a live path in a file system that makes no device
// nodes and whose links stay inside it: sysfs (/sys, not the file systems
// mounted below it, such as debugfs) and /proc/sys.
func noDevices(name string) bool {
	if strings.Contains(name, "/..") || strings.Contains(name, "//") {
		return false
	}
	if strings.HasPrefix(name, "/proc/sys/") || procTaskCounter(name) {
		return true
	}
	rest, ok := strings.CutPrefix(name, "/sys/")
	if !ok {
		return false
	}
	top, _, _ := strings.Cut(rest, "/")
	// The sysfs trees an audit reads; /sys/kernel and /sys/fs have other
	// file systems mounted below them.
	switch top {
	case "block", "bus", "class", "dev", "devices", "module":
		return true
	}
	return false
}

// procTaskCounter reports /proc/PID/{stat,schedstat} and
// /proc/PID/task/TID/{stat,schedstat}: files procfs itself makes for a
// task, never a device or a link (unlike /proc/PID/fd/*, cwd, root or
// exe), which a sampler reads for every process every interval.
func procTaskCounter(name string) bool {
	rest, ok := strings.CutPrefix(name, "/proc/")
	if !ok {
		return false
	}
	digits := func() bool {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || rest[i] != '/' {
			return false
		}
		rest = rest[i+1:]
		return true
	}
	if !digits() {
		return false
	}
	if t, ok := strings.CutPrefix(rest, "task/"); ok {
		rest = t
		if !digits() {
			return false
		}
	}
	return rest == "stat" || rest == "schedstat"
}

// modeOf is the fs.FileMode of a stat(2) st_mode: its permission and
// type bits, as os.Stat reports them.
func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	return mode
}

// scratch holds the buffers readFD reads into before copying out what
// was read: one allocation of the file's size per read.
var scratch = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// readFD reads fd to its end; more than limit bytes is ErrTooLarge.
func readFD(fd, limit int) ([]byte, error) {
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	buf, n := *bp, 0
	for {
		if n == len(buf) {
			buf = append(buf[:n:n], make([]byte, n)...) // a large file: double (not kept in the pool)
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m <= 0 {
			break
		}
		n += m
		if n > limit {
			return nil, ErrTooLarge
		}
	}
	out := make([]byte, n)
	copy(out, buf)
	return out, nil
}

// checkKind accepts the file types a read may touch.
func checkKind(m fs.FileMode, kind int) error {
	switch {
	case m.IsDir() && kind == kindDir:
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	case kind == kindDir:
		return errors.New("not a directory")
	case m.IsRegular():
		return nil
	case kind == kindHead && m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNotRegular, typeName(m))
}

// typeName names a non-regular file type for messages.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// openTree is open inside a captured tree: name resolved, refused by its
// real path if secret, its type checked before open(2), opened on its held
// parent folder without following a link (the tree changed since resolve
// looked: an error), non-blocking (a FIFO swapped in since is refused by
// openFD's fstat). The caller checks the type again with fstat.
func (r *Root) openTree(name string, kind int) (int, string, error) {
	r.tree.mu.Lock()
	defer r.tree.mu.Unlock()
	p, err := r.resolve(name, true)
	if err != nil {
		return -1, "", err
	}
	if NeverRead(p) {
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: ErrNeverRead}
	}
	if m, err := r.tree.lstatAgain(p); err == nil {
		if err := checkKind(m, kind); err != nil {
			return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	fd, err := at(r.tree, p, func(dirfd int, base string) (int, error) {
		r.tree.opens++
		return openat(dirfd, base, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	})
	if err != nil {
		return -1, "", &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fd, p, nil
}

// resolve maps an absolute host path to the host path it names inside the
// tree, following symlinks chroot-style. With follow=false the last
// component is not followed. The caller holds r.tree.mu.
func (r *Root) resolve(name string, follow bool) (string, error) {
	if !strings.HasPrefix(name, "/") {
		return "", &fs.PathError{Op: "open", Path: name, Err: errors.New("path must be absolute")}
	}
	r.tree.lastPath = "" // only this walk's lstat may stand in for open's
	p, err := r.tree.resolve(name, follow)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: name, Err: unwrapPathErr(err)}
	}
	return p, nil
}

// errLinkLoop is what a walk that meets more than pathwalk.MaxLinks links
// fails with (wrapped).
var errLinkLoop error = syscall.ELOOP

// walk resolves name component by component through pathwalk, the one
// path walker, chroot-style: ".." never climbs above "/" and an absolute
// link target starts again at "/". Every link is followed whoever owns it
// (a captured tree's owners are another machine's users: confinement is
// the protection, pathwalk.Policy.AnyOwner). lstat and readlink look at
// one real path; onLink (if set) hears of every link followed. strict
// makes a missing component, an unreadable link or a link loop an error;
// otherwise the component is kept as it is (the recorder's best effort).
// With follow=false the last component is not followed.
func walk(name string, follow, strict bool, lstat func(string) (fs.FileInfo, error),
	readlink func(string) (string, error), onLink func(path, target string)) (string, error) {
	isLink := func(p string) (bool, error) {
		st, err := lstat(p)
		return err == nil && st.Mode()&fs.ModeSymlink != 0, err
	}
	return walkFrom(nil, splitPath(name), follow, strict, isLink, readlink, onLink)
}

// walkFrom is walk with the components done so far (a real path, no
// links in it) and those still to do; isLink is lstat's answer to "is
// this real path a symbolic link".
func walkFrom(done, todo []string, follow, strict bool, isLink func(string) (bool, error),
	readlink func(string) (string, error), onLink func(path, target string)) (string, error) {
	c := &treeCursor{done: done, isLink: isLink, readlink: readlink}
	last, err := pathwalk.Walk(c, todo, pathwalk.Options{
		Policy:  pathwalk.Policy{AnyOwner: true, FollowFinal: follow},
		Lenient: !strict, Display: joinPath(todo), OnLink: onLink})
	if err != nil {
		return "", err
	}
	if last != "" {
		return c.Real(last), nil
	}
	return joinPath(c.done), nil
}

// treeCursor is the reader's pathwalk.Cursor: the current folder is a real
// path below the tree's top, looked at through the held folders of dirs
// (lstat and readlink), so a lookup is one fstatat on a held folder.
type treeCursor struct {
	done     []string
	isLink   func(string) (bool, error)
	readlink func(string) (string, error)
}

func (t *treeCursor) Real(c string) string {
	return joinPath(append(t.done[:len(t.done):len(t.done)], c))
}

func (t *treeCursor) Look(c string) (pathwalk.Node, error) {
	p := t.Real(c)
	link, err := t.isLink(p)
	if err != nil || !link {
		return pathwalk.Node{}, err
	}
	target, err := t.readlink(p)
	if err != nil {
		return pathwalk.Node{}, err
	}
	return pathwalk.Node{Link: true, Target: target}, nil
}

// Enter takes c as a folder; a component that is not one fails at the
// next lookup below it (ENOTDIR).
func (t *treeCursor) Enter(c string) error {
	t.done = append(t.done[:len(t.done):len(t.done)], c)
	return nil
}

func (t *treeCursor) Up() error {
	if len(t.done) > 0 {
		t.done = t.done[:len(t.done)-1]
	}
	return nil
}

func (t *treeCursor) Restart() error {
	t.done = nil
	return nil
}

func splitPath(p string) []string { return pathwalk.Split(p) }

func joinPath(c []string) string { return "/" + strings.Join(c, "/") }

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
