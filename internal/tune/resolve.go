package tune

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// Device is a block device on the data path of the file being tuned.
type Device struct {
	Name string `json:"name"` // kernel name: sda, md0, dm-1, loop3
	Kind string `json:"kind"` // disk, md, dm, loop
	// Via says how it was reached from the file (for people).
	Via string `json:"via"`
	// PageCache says buffered reads of the file go through this device's
	// read-ahead: the device the filesystem sits on, and the one under a
	// buffered loop device's backing file. Members of md and dm get bios
	// from above, never page-cache reads of their own; a loop device in
	// direct-I/O mode reads its backing file with O_DIRECT.
	PageCache bool `json:"page_cache"`
	// BackingFile is the file behind a loop device.
	BackingFile string `json:"backing_file,omitempty"`
}

// Resolver finds devices through sysfs; Sys is "/sys" outside tests.
type Resolver struct {
	Sys       string
	MountInfo string // /proc/self/mountinfo
}

// DefaultResolver reads the live system.
var DefaultResolver = Resolver{Sys: "/sys", MountInfo: "/proc/self/mountinfo"}

// Resolve returns the block devices under path, from the filesystem's
// device down through partitions, md, dm (LVM, dm-crypt) and loop devices
// to the disks, top first.
func (r Resolver) Resolve(path string) ([]Device, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	via := "filesystem of " + path
	if maj == 0 {
		// btrfs and other filesystems report an anonymous device:
		// the mount's source names the block device.
		src, err := r.mountSource(maj, min)
		if err != nil {
			return nil, err
		}
		var ds unix.Stat_t
		if err := unix.Stat(src, &ds); err != nil || ds.Mode&unix.S_IFMT != unix.S_IFBLK {
			return nil, fmt.Errorf("%s is on %s, which is not a block device (tmpfs, ZFS or a network filesystem): nothing to tune on this path", path, src)
		}
		maj, min = unix.Major(ds.Rdev), unix.Minor(ds.Rdev)
		via = "mount source " + src
	}
	var out []Device
	seen := map[string]bool{}
	if err := r.walk(maj, min, via, true, &out, seen, 0); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no block device found under it", path)
	}
	return out, nil
}

// mountSource finds the source of the mount with device maj:min.
func (r Resolver) mountSource(maj, min uint32) (string, error) {
	b, err := os.ReadFile(r.MountInfo)
	if err != nil {
		return "", err
	}
	if src, ok := kernfmt.MountInfoSource(b, maj, min); ok {
		return src, nil
	}
	return "", fmt.Errorf("device %d:%d is not in %s", maj, min, r.MountInfo)
}

// walk adds the device maj:min (a partition is replaced by its disk) and
// what it is built on.
func (r Resolver) walk(maj, min uint32, via string, pageCache bool, out *[]Device, seen map[string]bool, depth int) error {
	// pageCache: this device is the top of a stack the page cache reads.
	if depth > 16 {
		return errors.New("block devices nested more than 16 deep: a loop?")
	}
	link, err := filepath.EvalSymlinks(filepath.Join(r.Sys, "dev", "block", fmt.Sprintf("%d:%d", maj, min)))
	if err != nil {
		return fmt.Errorf("block device %d:%d: %w", maj, min, err)
	}
	if _, err := os.Stat(filepath.Join(link, "partition")); err == nil {
		link = filepath.Dir(link) // sda1 -> sda: the queue is the disk's
		via += " (partition " + filepath.Base(link) + ")"
	}
	return r.walkName(filepath.Base(link), via, pageCache, out, seen, depth)
}

func (r Resolver) walkName(name, via string, pageCache bool, out *[]Device, seen map[string]bool, depth int) error {
	if seen[name] {
		return nil
	}
	seen[name] = true
	base := filepath.Join(r.Sys, "block", name)
	if _, err := os.Stat(base); err != nil {
		return fmt.Errorf("%s: %w", base, err)
	}
	d := Device{Name: name, Kind: kindOf(name), Via: via, PageCache: pageCache}
	if d.Kind == "loop" {
		d.BackingFile = strings.TrimSpace(readSmall(filepath.Join(base, "loop", "backing_file")))
	}
	*out = append(*out, d)
	slaves, _ := os.ReadDir(filepath.Join(base, "slaves"))
	for _, s := range slaves {
		sname := s.Name()
		if _, err := os.Stat(filepath.Join(r.Sys, "class", "block", sname, "partition")); err == nil {
			if l, err := filepath.EvalSymlinks(filepath.Join(r.Sys, "class", "block", sname)); err == nil {
				sname = filepath.Base(filepath.Dir(l))
			}
		}
		if err := r.walkName(sname, "member of "+name, false, out, seen, depth+1); err != nil {
			return err
		}
	}
	if d.Kind == "loop" && d.BackingFile != "" {
		var st unix.Stat_t
		if err := unix.Stat(d.BackingFile, &st); err != nil {
			return nil // a deleted backing file: nothing more to find
		}
		dio := strings.TrimSpace(readSmall(filepath.Join(base, "loop", "dio"))) == "1"
		via := "backing file of " + name
		if dio {
			via += " (direct I/O)"
		}
		bmaj, bmin := unix.Major(st.Dev), unix.Minor(st.Dev)
		if bmaj == 0 {
			src, err := r.mountSource(bmaj, bmin)
			if err != nil {
				return nil
			}
			var ds unix.Stat_t
			if unix.Stat(src, &ds) != nil || ds.Mode&unix.S_IFMT != unix.S_IFBLK {
				return nil // backing file on tmpfs or ZFS
			}
			bmaj, bmin = unix.Major(ds.Rdev), unix.Minor(ds.Rdev)
		}
		return r.walk(bmaj, bmin, via, !dio, out, seen, depth+1)
	}
	return nil
}

func kindOf(name string) string {
	switch {
	case strings.HasPrefix(name, "md"):
		return "md"
	case strings.HasPrefix(name, "dm-"):
		return "dm"
	case strings.HasPrefix(name, "loop"):
		return "loop"
	case strings.HasPrefix(name, "zram"), strings.HasPrefix(name, "ram"):
		return "ram"
	}
	return "disk"
}

func readSmall(p string) string {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	return string(b[:n])
}
