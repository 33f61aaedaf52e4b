package tune

import (
	"errors"
	"fmt"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/hostfs"
)

// Device is a block device on the data path of the file being tuned.
type Device struct {
	Name string `json:"name"` // kernel name: sda, md0, dm-1, loop3
	Kind string `json:"kind"` // blockdev's kind: disk, md, dm, loop, zram, nbd …
	// Via says how it was reached from the file (for people).
	Via string `json:"via"`
	// PageCache says buffered reads of the file go through this device's
	// read-ahead: the device the filesystem sits on, and the one under a
	// buffered loop device's backing file. Members of md and dm get bios
	// from above, never page-cache reads of their own; btrfs and bcachefs
	// read through a bdi of their own, not their members' queues; a loop
	// device in direct-I/O mode reads its backing file with O_DIRECT.
	PageCache bool `json:"page_cache"`
	// BackingFile is the file behind a loop device.
	BackingFile string `json:"backing_file,omitempty"`
}

// Resolver finds devices through sysfs (internal/blockdev); Sys is "/sys"
// outside tests.
type Resolver struct {
	Sys string
}

// DefaultResolver reads the live system.
var DefaultResolver = Resolver{Sys: "/sys"}

func (r Resolver) sys() blockdev.Sys { return blockdev.At(hostfs.Live(), r.Sys) }

// Resolve returns the block devices under path, from the filesystem's
// device down through partitions, md, dm (LVM, dm-crypt) and loop devices
// to the disks, top first.
//
// A btrfs or bcachefs filesystem (blockdev.FileDevices: its members from
// /sys/fs) adds every member, as md adds every member: each member's
// knobs are tried and measured one at a time, like an md array's. None of
// them gets read-ahead: btrfs reads through a bdi of its own
// (/sys/fs/btrfs/<FSID>/bdi; kernel commit 3092c68fc58c), not through its
// devices' queues, and so does bcachefs (super_setup_bdi in
// fs/bcachefs/fs.c; not seen live here: no test kernel has bcachefs). When the
// members cannot be established the path has nothing to tune: the error
// says why, rather than naming a disk that may not be the one.
func (r Resolver) Resolve(path string) ([]Device, error) {
	b, err := r.sys().FileDevices(path)
	if err != nil {
		return nil, fmt.Errorf("%w: nothing to tune on this path", err)
	}
	via, pageCache := "filesystem of "+path, true
	if b.FS != "" {
		via, pageCache = b.Via(), false
	}
	var out []Device
	seen := map[string]bool{}
	for _, d := range b.Devices {
		if err := r.walkDev(d, via, pageCache, &out, seen, 0); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no block device found under it", path)
	}
	return out, nil
}

// walkDev adds the whole device of d (a partition is replaced by its disk:
// the queue is the disk's) and what it is built on.
func (r Resolver) walkDev(d blockdev.Device, via string, pageCache bool, out *[]Device, seen map[string]bool, depth int) error {
	if d.Partition {
		via += " (partition " + d.Name + ")"
	}
	return r.walkName(d.Whole, via, pageCache, out, seen, depth)
}

// walkName adds the whole device name and, below it, the members of an md
// or dm device and the device holding a loop device's backing file.
// pageCache: this device is the top of a stack the page cache reads.
func (r Resolver) walkName(name, via string, pageCache bool, out *[]Device, seen map[string]bool, depth int) error {
	if depth > 16 {
		return errors.New("block devices nested more than 16 deep: a loop?")
	}
	if seen[name] {
		return nil
	}
	seen[name] = true
	s := r.sys()
	bd, err := s.Lookup(name)
	if err != nil {
		return err
	}
	d := Device{Name: name, Kind: bd.Kind, Via: via, PageCache: pageCache}
	loop, isLoop := s.Loop(name)
	if isLoop {
		d.BackingFile = loop.File
		if loop.Deleted {
			d.BackingFile += " (deleted)"
		}
	}
	*out = append(*out, d)
	members, _ := s.Members(name)
	for _, m := range members {
		if err := r.walkName(m.Whole, "member of "+name, false, out, seen, depth+1); err != nil {
			return err
		}
	}
	if !isLoop || loop.Deleted {
		return nil // a deleted backing file: its path may name another file now
	}
	b, err := s.FileDevices(loop.File)
	if err != nil {
		return nil // backing file on tmpfs or ZFS, or devices unknown
	}
	via = "backing file of " + name
	if v := b.Via(); v != "" {
		via += ", " + v
	}
	if loop.DirectIO {
		via += " (direct I/O)"
	}
	for _, d := range b.Devices {
		// the page cache reads a buffered loop's backing file through
		// its filesystem: a btrfs's own bdi, else its device's queue
		if err := r.walkDev(d, via, !loop.DirectIO && b.FS == "", out, seen, depth+1); err != nil {
			return err
		}
	}
	return nil
}
