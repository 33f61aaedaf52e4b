// Package superblock reads the stripe geometry from ext4 and XFS
// superblocks: the first 4 KiB of a block device, read (not written) by
// the live probe. A captured tree carries `tune2fs -l` / `xfs_info` text
// instead (internal/parse/storcmd). Tests check both against filesystems
// made by the real mkfs.ext4 and mkfs.xfs on loop devices.
package superblock

import (
	"encoding/binary"

	"github.com/nastune/nastune/internal/parse/perr"
)

// ReadSize is how much of the device the parsers need.
const ReadSize = 4096

// ErrUnknown means the bytes hold neither an ext2/3/4 nor an XFS
// superblock. It and every other error of Parse wrap perr.ErrSyntax.
var ErrUnknown = perr.Input("no ext4 or XFS superblock")

// Geometry is the stripe geometry a filesystem was made with. Units are
// filesystem blocks, as tune2fs and xfs_info print them.
type Geometry struct {
	Type      string // "ext4" (also ext2/3) or "xfs"
	BlockSize int
	// ext4: s_raid_stride and s_raid_stripe_width.
	Stride, StripeWidth int
	// XFS: sb_unit and sb_width.
	SUnit, SWidth int
}

// Parse reads the first ReadSize bytes of a device.
func Parse(b []byte) (Geometry, error) {
	// XFS: struct xfs_dsb at 0, big-endian (fs/xfs/libxfs/xfs_format.h).
	if len(b) >= 192 && string(b[0:4]) == "XFSB" {
		be := binary.BigEndian
		return Geometry{Type: "xfs", BlockSize: int(be.Uint32(b[4:])),
			SUnit: int(be.Uint32(b[184:])), SWidth: int(be.Uint32(b[188:]))}, nil
	}
	// ext2/3/4: struct ext4_super_block at 1024, little-endian
	// (fs/ext4/ext4.h): s_log_block_size 0x18, s_magic 0x38,
	// s_raid_stride 0x164, s_raid_stripe_width 0x170.
	const off = 1024
	if len(b) >= off+0x174 {
		le := binary.LittleEndian
		sb := b[off:]
		if le.Uint16(sb[0x38:]) == 0xEF53 {
			logBS := le.Uint32(sb[0x18:])
			if logBS > 6 {
				return Geometry{}, perr.Input("ext4 superblock: implausible block size")
			}
			return Geometry{Type: "ext4", BlockSize: 1024 << logBS,
				Stride: int(le.Uint16(sb[0x164:])), StripeWidth: int(le.Uint32(sb[0x170:]))}, nil
		}
	}
	return Geometry{}, ErrUnknown
}
