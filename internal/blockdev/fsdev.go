package blockdev

// Which block devices a file is on.
//
// A file's st_dev names its block device for most filesystems. btrfs and
// bcachefs give their files an anonymous device number (major 0, one per
// btrfs subvolume), and either may span several devices. Their members are
// read from the filesystem's own sysfs folder, never from the mount's
// source text (the path recorded at mount time: that disk may be gone and
// its name reused, and a multi-device filesystem lists one member there):
//
//   - btrfs: the ioctl BTRFS_IOC_FS_INFO on an open file returns the
//     filesystem's FSID and its number of devices (include/uapi/linux/btrfs.h;
//     fs/btrfs/ioctl.c btrfs_ioctl_fs_info checks no capability).
//     /sys/fs/btrfs/<FSID>/devices/ holds one link per member to its block
//     device and devinfo/<devid>/ one folder per device, "missing" set for
//     a device without one (Documentation/ABI/testing/sysfs-fs-btrfs).
//     Both also list the devices of a seed filesystem a btrfs was sprouted
//     from (its files written before the sprout are read from them), which
//     the ioctl does not count: fewer links than its count is a device
//     missing, more is checked by devinfo (without it, unknown).
//   - bcachefs: BCH_IOCTL_QUERY_UUID returns the UUID that names
//     /sys/fs/bcachefs/<UUID>/ (Documentation/filesystems/bcachefs), where
//     dev-N/block links to member N's block device.
//
// Each member link must resolve to a folder under /sys/devices, the
// link's name (btrfs names it after the device) must be that folder's, and
// /sys/class/block/NAME, the kernel's own link for the name, must resolve
// to the same folder. A member that fails any check, a missing
// member, or a count that disagrees with the filesystem's makes the answer
// unknown (ErrUnknown): a wrong disk is worse than none, since tune would
// change its knobs.
//
// The ioctls need an open file of the running system: for a captured tree
// the question is unknown. FSMembers, the sysfs half, reads any tree.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// The multi-device filesystems FSMembers reads.
const (
	Btrfs    = "btrfs"
	Bcachefs = "bcachefs"
)

// ErrUnknown is wrapped by every error saying the block devices of a file
// cannot be established with certainty (errors.Is). Callers then say so
// rather than name a disk.
var ErrUnknown = errors.New("unknown")

type unknownError struct{ why string }

func (e *unknownError) Error() string { return "unknown: " + e.why }
func (e *unknownError) Is(t error) bool {
	return t == ErrUnknown
}

func unknown(format string, a ...any) error {
	return &unknownError{fmt.Sprintf(format, a...)}
}

// Backing is the answer to "which block devices is this file on".
type Backing struct {
	// Devices holds the filesystem's device: one for a filesystem on one
	// block device, every member for btrfs and bcachefs (in sysfs order).
	Devices []Device
	// FS and UUID name the btrfs or bcachefs filesystem the Devices are
	// the members of; both "" for a file on one block device.
	FS, UUID string
}

// Via says for people how Devices were found: "" for a file's own device
// number, "member of btrfs <FSID>" for a multi-device filesystem's.
func (b Backing) Via() string {
	if b.FS == "" {
		return ""
	}
	return "member of " + b.FS + " " + b.UUID
}

// Names are the kernel names of Devices.
func (b Backing) Names() []string {
	out := make([]string, len(b.Devices))
	for i, d := range b.Devices {
		out[i] = d.Name
	}
	return out
}

// FileDevices answers for the file at p: from its st_dev, or for a btrfs
// or bcachefs file (statfs) FdDevices on it, opened read-only and
// non-blocking, since the ioctl needs an open regular file or folder.
// Nothing else is opened: opening and closing a pseudo-file can act
// (closing tracefs's free_buffer frees the trace buffer), a FUSE server
// sees every open. Only the live system has device numbers of files: a
// tree's files are the analysing machine's.
func (s Sys) FileDevices(p string) (Backing, error) {
	if !s.root.IsLive() {
		return Backing{}, unknown("%s: a captured tree keeps no device numbers of files", p)
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return Backing{}, fmt.Errorf("%s: %w", p, err)
	}
	if maj, min := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)); maj != 0 { //nolint:unconvert // Dev is uint32 on some GOARCHes
		return s.single(maj, min)
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(p, &sfs); err != nil {
		return Backing{}, fmt.Errorf("%s: %w", p, err)
	}
	if !multiDevice(int64(sfs.Type)) { //nolint:unconvert // Type is int32 on 32-bit GOARCHes
		return Backing{}, s.noBlockDevice(p, unix.Minor(uint64(st.Dev)), int64(sfs.Type)) //nolint:unconvert // Dev and Type are 32 bits on some GOARCHes
	}
	if m := st.Mode & unix.S_IFMT; m != unix.S_IFREG && m != unix.S_IFDIR {
		return Backing{}, unknown("%s is not a regular file or folder: its filesystem cannot be asked", p)
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return Backing{}, fmt.Errorf("%s: %w", p, err)
	}
	defer unix.Close(fd)
	return s.FdDevices(p, fd)
}

