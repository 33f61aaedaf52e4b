package calc

import (
	"fmt"
	"math/bits"
)

// OpenZFS's bounds on a vdev's ashift (include/sys/vdev_impl.h and
// zpoolprops(7): 9 … 16), and zfs_vdev_max_auto_ashift's default since
// OpenZFS 2.2 (commit 44cec45f7 lowered it from 16 to 14): the largest
// ashift zpool create picks by itself from a physical sector size.
const (
	AshiftMin     = 9
	AshiftMax     = 16
	AshiftAutoMax = 14
)

// AshiftChoice says which ashift values disks of a sector size accept.
type AshiftChoice struct {
	LogicalSector  int `json:"logical_sector"`
	PhysicalSector int `json:"physical_sector"`
	// Min is log2 of the logical sector: ZFS cannot write less than one
	// logical sector, so a smaller ashift is refused.
	Min int `json:"min"`
	// Max is OpenZFS's limit (16, 64 KiB blocks).
	Max int `json:"max"`
	// Recommended is log2 of the physical sector, at least 12: below the
	// physical sector every write is a read-modify-write inside the disk,
	// and 12 also fits the 4K disks that replace 512-byte ones later.
	Recommended int    `json:"recommended"`
	Why         string `json:"why"`
}

// Ashifts computes the ashift values disks with these sector sizes accept
// (a power of two from 512 to 64 KiB; physical ≥ logical; physical 0: the
// logical size).
func Ashifts(logical, physical int) (AshiftChoice, error) {
	if physical == 0 {
		physical = logical
	}
	for _, s := range []int{logical, physical} {
		if s < 512 || s > 1<<AshiftMax || s&(s-1) != 0 {
			return AshiftChoice{}, fmt.Errorf("%w: sector size %d is not a power of two from 512 to 65536", ErrZFS, s)
		}
	}
	if physical < logical {
		return AshiftChoice{}, fmt.Errorf("%w: physical sector %d is smaller than the logical sector %d", ErrZFS, physical, logical)
	}
	log2 := func(n int) int { return bits.Len(uint(n)) - 1 }
	c := AshiftChoice{LogicalSector: logical, PhysicalSector: physical, Min: log2(logical), Max: AshiftMax}
	c.Recommended = max(log2(physical), 12)
	kind := "512n"
	switch {
	case logical == 512 && physical == 4096:
		kind = "512e (4K physical sectors behind 512-byte logical ones)"
	case logical == 4096 && physical == 4096:
		kind = "4Kn"
	case logical != 512 || physical != 512:
		kind = fmt.Sprintf("%d/%d bytes logical/physical", logical, physical)
	}
	c.Why = fmt.Sprintf("%s: ashift %d-%d accepted (below %d ZFS would write less than a logical sector); %d recommended",
		kind, c.Min, c.Max, c.Min, c.Recommended)
	switch {
	case log2(physical) > AshiftAutoMax:
		c.Why += fmt.Sprintf(" (the physical sector; zpool create picks at most %d by itself, set -o ashift=%d)", AshiftAutoMax, c.Recommended)
	case physical < 4096:
		c.Why += " (not the physical 9: a 4Kn disk cannot later replace one of these in a vdev of ashift 9, and a 512e one would run slowly)"
	default:
		c.Why += " (the physical sector: no read-modify-write inside the disk)"
	}
	return c, nil
}
