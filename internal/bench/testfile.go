//go:build linux

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/safefile"
)

// The test file is opened once, by descriptor, and every test and fio use
// that descriptor: a symlink swapped in for the name meanwhile changes
// nothing. Its first 4 KiB are the header (headerSize, headerMagic in
// result.go, shared with bench share's test file) naming it as nastune's,
// so a leftover of a killed run is recognised (and reused) on any
// filesystem, with or without user xattrs; tests use the bytes after it.

type testFile struct {
	dir    *safefile.Dir
	name   string
	f      *os.File
	remove bool   // remove it at close (not --keep)
	device string // block device name, best effort
	memory string // why it is RAM-backed, "" for a disk
}

// close closes and, unless --keep, removes the file (only while the name
// still is our file).
func (t *testFile) close() {
	if t.remove {
		_ = t.dir.Remove(t.name, t.f)
	}
	t.f.Close()
	t.dir.Close()
}

// fallocate is unix.Fallocate (a variable so tests can play a filesystem
// without it).
var fallocate = unix.Fallocate

// kernelFS names the kernel filesystems a test file must never go on (a
// function, not a map variable: see fioArgs).
func kernelFS() map[int64]string {
	return map[int64]string{
		unix.PROC_SUPER_MAGIC: "proc", unix.SYSFS_MAGIC: "sysfs", unix.DEBUGFS_MAGIC: "debugfs", unix.TRACEFS_MAGIC: "tracefs",
		unix.CGROUP_SUPER_MAGIC: "cgroup", unix.CGROUP2_SUPER_MAGIC: "cgroup2", unix.SECURITYFS_MAGIC: "securityfs",
		unix.BPF_FS_MAGIC: "bpf", unix.DEVPTS_SUPER_MAGIC: "devpts", unix.PSTOREFS_MAGIC: "pstore", unix.EFIVARFS_MAGIC: "efivarfs",
		unix.NSFS_MAGIC: "nsfs", unix.SELINUX_MAGIC: "selinuxfs",
		unix.HUGETLBFS_MAGIC: "hugetlbfs", unix.BINFMTFS_MAGIC: "binfmt_misc",
	}
}

// openTestFile opens the named file, creating it when absent. An existing
// file is reused when nastune made it (its header), refused otherwise
// unless --force. The free space is checked before any byte is written, and
// the file is removed again on every error.
func openTestFile(ctx context.Context, o DiskOptions) (tf *testFile, err error) {
	name := filepath.Base(o.File)
	if strings.HasSuffix(o.File, "/") || name == "." || name == ".." || name == "/" {
		return nil, fmt.Errorf("--file %s: give a file name, not a directory", o.File)
	}
	d, err := safefile.OpenDir(filepath.Dir(o.File))
	if err != nil {
		return nil, err
	}
	tf = &testFile{dir: d, name: name}
	defer func() {
		if err != nil {
			if tf.f != nil {
				tf.close()
			} else {
				d.Close()
			}
		}
	}()
	var fs unix.Statfs_t
	if fs, err = d.Statfs(); err != nil {
		return tf, err
	}
	if k, ok := kernelFS()[int64(fs.Type)]; ok {
		return tf, fmt.Errorf("%s is on %s, a kernel filesystem: give a file on the disk to measure", o.File, k)
	}
	total := headerSize + o.Size
	var have int64
	st, lerr := d.Lstat(name)
	switch {
	case errors.Is(lerr, unix.ENOENT):
		if err = checkSpace(fs, o.File, total); err != nil {
			return tf, err
		}
		if tf.f, err = d.Create(name, 0o600); err != nil {
			return tf, err
		}
		tf.remove = true // ours from here on: any error below removes it
	case lerr != nil:
		return tf, lerr
	default:
		if tf.f, err = d.Open(name, unix.O_RDWR); err != nil {
			return tf, err
		}
		if st.Nlink > 1 {
			// A hard link to someone else's file (where
			// fs.protected_hardlinks is off): never written, --force or not.
			tf.f.Close()
			tf.f = nil
			return tf, fmt.Errorf("%s: %w: it has %d hard links; give a new file name", o.File, safefile.ErrUnsafe, st.Nlink)
		}
		if st.Uid != 0 && int(st.Uid) != os.Geteuid() || !isOurs(tf.f) {
			if !o.Force {
				tf.f.Close()
				tf.f = nil
				return tf, fmt.Errorf("%s: %w (use --force to overwrite it)", o.File, ErrNotOurs)
			}
		} else {
			have = st.Size
		}
		if have < total {
			if err = checkSpace(fs, o.File, total-have); err != nil {
				tf.f.Close()
				tf.f = nil
				return tf, err
			}
		}
		// Our leftover (or a --force'd file) goes away at the end, as
		// one we had just made, unless --keep.
		tf.remove = true
	}
	if ferr := unix.Flock(int(tf.f.Fd()), unix.LOCK_EX|unix.LOCK_NB); errors.Is(ferr, unix.EWOULDBLOCK) {
		tf.remove = false
		err = fmt.Errorf("%s is in use by another nastune bench", o.File)
		return tf, err
	} // other errors: a filesystem without flock (some network mounts) still gets measured
	if o.Keep {
		defer func() { tf.remove = tf.remove && err != nil }()
	}
	if have < total {
		if err = fill(ctx, tf.f, have, total, o); err != nil {
			if errors.Is(err, ErrInterrupted) {
				return tf, err
			}
			return tf, fmt.Errorf("preparing %s: %w", o.File, err)
		}
	}
	tf.device, tf.memory = backing(int(tf.f.Fd()), fs)
	return tf, nil
}

