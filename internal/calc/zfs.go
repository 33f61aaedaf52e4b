package calc

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/units"
)

// ErrZFS is wrapped by invalid ZFS layouts.
var ErrZFS = errors.New("invalid ZFS layout")

// RaidzAsize is vdev_raidz_asize() of OpenZFS (module/zfs/vdev_raidz.c):
// the bytes a block of psize bytes takes on a raidz vdev of n disks with
// parity p: data sectors, plus p parity sectors per row of n−p data
// sectors, rounded up to a multiple of p+1 (so freed gaps stay usable).
func RaidzAsize(psize uint64, n, p, ashift int) uint64 {
	s := (psize + 1<<ashift - 1) >> ashift
	s += uint64(p) * ((s + uint64(n-p) - 1) / uint64(n-p))
	s = (s + uint64(p)) / uint64(p+1) * uint64(p+1)
	return s << ashift
}

// DeflateRatio is vdev_deflate_ratio: 128 KiB of data over the 512-byte
// units it allocates, in 1/512ths; space reports go through it.
func DeflateRatio(vtype string, n, p, ashift int) uint64 {
	asize := uint64(1 << 17)
	if vtype == "raidz" {
		asize = RaidzAsize(1<<17, n, p, ashift)
	}
	return (1 << 17) / (asize >> 9)
}

// VdevSpec is one top-level vdev of a layout.
type VdevSpec struct {
	Type   string // raidz (with Parity), mirror, disk
	Parity int
	Disks  int
}

// ParseVdev reads "raidz2:6", "mirror:2", "disk:1" (also "raidz:5").
func ParseVdev(s string) (VdevSpec, error) {
	typ, num, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 {
		return VdevSpec{}, fmt.Errorf("%w: vdev %q: use TYPE:DISKS, e.g. raidz2:6, mirror:2, disk:1", ErrZFS, s)
	}
	v := VdevSpec{Type: typ, Disks: n}
	t, parity, err := units.ParseVdevType(typ)
	if err != nil {
		return v, fmt.Errorf("%w: vdev type %q (want raidz1/z1, raidz2/z2, raidz3/z3, mirror or disk)", ErrZFS, typ)
	}
	v.Type, v.Parity = t, parity
	switch t {
	case "mirror":
		if n < 2 {
			return v, fmt.Errorf("%w: a mirror needs 2 or more disks", ErrZFS)
		}
	case "disk":
		if n != 1 {
			return v, fmt.Errorf("%w: disk:%d: a plain vdev is one disk (repeat --vdev disk:1 for a stripe)", ErrZFS, n)
		}
	}
	if v.Type == "raidz" && n < v.Parity+2 {
		return v, fmt.Errorf("%w: raidz%d needs at least %d disks", ErrZFS, v.Parity, v.Parity+2)
	}
	if n > 255 {
		return v, fmt.Errorf("%w: %d disks in one vdev", ErrZFS, n)
	}
	return v, nil
}

// ZFS label and boot areas of every leaf (include/sys/vdev_impl.h):
// 2 labels + 3.5 MiB boot block in front, 2 labels at the end.
const (
	zfsLabelStart = 4 << 20
	zfsLabelEnd   = 512 << 10
)

// VdevResult is one vdev of a ZFS plan.
type VdevResult struct {
	Spec         string  `json:"vdev"`
	RawBytes     uint64  `json:"raw_bytes"`
	AllocBytes   uint64  `json:"alloc_bytes"` // metaslab-rounded allocatable space
	UsableBytes  uint64  `json:"usable_bytes"`
	DeflateRatio uint64  `json:"deflate_ratio_512ths"`
	Efficiency   float64 `json:"efficiency"`       // usable ÷ raw
	IdealEff     float64 `json:"ideal_efficiency"` // (n−p)/n, 1/n for mirrors
	// RecordEff is the allocation efficiency at the given recordsize.
	RecordEff float64 `json:"recordsize_efficiency"`
}

// ZFSPlan is the answer of `nastune calc zfs` for one ashift.
type ZFSPlan struct {
	Ashift      int          `json:"ashift"`
	Vdevs       []VdevResult `json:"vdevs"`
	SlopBytes   uint64       `json:"slop_bytes"`
	UsableBytes uint64       `json:"usable_bytes"` // zfs list AVAIL of a new empty pool (approximately)
}

// metaslabShift is vdev_metaslab_set_size() of OpenZFS 2.x: 512 MiB
// metaslabs (zfs_vdev_default_ms_shift 29) unless that gives fewer than 16
// or more than 200 of them, then asize/16 or asize/200 rounded up to a
// power of two, kept within 2^24 … 2^34 (zfs_vdev_max_ms_shift) and at
// most 131072 metaslabs.
func metaslabShift(asize uint64) uint {
	highbit := func(v uint64) uint { return uint(bits.Len64(v)) }
	count := asize >> 29
	ms := uint(29)
	switch {
	case count < 16:
		ms = highbit(asize / 16)
	case count > 200:
		ms = highbit(asize / 200)
	}
	ms = min(max(ms, 24), 34)
	if asize>>ms > 131072 {
		ms = highbit(asize / 131072)
	}
	return ms
}

