// Package blockdev is the one place that says what a block device is: its
// kernel name, whether it is a partition and of which whole device, its
// kind (disk, md, dm, loop, zram, …) and the devices it is built on. probe,
// watch, tune and bench all ask it, so the four agree.
//
// It reads sysfs through a hostfs.Root, so it answers for the live system,
// a --root tree and a snapshot alike:
//
//   - A name (sda1, nvme0n1p1, md127p1) is looked up in
//     /sys/class/block/NAME: a "partition" attribute makes it a partition,
//     and its whole device is the folder its link resolves into. A tree
//     without /sys/class/block is searched in /sys/block/*/NAME.
//   - A device number MAJ:MIN is /sys/dev/block/MAJ:MIN, which links to the
//     same folder.
//   - The kind of a whole device is decided from what sysfs holds, in this
//     order: a dm/ folder (device-mapper), md/ (md RAID), loop/ (a bound
//     loop device), zram's initstate and disksize attributes, the SCSI
//     peripheral type of device/type (4 WORM, 5 CD/DVD: "optical"), the
//     kernel's fixed major numbers (1 brd RAM disk, 2 floppy, 7 loop, 9 md,
//     11 SCSI CD-ROM, 31 MTD, 43 nbd; Documentation/admin-guide/devices.txt),
//     and a device/ link, which only hardware-backed disks have. Only a
//     device none of these place (a virtual device with a dynamic major
//     in a tree missing the attributes above) is classified by its name
//     prefix, the documented fallback (byName); a name no prefix matches
//     is a disk.
//
// A device's slaves/ and holders/ folders are read by Links alone (raw
// names, partitions included); Members describes the slaves as devices.
//
// NVMe, MMC/SD, virtio, Xen and SCSI/SATA/USB disks are all Disk: the bus
// they hang from is probe's Transport, not a kind.
//
// FileDevices and FdDevices answer which block devices a file is on: its
// st_dev's, or for btrfs and bcachefs every member of the filesystem, read
// from /sys/fs (fsdev.go says how and from which sources), else an error
// wrapping ErrUnknown. A mount's source text is never taken for a device.
//
// Every value comes from a tree that may be hostile: names read from it
// are checked (ValidName) before they become part of a path, attributes are
// read through hostfs (regular files only, size-capped), and nothing here
// panics on a missing or malformed file.
package blockdev

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/hostfs"
)

// The kinds of block devices.
const (
	Disk    = "disk"    // a whole disk: SATA/SAS/USB (sd), NVMe, MMC/SD, virtio, Xen …
	MD      = "md"      // md RAID array
	DM      = "dm"      // device-mapper: LVM, dm-crypt, multipath …
	Loop    = "loop"    // loop device
	ZRAM    = "zram"    // compressed RAM
	RAM     = "ram"     // brd RAM disk (/dev/ramN)
	NBD     = "nbd"     // network block device
	Optical = "optical" // CD/DVD/BD drive (sr)
	Floppy  = "floppy"  // floppy drive
	MTD     = "mtd"     // mtdblock: raw flash
	Other   = "other"   // a name that fails ValidName: nothing is read for it
)

// Memory reports whether a kind keeps its data in RAM.
func Memory(kind string) bool { return kind == ZRAM || kind == RAM }

// Device is a block device as sysfs describes it.
type Device struct {
	Name string // kernel name: sda1, nvme0n1, dm-0
	// Partition is true for a partition; Whole is then the device it is a
	// partition of (sda for sda1), else Name itself.
	Partition bool
	Whole     string
	// Kind is the kind of the whole device (see the constants).
	Kind string
}

// ErrName is returned for a device name that cannot be a kernel block
// device name (a path separator, "..", a control character, too long).
var ErrName = errors.New("not a block device name")

// Sys is a sysfs tree under a root.
type Sys struct {
	root *hostfs.Root
	dir  string // "/sys" in the root
}

// New reads /sys of root (the live system, a --root tree or a snapshot).
func New(root *hostfs.Root) Sys { return Sys{root: root, dir: "/sys"} }

// At reads the sysfs tree at dir of root (tests and callers that keep a
// sysfs path of their own, such as tune's Resolver.Sys).
func At(root *hostfs.Root, dir string) Sys { return Sys{root: root, dir: path.Clean(dir)} }

// Live reads the running system's /sys.
func Live() Sys { return New(hostfs.Live()) }

// ValidName reports whether s can be a kernel block device name as sysfs
// lists it: 1 to 64 bytes of letters, digits and . _ - : + ! ("cciss!c0d0"
// is how sysfs writes the "/" of cciss/c0d0), not starting with a dot.
func ValidName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.' || c == '_' || c == '-' || c == ':' || c == '+' || c == '!':
		default:
			return false
		}
	}
	return true
}