// FdDevices answers for the open file fd (name names it in errors): the
// device of its st_dev, or for btrfs and bcachefs (an anonymous device)
// the members FSMembers reads for the filesystem the ioctl names. Any
// other filesystem with an anonymous device (tmpfs, proc, FUSE, overlayfs,
// ZFS, network filesystems) has no block device: an error saying so.
func (s Sys) FdDevices(name string, fd int) (Backing, error) {
	if !s.root.IsLive() {
		return Backing{}, unknown("%s: a captured tree keeps no device numbers of files", name)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return Backing{}, fmt.Errorf("%s: %w", name, err)
	}
	maj, min := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)) //nolint:unconvert // Dev is uint32 on some GOARCHes
	if maj != 0 {
		return s.single(maj, min)
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return Backing{}, fmt.Errorf("%s: %w", name, err)
	}
	var (
		fstype, uuid string
		count        int
		err          error
	)
	switch uint32(sfs.Type) { //nolint:gosec // the magic is 32 bits wide; Type is int32 on 32-bit GOARCHes
	case uint32(unix.BTRFS_SUPER_MAGIC):
		fstype = Btrfs
		uuid, count, err = btrfsFSInfo(fd)
	case uint32(unix.BCACHEFS_SUPER_MAGIC):
		fstype = Bcachefs
		uuid, err = bcachefsUUID(fd)
	default:
		return Backing{}, s.noBlockDevice(name, min, int64(sfs.Type)) //nolint:unconvert // Type is int32 on 32-bit GOARCHes
	}
	if err != nil {
		return Backing{}, unknown("%s is on %s, which did not say its UUID: %v", name, fstype, err)
	}
	devs, err := s.fsMembers(fstype, uuid, count)
	if err != nil {
		return Backing{}, err
	}
	return Backing{Devices: devs, FS: fstype, UUID: uuid}, nil
}

// single is the answer for a file on block device maj:min.
func (s Sys) single(maj, min uint32) (Backing, error) {
	d, err := s.ByDev(maj, min)
	if err != nil {
		return Backing{}, err
	}
	return Backing{Devices: []Device{d}}, nil
}

// multiDevice reports whether statfs's f_type is btrfs's or bcachefs's.
func multiDevice(magic int64) bool {
	m := uint32(magic) //nolint:gosec // the magic is 32 bits wide
	return m == uint32(unix.BTRFS_SUPER_MAGIC) || m == uint32(unix.BCACHEFS_SUPER_MAGIC)
}

// noBlockDevice is the error for name on a filesystem of anonymous device
// 0:min and statfs type magic that is neither btrfs nor bcachefs.
func (s Sys) noBlockDevice(name string, min uint32, magic int64) error {
	return fmt.Errorf("%s is on %s: not a block device (tmpfs, proc, ZFS or a network filesystem have none)", name, s.mountText(min, magic))
}

// mountText describes the filesystem of anonymous device 0:min for an
// error: its type and source from /proc/self/mountinfo, else its magic.
// A btrfs subvolume's number need not be the mount's: then the magic.
func (s Sys) mountText(min uint32, magic int64) string {
	if b, err := s.root.ReadFile("/proc/self/mountinfo"); err == nil {
		if fstype, src, ok := kernfmt.MountInfoMount(b, 0, min); ok {
			return fmt.Sprintf("%s (source %s)", fstype, src)
		}
	}
	return fmt.Sprintf("a filesystem of type 0x%x", uint32(magic)) //nolint:gosec // the magic is 32 bits wide
}