// checkSpace refuses a file that would fill the filesystem (1% or 64 MiB
// stay free, whichever is less, so the run leaves room for others).
func checkSpace(fs unix.Statfs_t, path string, need int64) error {
	free := int64(fs.Bavail) * int64(fs.Bsize)
	reserve := min(int64(fs.Blocks)*int64(fs.Bsize)/100, 64<<20)
	if need+reserve > free {
		return fmt.Errorf("%s: %d MiB are free, the test file needs %d MiB: use a smaller --size", path, free>>20, (need+reserve)>>20)
	}
	return nil
}

func isOurs(f *os.File) bool {
	b := make([]byte, len(headerMagic))
	if n, _ := f.ReadAt(b, 0); n == len(b) && bytes.Equal(b, []byte(headerMagic)) {
		return true
	}
	x := make([]byte, 8)
	_, err := unix.Fgetxattr(int(f.Fd()), xattrName, x)
	return err == nil
}

// fill writes the header, preallocates and fills [from, total) with
// incompressible data, then fsyncs. fallocate is best effort: filesystems
// without it (or with it refused) are written all the same.
func fill(ctx context.Context, f *os.File, from, total int64, o DiskOptions) error {
	fd := int(f.Fd())
	_ = setDirect(fd, false)
	hdr := make([]byte, headerSize)
	copy(hdr, headerMagic)
	copy(hdr[len(headerMagic):], fmt.Sprintf("created %s by uid %d\n", time.Now().UTC().Format(time.RFC3339), os.Geteuid()))
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return err
	}
	if err := f.Sync(); err != nil { // the header first: a kill from here on leaves a recognisable file
		return err
	}
	_ = unix.Fsetxattr(fd, xattrName, []byte("1"), 0)
	if err := fallocate(fd, 0, from, total-from); err != nil &&
		!errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("preallocating %d MiB: %w", (total-from)>>20, err)
	}
	buf := make([]byte, seqBlock)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x6e617374756e65))
	start := max(from, headerSize)
	for off := start; off < total; off += seqBlock {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		fillRandom(rng, buf)
		n := min(int64(len(buf)), total-off)
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return err
		}
		if o.Progress != nil && (off-start)%(64*seqBlock) == 0 {
			o.Progress("preparing the test file", float64(off-start)/float64(total-start))
		}
	}
	return f.Sync()
}

// backing names the block devices under fd (internal/blockdev: a btrfs
// or bcachefs file is on every member of its filesystem, joined with "+")
// and, when the file lives in RAM, why: tmpfs/ramfs, a zram or brd
// (/dev/ramN) device, or a loop device whose backing file is on tmpfs;
// for a filesystem of several devices, each member in RAM by name.
// Devices blockdev cannot establish are "unknown (why)", never a guess.
func backing(fd int, fs unix.Statfs_t) (device, memory string) {
	switch int64(fs.Type) {
	case unix.TMPFS_MAGIC:
		return "", "tmpfs"
	case unix.RAMFS_MAGIC:
		return "", "ramfs"
	}
	sys := blockdev.Live()
	b, err := sys.FdDevices("the test file", fd)
	if err != nil {
		return "unknown (" + strings.TrimPrefix(err.Error(), "unknown: ") + ")", ""
	}
	if len(b.Devices) == 1 {
		return b.Devices[0].Name, memoryDevice(sys, b.Devices[0])
	}
	// a member in RAM serves its share of the reads (a RAID1 mirror
	// reads from either): each one is named, as a single device would be
	var mem []string
	for _, d := range b.Devices {
		if m := memoryDevice(sys, d); m != "" {
			mem = append(mem, d.Name+" ("+m+")")
		}
	}
	return strings.Join(b.Names(), "+"), strings.Join(mem, ", ")
}

// memoryDevice reports why a block device is RAM, "" when it is not.
func memoryDevice(sys blockdev.Sys, d blockdev.Device) string {
	switch d.Kind {
	case blockdev.ZRAM:
		return "zram (compressed RAM)"
	case blockdev.RAM:
		return "brd RAM disk"
	case blockdev.Loop:
		l, ok := sys.Loop(d.Whole)
		if !ok || l.Deleted {
			return ""
		}
		var fs unix.Statfs_t
		if unix.Statfs(l.File, &fs) == nil && (int64(fs.Type) == unix.TMPFS_MAGIC || int64(fs.Type) == unix.RAMFS_MAGIC) {
			return "loop device backed by " + l.File + " on tmpfs"
		}
	}
	return ""
}