func nameErr(name string) error {
	return fmt.Errorf("%q: %w", name, ErrName)
}

// Lookup describes the device or partition NAME (a /sys/class/block name).
func (s Sys) Lookup(name string) (Device, error) {
	if !ValidName(name) {
		return Device{}, nameErr(name)
	}
	link := s.dir + "/class/block/" + name
	real, err := s.root.RealPath(link)
	if err != nil {
		return s.lookupBlock(name, err)
	}
	return s.describe(name, real)
}

// lookupBlock finds name in a tree without /sys/class/block: a whole
// device in /sys/block, a partition in a whole device's folder.
func (s Sys) lookupBlock(name string, cause error) (Device, error) {
	if real, err := s.root.RealPath(s.dir + "/block/" + name); err == nil {
		return s.describe(name, real)
	}
	ents, err := s.root.ReadDir(s.dir + "/block")
	if err != nil {
		return Device{}, fmt.Errorf("block device %s: %w", name, cause)
	}
	for _, e := range ents {
		w := e.Name()
		if !ValidName(w) || !strings.HasPrefix(name, w) {
			continue
		}
		if real, err := s.root.RealPath(s.dir + "/block/" + w + "/" + name); err == nil {
			return s.describe(name, real)
		}
	}
	return Device{}, fmt.Errorf("block device %s: %w", name, cause)
}

// describe fills a Device from the real folder of name.
func (s Sys) describe(name, real string) (Device, error) {
	d := Device{Name: name, Whole: name}
	dir := real
	if _, err := s.root.Stat(real + "/partition"); err == nil {
		d.Partition = true
		dir = path.Dir(real)
		d.Whole = path.Base(dir)
		if !ValidName(d.Whole) {
			return Device{}, fmt.Errorf("partition %s: its folder's parent %w", name, nameErr(d.Whole))
		}
	}
	d.Kind = s.kindAt(dir, d.Whole)
	return d, nil
}

// ByDev describes the device numbered maj:min (/sys/dev/block/MAJ:MIN).
func (s Sys) ByDev(maj, min uint32) (Device, error) {
	link := fmt.Sprintf("%s/dev/block/%d:%d", s.dir, maj, min)
	real, err := s.root.RealPath(link)
	if err != nil {
		return Device{}, fmt.Errorf("block device %d:%d: %w", maj, min, err)
	}
	name := path.Base(real)
	if !ValidName(name) {
		return Device{}, fmt.Errorf("block device %d:%d: %w", maj, min, nameErr(name))
	}
	return s.describe(name, real)
}

// Kind is the kind of the whole device NAME (a /sys/block name); Other
// for a name that fails ValidName.
func (s Sys) Kind(name string) string {
	if !ValidName(name) {
		return Other
	}
	return s.kindAt(s.dir+"/block/"+name, name)
}

// fixedMajors are the major numbers the kernel reserves for one driver
// (Documentation/admin-guide/devices.txt). dm, zram, virtio and NVMe
// register a dynamic major, so theirs say nothing.
var fixedMajors = map[uint64]string{1: RAM, 2: Floppy, 7: Loop, 9: MD, 11: Optical, 31: MTD, 43: NBD}

// kindAt decides the kind of the whole device whose sysfs folder is dir.
func (s Sys) kindAt(dir, name string) string {
	ents, err := s.root.ReadDir(dir)
	if err != nil {
		return byName(name)
	}
	has := map[string]bool{}
	for _, e := range ents {
		switch e.Name() {
		case "dm", "md", "loop", "initstate", "disksize", "device", "dev":
			has[e.Name()] = true
		}
	}
	switch {
	case has["dm"]:
		return DM
	case has["md"]:
		return MD
	case has["loop"]:
		return Loop
	case has["initstate"] && has["disksize"]:
		return ZRAM
	}
	if has["device"] {
		// The SCSI peripheral device type: 4 (write-once) and 5 (CD/DVD)
		// are the sr driver's. MMC cards also have a "type" ("SD").
		if t, err := s.root.ReadString(dir + "/device/type"); err == nil && (t == "4" || t == "5") {
			return Optical
		}
	}
	if has["dev"] {
		if v, err := s.root.ReadString(dir + "/dev"); err == nil {
			if maj, _, ok := splitDev(v); ok {
				if k, ok := fixedMajors[maj]; ok {
					return k
				}
			}
		}
	}
	if has["device"] {
		return Disk
	}
	return byName(name)
}