// btrfsIocFsInfo is BTRFS_IOC_FS_INFO, _IOR(0x94, 31, struct
// btrfs_ioctl_fs_info_args) with the generic _IOC encoding (x86, ARM,
// arm64, RISC-V): read, 1024 bytes.
const btrfsIocFsInfo = 2<<30 | 1024<<16 | 0x94<<8 | 31

// bchIoctlQueryUUID is BCH_IOCTL_QUERY_UUID, _IOR(0xbc, 1, struct
// bch_ioctl_query_uuid): read, 16 bytes.
const bchIoctlQueryUUID = 2<<30 | 16<<16 | 0xbc<<8 | 1

// btrfsFSInfo returns the FSID (the name of /sys/fs/btrfs/<FSID>) and the
// number of devices of the btrfs filesystem of fd. struct
// btrfs_ioctl_fs_info_args: max_id u64, num_devices u64, fsid [16]u8, ….
func btrfsFSInfo(fd int) (string, int, error) {
	var args [1024]byte
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), btrfsIocFsInfo, uintptr(unsafe.Pointer(&args[0]))); e != 0 {
		return "", 0, fmt.Errorf("BTRFS_IOC_FS_INFO: %w", e)
	}
	// not *(*uint64)(&args[8]): a byte array need not be word-aligned,
	// and an ARMv5 may read an unaligned word rotated (user accesses are
	// not fixed up by default, arch/arm/mm/alignment.c)
	n := binary.NativeEndian.Uint64(args[8:16])
	if n == 0 || n > MaxMembers {
		return "", 0, fmt.Errorf("BTRFS_IOC_FS_INFO: %d devices", n)
	}
	return formatUUID(args[16:32]), int(n), nil
}

// bcachefsUUID returns the UUID naming /sys/fs/bcachefs/<UUID> for fd.
func bcachefsUUID(fd int) (string, error) {
	var u [16]byte
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), bchIoctlQueryUUID, uintptr(unsafe.Pointer(&u[0]))); e != 0 {
		return "", fmt.Errorf("BCH_IOCTL_QUERY_UUID: %w", e)
	}
	return formatUUID(u[:]), nil
}

// formatUUID writes 16 bytes as the kernel's %pU does: lower-case hex,
// 8-4-4-4-12.
func formatUUID(b []byte) string {
	const hex = "0123456789abcdef"
	var out []byte
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

// ValidUUID reports whether s is a UUID as the kernel prints it (%pU).
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}

// FSMembers are the member block devices of the mounted btrfs or bcachefs
// filesystem UUID, read from /sys/fs/<fstype>/<UUID> and checked as the
// file comment says; an error wrapping ErrUnknown when they cannot be
// established. It reads any tree that holds those folders.
func (s Sys) FSMembers(fstype, uuid string) ([]Device, error) {
	return s.fsMembers(fstype, uuid, 0)
}

// fsMembers is FSMembers checked against count, the number of devices
// BTRFS_IOC_FS_INFO gave (0: none).
func (s Sys) fsMembers(fstype, uuid string, count int) ([]Device, error) {
	if !ValidUUID(uuid) {
		return nil, unknown("%s filesystem %q: not a UUID", fstype, uuid)
	}
	dir := s.dir + "/fs/" + fstype + "/" + uuid
	switch fstype {
	case Btrfs:
		return s.btrfsMembers(dir, uuid, count)
	case Bcachefs:
		return s.bcachefsMembers(dir, uuid)
	}
	return nil, unknown("%s is not a multi-device filesystem blockdev reads", fstype)
}

