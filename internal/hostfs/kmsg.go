package hostfs

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kmsg"
)

// KmsgPath is the live kernel log device.
const KmsgPath = "/dev/kmsg"

// The kernel log's device number: char major 1 (mem), minor 11
// (Documentation/admin-guide/devices.txt: "11 = /dev/kmsg").
const kmsgMajor, kmsgMinor = 1, 11

// kmsgRecMax bounds one /dev/kmsg record (printk's limit is below it).
const kmsgRecMax = 8192

// KernelLog is the one reader of the live kernel log, /dev/kmsg: the
// audit reads what its buffer holds in one pass (ReadAllMapped), watch
// follows the records logged after it opened it (SeekEnd, then Append
// each interval). A captured tree has no kernel log device; probe reads
// its recorded dmesg through Root.Command instead.
//
// /dev/kmsg is a character device: each read(2) returns one record, and at
// the end of the buffer a blocking read would wait for the next message,
// so it is opened O_NONBLOCK and read until EAGAIN. EPIPE means records
// were overwritten while reading: the next read returns the next one.
// Records are turned into lines as dmesg prints them by
// kmsg.AppendRecord, which leaves out records user space wrote.
type KernelLog struct {
	name string
	fd   int // -1 for a replay
	read func([]byte) (int, error)
	rec  []byte
}

// OpenKernelLog opens name (KmsgPath; tests name others) for reading
// without blocking, and refuses anything but the kernel log's character
// device, 1:11 (checked with fstat on what was opened; a link is not
// followed): a regular file, a FIFO or another device at that path (a
// container's /dev may bind anything there; /dev/zero's endless zeros
// would never end Append) is not the kernel log and is never read.
func OpenKernelLog(name string) (*KernelLog, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("%s: %w (the kernel log needs root, or kernel.dmesg_restrict=0)", name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		unix.Close(fd)
		return nil, fmt.Errorf("%s: not a character device (%s), so not the kernel log: refusing to read it", name, fileType(st.Mode))
	}
	if maj, min := unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev)); maj != kmsgMajor || min != kmsgMinor { //nolint:unconvert // Rdev is uint32 on some GOARCHes
		unix.Close(fd)
		return nil, fmt.Errorf("%s: character device %d:%d, not the kernel log (%d:%d): refusing to read it", name, maj, min, kmsgMajor, kmsgMinor)
	}
	k := &KernelLog{name: name, fd: fd, rec: make([]byte, kmsgRecMax)}
	k.read = func(b []byte) (int, error) { return unix.Read(k.fd, b) }
	return k, nil
}

// fileType names the type of a stat mode for an error.
func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "a regular file"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return fmt.Sprintf("mode %#o", mode&unix.S_IFMT)
}

// ReplayKernelLog is a KernelLog whose records come from read (one record
// per call, EAGAIN at the end, as /dev/kmsg returns them): a test replays
// records through the same loop the live log is read with.
func ReplayKernelLog(name string, read func([]byte) (int, error)) *KernelLog {
	return &KernelLog{name: name, fd: -1, read: read, rec: make([]byte, kmsgRecMax)}
}

// Name is the path the log was opened at.
func (k *KernelLog) Name() string { return k.name }

// SeekEnd positions the log after its last record: Append then returns
// only what the kernel logs from now on.
func (k *KernelLog) SeekEnd() error {
	if k.fd < 0 {
		return nil
	}
	if _, err := unix.Seek(k.fd, 0, unix.SEEK_END); err != nil {
		return fmt.Errorf("%s: %w", k.name, err)
	}
	return nil
}

// Close releases the device.
func (k *KernelLog) Close() error {
	if k.fd < 0 {
		return nil
	}
	return unix.Close(k.fd)
}

// Append reads records until there are none left (EAGAIN) or out holds
// max bytes, and appends them to out as dmesg prints them, one line each.
// An error after some records were read ends the read with what it has;
// one before any is returned.
func (k *KernelLog) Append(out []byte, max int) ([]byte, error) {
	start := len(out)
	for len(out)-start < max {
		n, err := k.read(k.rec)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return out, nil
		case errors.Is(err, unix.EPIPE), errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			if len(out) > start {
				return out, nil
			}
			return out, fmt.Errorf("%s: %w", k.name, err)
		case n == 0:
			return out, nil
		}
		if b, ok := kmsg.AppendRecord(out, k.rec[:n]); ok {
			out = append(b, '\n')
		}
	}
	return out, nil
}

// ReadAllMapped is Append of everything the log holds, up to max bytes,
// built in an anonymous mapping of max bytes (only the pages written
// count), valid until release unmaps it. The live audit parses the log
// there (kmsg.Parse keeps copies of what it keeps): the heap never holds
// it, where a slice that doubled as it grew left each smaller copy on the
// heap (16 + 32 + … + 256 KiB for a 132 KiB log) until a collection the
// audit never reaches.
func (k *KernelLog) ReadAllMapped(max int) (b []byte, release func(), err error) {
	buf, err := unix.Mmap(-1, 0, max+kmsgRecMax+64, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", k.name, err)
	}
	release = func() { _ = unix.Munmap(buf) } // a failed munmap leaves the pages mapped, nothing to undo
	// buf has room for max bytes and one more whole record; a longer line
	// would move to the heap, still right.
	out, err := k.Append(buf[:0], max)
	if err != nil {
		release()
		return nil, nil, err
	}
	return out, release, nil
}