// splitDev parses a "MAJ:MIN" dev attribute.
func splitDev(v string) (maj, min uint64, ok bool) {
	a, b, found := strings.Cut(v, ":")
	if !found {
		return 0, 0, false
	}
	maj, err1 := strconv.ParseUint(a, 10, 32)
	min, err2 := strconv.ParseUint(b, 10, 32)
	return maj, min, err1 == nil && err2 == nil
}

// byName is the fallback for a device sysfs does not place: the prefix of
// the kernel's names for each kind. A name none matches is a disk.
func byName(name string) string {
	for _, k := range []struct{ prefix, kind string }{
		{"md", MD}, {"dm-", DM}, {"loop", Loop}, {"zram", ZRAM}, {"ram", RAM},
		{"nbd", NBD}, {"sr", Optical}, {"fd", Floppy}, {"mtdblock", MTD},
	} {
		if strings.HasPrefix(name, k.prefix) {
			return k.kind
		}
	}
	return Disk
}

// MaxMembers is the most names Links (and so Members) returns for one device.
const MaxMembers = 4096

// The two folders of a device's stacking links.
const (
	Slaves  = "slaves"  // the devices it is built on
	Holders = "holders" // the devices built on it
)

// Links are the names in the slaves/ or holders/ folder (Slaves, Holders)
// of NAME, a whole device or a partition, as sysfs lists them: raw kernel
// names, partitions included. A name that fails ValidName is skipped, and
// at most MaxMembers are returned. A device without the folder has none.
// This is the one reader of those folders: Members and probe both use it.
func (s Sys) Links(name, folder string) ([]string, error) {
	if !ValidName(name) {
		return nil, nameErr(name)
	}
	if folder != Slaves && folder != Holders {
		return nil, fmt.Errorf("block device %s: no stacking folder %q", name, folder)
	}
	dir := s.dir + "/block/" + name
	if _, err := s.root.Lstat(dir); err != nil {
		// A partition's folder is inside its whole device's.
		if d, lerr := s.Lookup(name); lerr == nil && d.Partition {
			dir = s.dir + "/block/" + d.Whole + "/" + name
		}
	}
	return s.linksIn(dir, folder)
}

// PartLinks is Links for partition PART of whole device WHOLE, for a
// caller that walked WHOLE's folder and knows both: it reads
// /sys/block/WHOLE/PART/FOLDER without looking PART up again.
func (s Sys) PartLinks(whole, part, folder string) ([]string, error) {
	if !ValidName(whole) {
		return nil, nameErr(whole)
	}
	if !ValidName(part) {
		return nil, nameErr(part)
	}
	if folder != Slaves && folder != Holders {
		return nil, fmt.Errorf("block device %s: no stacking folder %q", part, folder)
	}
	return s.linksIn(s.dir+"/block/"+whole+"/"+part, folder)
}

// linksIn reads the names in DIR/FOLDER (a device's sysfs folder).
func (s Sys) linksIn(dir, folder string) ([]string, error) {
	ents, err := s.root.ReadDir(dir + "/" + folder)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if len(out) == MaxMembers {
			break
		}
		if ValidName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Members are the devices an md or dm device NAME is built on (its
// slaves/, read by Links), each described by Lookup (a member partition's
// Whole is its disk), in the order sysfs lists them. A name in slaves/
// that fails ValidName is skipped; none is an empty list.
func (s Sys) Members(name string) ([]Device, error) {
	names, err := s.Links(name, Slaves)
	if err != nil {
		return nil, err
	}
	var out []Device
	for _, n := range names {
		d, err := s.Lookup(n)
		if err != nil {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// LoopFile is the file behind a bound loop device.
type LoopFile struct {
	File string // as the kernel prints it, " (deleted)" removed
	// Deleted says the file was removed after the device was bound: its
	// path may name another file now.
	Deleted bool
	// DirectIO says the loop device reads the file with O_DIRECT (loop/dio).
	DirectIO bool
}

// Loop reads loop/backing_file and loop/dio of the loop device NAME; false
// when it is not a bound loop device.
func (s Sys) Loop(name string) (LoopFile, bool) {
	if !ValidName(name) {
		return LoopFile{}, false
	}
	dir := s.dir + "/block/" + name + "/loop/"
	f, err := s.root.ReadString(dir + "backing_file")
	if err != nil || f == "" || strings.ContainsRune(f, '\n') {
		return LoopFile{}, false
	}
	l := LoopFile{File: f}
	if t, ok := strings.CutSuffix(f, " (deleted)"); ok {
		l.File, l.Deleted = t, true
	}
	if v, err := s.root.ReadString(dir + "dio"); err == nil {
		l.DirectIO = v == "1"
	}
	return l, true
}
