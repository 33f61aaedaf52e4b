package calc

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// RAIDInput describes an md array to be created with mdadm's defaults
// (metadata 1.2, internal bitmap space, 512 KiB chunk).
type RAIDInput struct {
	Level      int    // 0, 1, 5, 6, 10
	Devices    int    // active members
	Spares     int    // add nothing to capacity
	MemberSize uint64 // bytes of each member device (the smallest one)
	ChunkBytes uint64 // 0: mdadm's default 512 KiB
	// AvgRequest and FSBlock (bytes) are optional, for the chunk and
	// filesystem geometry advice.
	AvgRequest uint64
	FSBlock    uint64
	// StripeCache is stripe_cache_size, for its memory cost (raid4/5/6).
	StripeCache int
}

// RAIDPlan is the answer of `nastune calc raid`.
type RAIDPlan struct {
	Level int `json:"level"`
	// DataOffsetSectors and ComponentBytes follow mdadm's
	// validate_geometry1 and Create (what mdadm -E/-D print as Data Offset
	// and Used Dev Size).
	DataOffsetSectors uint64 `json:"data_offset_sectors"`
	// DataOffsetBasis says which mdadm default the offset assumes.
	DataOffsetBasis        string `json:"data_offset_basis"`
	ComponentBytes         uint64 `json:"component_bytes"`
	UsableBytes            uint64 `json:"usable_bytes"` // mdadm -D Array Size
	DataDisks              int    `json:"data_disks"`
	ChunkBytes             uint64 `json:"chunk_bytes"`
	RecommendedChunkBytes  uint64 `json:"recommended_chunk_bytes,omitempty"`
	Ext4Stride             uint64 `json:"ext4_stride,omitempty"`
	Ext4StripeWidth        uint64 `json:"ext4_stripe_width,omitempty"`
	XFSSuBytes             uint64 `json:"xfs_su_bytes,omitempty"`
	XFSSw                  int    `json:"xfs_sw,omitempty"`
	StripeCacheMemoryBytes uint64 `json:"stripe_cache_memory_bytes,omitempty"`
}

// DefaultChunk is mdadm's default chunk size.
const DefaultChunk = 512 << 10

// MaxMDDevices is the most devices (active and spare) an array with 1.2
// metadata can hold: mdadm's super1.c MAX_DEVS, (MAX_SB_SIZE 4096 − the
// 256-byte superblock) / 2 bytes per role slot.
const MaxMDDevices = (4096 - 256) / 2

// MaxChunk is the largest power-of-two chunk the 1.2 superblock's 32-bit
// chunksize (in 512-byte sectors) holds: 2³¹ sectors, 1 TiB.
const MaxChunk = 1 << 31 << 9

// ErrRAID is wrapped by invalid RAID inputs.
var ErrRAID = errors.New("invalid RAID geometry")

// mdadmBitmapSpace is choose_bm_space() of mdadm's super1.c, in sectors.
func mdadmBitmapSpace(devSectors uint64) uint64 {
	switch {
	case devSectors < 64*2:
		return 0
	case devSectors-64*2 >= 200*1024*1024*2:
		return 128 * 2
	case devSectors-4*2 > 8*1024*1024*2:
		return 64 * 2
	}
	return 4 * 2
}

// DataOffsetBasis names the mdadm default MdadmDataOffset follows.
const DataOffsetBasis = "mdadm >= 4.1 default for metadata 1.2 (super1.c validate_geometry1: bitmap space + up to 128 MiB reshape headroom, rounded to 1 MiB); " +
	"arrays created by older mdadm releases can have another offset: check `mdadm -E MEMBER` (Data Offset)"

// MdadmDataOffset is the default data offset (sectors) mdadm 4.1+ gives a
// 1.2-metadata member of devSectors with a chunk of chunkKiB (0 for
// levels without chunks): 12×2 + bitmap space + reshape headroom (128 MiB,
// shrunk towards 0.1% of the device), rounded up to 1 MiB.
func MdadmDataOffset(devSectors uint64, chunkKiB uint64) uint64 {
	headroom := uint64(128 * 1024 * 2)
	for headroom<<10 > devSectors && (chunkKiB == 0 || headroom/2 >= chunkKiB*2*2) {
		headroom >>= 1
	}
	off := 12*2 + mdadmBitmapSpace(devSectors) + headroom
	const oneMeg = 2 * 1024
	return (off + oneMeg - 1) / oneMeg * oneMeg
}