// WholeDiskPsize is the size of the data partition `zpool create` makes
// on a whole disk: it starts at 1 MiB and leaves an 8 MiB reserved
// partition at the end.
func WholeDiskPsize(diskSize uint64) uint64 { return diskSize - 1<<20 - 8<<20 }

// childAsize is vdev_open(): the partition rounded down to the 256 KiB
// label size, minus the front (4 MiB) and back (512 KiB) label areas.
func childAsize(psize uint64) uint64 {
	return psize&^(256<<10-1) - zfsLabelStart - zfsLabelEnd
}

// PlanZFS computes a new pool's space at one ashift, for current OpenZFS
// (2.1 and later: slop capped at 128 GiB).
func PlanZFS(vdevs []VdevSpec, diskSize uint64, ashift int, recordsize uint64) (ZFSPlan, error) {
	return planZFS(vdevs, diskSize, ashift, recordsize, true)
}

func planZFS(vdevs []VdevSpec, diskSize uint64, ashift int, recordsize uint64, capSlop bool) (ZFSPlan, error) {
	if ashift < 9 || ashift > 16 {
		return ZFSPlan{}, fmt.Errorf("%w: ashift %d (want 9-16)", ErrZFS, ashift)
	}
	if diskSize < 128<<20 {
		return ZFSPlan{}, fmt.Errorf("%w: disk size %d is below ZFS's 64 MiB minimum", ErrZFS, diskSize)
	}
	if len(vdevs) == 0 {
		return ZFSPlan{}, fmt.Errorf("%w: no --vdev given", ErrZFS)
	}
	// Every byte count below is a uint64, as in OpenZFS; the pool's raw
	// size must fit one (and each disk a Linux block device, loff_t).
	if diskSize > math.MaxInt64 {
		return ZFSPlan{}, fmt.Errorf("%w: disk size %d: at most 8 EiB (2^63-1 bytes, the largest Linux block device)", ErrZFS, diskSize)
	}
	disks := uint64(0)
	for _, v := range vdevs {
		disks += uint64(v.Disks)
	}
	if hi, lo := bits.Mul64(disks, diskSize); hi != 0 || lo > math.MaxInt64 {
		return ZFSPlan{}, fmt.Errorf("%w: %d disks of %d bytes are beyond 8 EiB (2^63-1 bytes) in all, more than the 64-bit byte counts this arithmetic (and OpenZFS's space accounting) can hold", ErrZFS, disks, diskSize)
	}
	plan := ZFSPlan{Ashift: ashift}
	var dspace uint64
	for _, v := range vdevs {
		child := childAsize(WholeDiskPsize(diskSize))
		var asize uint64
		r := VdevResult{Spec: fmt.Sprintf("%s:%d", vtypeName(v), v.Disks)}
		switch v.Type {
		case "raidz":
			asize = child * uint64(v.Disks)
			r.IdealEff = float64(v.Disks-v.Parity) / float64(v.Disks)
			r.RecordEff = float64(recordsize) / float64(RaidzAsize(recordsize, v.Disks, v.Parity, ashift))
		case "mirror":
			asize = child
			r.IdealEff = 1 / float64(v.Disks)
			r.RecordEff = r.IdealEff
		default:
			asize = child
			r.IdealEff, r.RecordEff = 1, 1
		}
		ms := metaslabShift(asize)
		alloc := asize >> ms << ms
		r.RawBytes = diskSize * uint64(v.Disks)
		r.AllocBytes = alloc
		r.DeflateRatio = DeflateRatio(v.Type, v.Disks, v.Parity, ashift)
		r.UsableBytes = (alloc >> 9) * r.DeflateRatio
		r.Efficiency = float64(r.UsableBytes) / float64(r.RawBytes)
		dspace += r.UsableBytes
		plan.Vdevs = append(plan.Vdevs, r)
	}
	plan.SlopBytes = Slop(dspace, capSlop)
	if dspace > plan.SlopBytes {
		plan.UsableBytes = dspace - plan.SlopBytes
	}
	return plan, nil
}

// Slop is spa_get_slop_space(): 1/32 of the pool (spa_slop_shift 5),
// at least 128 MiB (spa_min_slop), at most 128 GiB (spa_max_slop, since
// OpenZFS 2.1; capped=false gives the older uncapped rule), and never more
// than half the pool.
func Slop(dspace uint64, capped bool) uint64 {
	s := max(dspace>>5, 128<<20)
	if capped {
		s = min(s, 128<<30)
	}
	return min(s, dspace/2)
}

func vtypeName(v VdevSpec) string {
	if v.Type == "raidz" {
		return fmt.Sprintf("raidz%d", v.Parity)
	}
	return v.Type
}