// btrfsMembers reads the members of btrfs uuid from dir. count is the
// ioctl's number of devices (0: unknown): the devices of the filesystem
// itself, missing ones included, but not those of a seed filesystem it
// was sprouted from, which sysfs links and devinfo lists too (fs/btrfs/
// sysfs.c btrfs_sysfs_add_fs_devices walks fs_devices->seed_list). So
// fewer links than count is a device missing; more is checked by
// devinfo, which counts the seed's devices as well.
func (s Sys) btrfsMembers(dir, uuid string, count int) ([]Device, error) {
	ents, err := s.root.ReadDir(dir + "/devices")
	if err != nil {
		return nil, unknown("btrfs %s: its member devices cannot be read: %v", uuid, err)
	}
	var out []Device
	for _, e := range ents {
		if len(out) == MaxMembers {
			return nil, unknown("btrfs %s: more than %d members", uuid, MaxMembers)
		}
		d, err := s.member(dir+"/devices/"+e.Name(), e.Name())
		if err != nil {
			return nil, unknown("btrfs %s: member %q: %v", uuid, e.Name(), err)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, unknown("btrfs %s: sysfs links no member device", uuid)
	}
	if len(out) < count {
		return nil, unknown("btrfs %s has %d devices, sysfs links %d of them (a device missing or being replaced)", uuid, count, len(out))
	}
	// devinfo/<devid> is there for every device, also one without a
	// block device (a degraded mount): its "missing" is then 1.
	ids, err := s.root.ReadDir(dir + "/devinfo")
	if err != nil {
		// kernels before 5.6 have no devinfo: the ioctl's count checks,
		// and cannot tell a seed's devices from a stray link
		if count > 0 && len(out) != count {
			return nil, unknown("btrfs %s has %d devices, sysfs links %d (a seed device, or one being added)", uuid, count, len(out))
		}
		return out, nil
	}
	n := 0
	for _, id := range ids {
		if _, err := strconv.ParseUint(id.Name(), 10, 64); err != nil {
			continue
		}
		n++
		if v, err := s.root.ReadString(dir + "/devinfo/" + id.Name() + "/missing"); err == nil && v != "0" {
			return nil, unknown("btrfs %s: device %s is missing (a degraded filesystem)", uuid, id.Name())
		}
	}
	if n != len(out) {
		return nil, unknown("btrfs %s has %d devices, sysfs links %d of them", uuid, n, len(out))
	}
	return out, nil
}

func (s Sys) bcachefsMembers(dir, uuid string) ([]Device, error) {
	ents, err := s.root.ReadDir(dir)
	if err != nil {
		return nil, unknown("bcachefs %s: its folder cannot be read: %v", uuid, err)
	}
	var out []Device
	for _, e := range ents {
		idx, ok := strings.CutPrefix(e.Name(), "dev-")
		if !ok {
			continue
		}
		if _, err := strconv.ParseUint(idx, 10, 32); err != nil {
			continue
		}
		if len(out) == MaxMembers {
			return nil, unknown("bcachefs %s: more than %d members", uuid, MaxMembers)
		}
		d, err := s.member(dir+"/"+e.Name()+"/block", "")
		if err != nil {
			return nil, unknown("bcachefs %s: %s: %v", uuid, e.Name(), err)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, unknown("bcachefs %s: sysfs links no member device", uuid)
	}
	return out, nil
}

// member describes the block device the link at link resolves to, named
// want when want is not "" (a btrfs link is named after its device).
func (s Sys) member(link, want string) (Device, error) {
	if want != "" && !ValidName(want) {
		return Device{}, nameErr(want)
	}
	real, err := s.root.RealPath(link)
	if err != nil {
		return Device{}, fmt.Errorf("its link does not resolve (the device is gone): %w", err)
	}
	name := path.Base(real)
	top := s.dir
	if t, err := s.root.RealPath(s.dir); err == nil {
		top = t
	}
	if !strings.HasPrefix(real, top+"/devices/") {
		return Device{}, fmt.Errorf("its link leads to %q, outside %s/devices", real, s.dir)
	}
	if !ValidName(name) {
		return Device{}, nameErr(name)
	}
	if want != "" && want != name {
		return Device{}, fmt.Errorf("the link is named %s but leads to %s", want, name)
	}
	cls, err := s.folder(name)
	if err != nil || cls != real {
		return Device{}, fmt.Errorf("%s/class/block/%s is not the folder the link leads to (%s)", s.dir, name, real)
	}
	return s.describe(name, real)
}

// folder is the real sysfs folder of block device name, found as Lookup
// finds it.
func (s Sys) folder(name string) (string, error) {
	if real, err := s.root.RealPath(s.dir + "/class/block/" + name); err == nil {
		return real, nil
	}
	if real, err := s.root.RealPath(s.dir + "/block/" + name); err == nil {
		return real, nil
	}
	ents, err := s.root.ReadDir(s.dir + "/block")
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		w := e.Name()
		if !ValidName(w) || !strings.HasPrefix(name, w) {
			continue
		}
		if real, err := s.root.RealPath(s.dir + "/block/" + w + "/" + name); err == nil {
			return real, nil
		}
	}
	return "", fmt.Errorf("block device %s: not in %s", name, s.dir)
}