// PlanRAID computes capacity and geometry.
func PlanRAID(in RAIDInput) (RAIDPlan, error) {
	p := RAIDPlan{Level: in.Level, ChunkBytes: in.ChunkBytes, DataOffsetBasis: DataOffsetBasis}
	if p.ChunkBytes == 0 {
		p.ChunkBytes = DefaultChunk
	}
	if p.ChunkBytes < 4096 || p.ChunkBytes&(p.ChunkBytes-1) != 0 {
		return p, fmt.Errorf("%w: chunk %d is not a power of two of at least 4 KiB", ErrRAID, p.ChunkBytes)
	}
	minDev := map[int]int{0: 2, 1: 2, 5: 3, 6: 4, 10: 2}
	md, ok := minDev[in.Level]
	if !ok {
		return p, fmt.Errorf("%w: level %d (want 0, 1, 5, 6 or 10)", ErrRAID, in.Level)
	}
	if in.Devices < md {
		return p, fmt.Errorf("%w: RAID%d needs at least %d devices, got %d", ErrRAID, in.Level, md, in.Devices)
	}
	if in.Spares < 0 {
		return p, fmt.Errorf("%w: --spares %d is negative", ErrRAID, in.Spares)
	}
	if in.Devices > MaxMDDevices || in.Spares > MaxMDDevices-in.Devices {
		return p, fmt.Errorf("%w: --devices %d with --spares %d: at most %d devices in all (mdadm's limit for 1.2 metadata: (4096-256)/2 role slots, super1.c MAX_DEVS)",
			ErrRAID, in.Devices, in.Spares, MaxMDDevices)
	}
	if in.MemberSize < 64<<20 {
		return p, fmt.Errorf("%w: member size %d bytes is too small for 1.2 metadata", ErrRAID, in.MemberSize)
	}
	if in.MemberSize > math.MaxInt64 {
		return p, fmt.Errorf("%w: member size %d bytes: at most 8 EiB (2^63-1 bytes, the largest Linux block device)", ErrRAID, in.MemberSize)
	}
	if p.ChunkBytes > MaxChunk {
		return p, fmt.Errorf("%w: chunk %d bytes: at most 1 TiB (the 1.2 superblock holds the chunk as a 32-bit count of sectors)", ErrRAID, p.ChunkBytes)
	}
	if in.FSBlock != 0 && (in.FSBlock < 1024 || in.FSBlock > 65536 || in.FSBlock&(in.FSBlock-1) != 0) {
		return p, fmt.Errorf("%w: filesystem block %d bytes: ext4 and XFS blocks are a power of two from 1 KiB to 64 KiB", ErrRAID, in.FSBlock)
	}
	if in.StripeCache != 0 && (in.StripeCache < 17 || in.StripeCache > 32768) {
		return p, fmt.Errorf("%w: --stripe-cache %d: the kernel accepts 17-32768 (raid5.c raid5_set_cache_size)", ErrRAID, in.StripeCache)
	}
	chunkKiB := p.ChunkBytes >> 10
	if in.Level == 1 {
		chunkKiB = 0
		p.ChunkBytes = 0
	}
	devSectors := in.MemberSize >> 9
	p.DataOffsetSectors = MdadmDataOffset(devSectors, chunkKiB)
	compKiB := (devSectors - p.DataOffsetSectors) / 2
	if in.Level == 1 {
		compKiB &^= 64 - 1 // Create.c: raid1 size rounded to 64 KiB
	} else {
		compKiB &^= chunkKiB - 1
	}
	p.ComponentBytes = compKiB << 10
	if p.ComponentBytes == 0 {
		return p, fmt.Errorf("%w: chunk %d bytes is larger than a member's data area (%d bytes)", ErrRAID, p.ChunkBytes, (devSectors-p.DataOffsetSectors)<<9)
	}
	n := uint64(in.Devices)
	// The array is one block device: its size must fit loff_t.
	if hi, lo := bits.Mul64(n, p.ComponentBytes); hi != 0 || lo > math.MaxInt64 {
		return p, fmt.Errorf("%w: %d × %d bytes is beyond 8 EiB (2^63-1 bytes), the largest Linux block device", ErrRAID, in.Devices, p.ComponentBytes)
	}
	switch in.Level {
	case 0:
		p.DataDisks = in.Devices
		p.UsableBytes = n * p.ComponentBytes
	case 1:
		p.DataDisks = 1
		p.UsableBytes = p.ComponentBytes
	case 5:
		p.DataDisks = in.Devices - 1
		p.UsableBytes = (n - 1) * p.ComponentBytes
	case 6:
		p.DataDisks = in.Devices - 2
		p.UsableBytes = (n - 2) * p.ComponentBytes
	case 10: // near=2 layout, mdadm's default
		p.DataDisks = in.Devices / 2
		p.UsableBytes = n * p.ComponentBytes / 2 &^ (p.ChunkBytes - 1)
	}
	if in.Level != 1 && in.FSBlock > 0 {
		p.Ext4Stride = p.ChunkBytes / in.FSBlock
		p.Ext4StripeWidth = p.Ext4Stride * uint64(p.DataDisks)
	}
	if in.Level != 1 {
		p.XFSSuBytes, p.XFSSw = p.ChunkBytes, p.DataDisks
	}
	if in.AvgRequest > 0 && p.DataDisks > 0 && in.AvgRequest/uint64(p.DataDisks) > MaxChunk {
		return p, fmt.Errorf("%w: --avg-request %d bytes over %d data disks asks for a chunk above 1 TiB, the most the 1.2 superblock holds", ErrRAID, in.AvgRequest, p.DataDisks)
	}
	if in.AvgRequest > 0 && p.DataDisks > 0 {
		p.RecommendedChunkBytes = RecommendChunk(in.AvgRequest, p.DataDisks)
	}
	if in.StripeCache > 0 && (in.Level == 5 || in.Level == 6) {
		p.StripeCacheMemoryBytes = StripeCacheMemory(in.StripeCache, in.Devices)
	}
	return p, nil
}

// RecommendChunk is KNOWLEDGE §5: chunk ≈ average request ÷ data disks,
// rounded up to a power of two, at least 4 KiB.
func RecommendChunk(avgRequest uint64, dataDisks int) uint64 {
	c := max(avgRequest/uint64(max(dataDisks, 1)), 4096)
	return 1 << bits.Len64(c-1)
}

// StripeCacheMemory is what stripe_cache_size costs: size × page × disks.
func StripeCacheMemory(size, disks int) uint64 { return uint64(size) * 4096 * uint64(disks) }

// RecommendStripeCache is clamp(floor(0.05 × RAM / (4096 × disks)), 17, 32768).
func RecommendStripeCache(ramBytes uint64, disks int) int {
	v := ramBytes / 20 / (4096 * uint64(max(disks, 1)))
	return int(min(max(v, 17), 32768))
}
