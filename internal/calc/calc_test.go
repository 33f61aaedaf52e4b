package calc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]float64{
		"1Gbit": 1e9, "1gbit/s": 1e9, "2.5G": 2.5e9, "100Mbit": 1e8, "10gbps": 1e10, "1000000": 1e6, "512k": 512e3, " 1 G ": 1e9,
	} {
		got, err := ParseBandwidth(in)
		if err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "fast", "-1G", "0", "1Q", "NaN", "Inf", "1e400"} {
		if _, err := ParseBandwidth(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("ParseBandwidth(%q): want ErrUnit, got %v", bad, err)
		}
	}
}

func TestParseRTT(t *testing.T) {
	for in, want := range map[string]time.Duration{"500us": 500 * time.Microsecond, "0.5ms": 500 * time.Microsecond, "20ms": 20 * time.Millisecond, "1s": time.Second, "250µs": 250 * time.Microsecond} {
		got, err := ParseRTT(in)
		if err != nil || got != want {
			t.Errorf("ParseRTT(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "20", "-1ms", "0s", "soon"} {
		if _, err := ParseRTT(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("ParseRTT(%q): want ErrUnit, got %v", bad, err)
		}
	}
}

func TestBDP(t *testing.T) {
	tests := []struct {
		bps  float64
		rtt  time.Duration
		want uint64
	}{
		{1e9, 20 * time.Millisecond, 2500000}, // the example
		{1e9, 500 * time.Microsecond, 62500},  // LAN: KNOWLEDGE §1 "≈ 62 KB"
		{1e10, 500 * time.Microsecond, 625000},
		{1e8, 40 * time.Millisecond, 500000},
	}
	for _, tt := range tests {
		if got := BDP(tt.bps, tt.rtt); got != tt.want {
			t.Errorf("BDP(%v, %v) = %d, want %d", tt.bps, tt.rtt, got, tt.want)
		}
	}
	if got := TCPBufferMax(62500); got != 131072 {
		t.Errorf("TCPBufferMax(62500) = %d, want 2×BDP rounded up to 64 KiB = 131072", got)
	}
	if got := RAMShareCap(128 << 20); got != 4<<20 {
		t.Errorf("RAMShareCap(128 MiB) = %d", got)
	}
}

// TestRAIDMatchesMdadm: a published mdadm -D/-E of a 3 × 1 TB RAID5
// (1000204886016-byte members, metadata 1.2, 512 KiB chunk): Data Offset
// 264192 sectors, Used Dev Size 976630272 KiB, Array Size 1953260544 KiB.
func TestRAIDMatchesMdadm(t *testing.T) {
	p, err := PlanRAID(RAIDInput{Level: 5, Devices: 3, MemberSize: 1000204886016})
	if err != nil {
		t.Fatal(err)
	}
	if p.DataOffsetSectors != 264192 || p.ComponentBytes != 976630272*1024 || p.UsableBytes != 1953260544*1024 {
		t.Errorf("got offset %d, component %d KiB, array %d KiB", p.DataOffsetSectors, p.ComponentBytes/1024, p.UsableBytes/1024)
	}
	// Small devices: the headroom shrinks towards 0.1% of the device but
	// not below two chunks (mdadm's loop).
	if off := MdadmDataOffset(1<<21, 512); off != 4096 {
		t.Errorf("1 GiB member: data offset %d, want 4096", off)
	}
}

func TestRAIDGeometry(t *testing.T) {
	tests := []struct {
		in          RAIDInput
		data        int
		stride, sw  uint64
		chunk       uint64
		stripeCache uint64
	}{
		{RAIDInput{Level: 6, Devices: 9, Spares: 1, MemberSize: 4e12, FSBlock: 4096, StripeCache: 256}, 7, 128, 896, 0, 256 * 4096 * 9},
		{RAIDInput{Level: 5, Devices: 4, MemberSize: 2e12, ChunkBytes: 64 << 10, FSBlock: 4096, AvgRequest: 96 << 10}, 3, 16, 48, 32 << 10, 0},
		{RAIDInput{Level: 10, Devices: 4, MemberSize: 1e12}, 2, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		p, err := PlanRAID(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if p.DataDisks != tt.data || p.Ext4Stride != tt.stride || p.Ext4StripeWidth != tt.sw ||
			p.RecommendedChunkBytes != tt.chunk || p.StripeCacheMemoryBytes != tt.stripeCache {
			t.Errorf("%+v: got %+v", tt.in, p)
		}
		if tt.in.Level == 6 && p.UsableBytes != 7*p.ComponentBytes {
			t.Errorf("raid6 usable %d, want 7 × component", p.UsableBytes)
		}
	}
	for _, bad := range []RAIDInput{{Level: 6, Devices: 3, MemberSize: 1e12}, {Level: 7, Devices: 4, MemberSize: 1e12},
		{Level: 5, Devices: 4, MemberSize: 1e12, ChunkBytes: 3000}, {Level: 1, Devices: 2, MemberSize: 1 << 20}} {
		if _, err := PlanRAID(bad); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
	if got := RecommendStripeCache(128<<20, 3); got != 546 {
		t.Errorf("stripe cache for 128 MiB, 3 disks = %d", got)
	}
	if got := RecommendStripeCache(4<<30, 10); got != 5242 {
		t.Errorf("stripe cache for 4 GiB, 10 disks = %d", got)
	}
	if got := RecommendStripeCache(64<<30, 10); got != 32768 {
		t.Errorf("stripe cache is capped at 32768, got %d", got)
	}
}

// TestRaidzAsize: OpenZFS vdev_raidz_asize on the cases of its RAIDZ
// parity/padding write-up (sectors at ashift 12).
func TestRaidzAsize(t *testing.T) {
	for _, tt := range []struct {
		psize   uint64
		n, p    int
		sectors uint64
	}{
		{128 << 10, 6, 2, 48},  // 32 data + 2×8 parity = 48, a multiple of 3
		{128 << 10, 5, 1, 40},  // 32 + 8 = 40
		{128 << 10, 10, 2, 42}, // 32 + 8 = 40 → 42
		{4 << 10, 6, 2, 3},     // 1 + 2 = 3
		{8 << 10, 5, 1, 4},     // 2 + 1 = 3 → 4 (padding)
	} {
		if got := RaidzAsize(tt.psize, tt.n, tt.p, 12) >> 12; got != tt.sectors {
			t.Errorf("raidz%d:%d %d bytes: %d sectors, want %d", tt.p, tt.n, tt.psize, got, tt.sectors)
		}
	}
}

// TestZFSMatchesPublishedPool: openzfs/zfs issue 8163 lists `zfs list`
// AVAIL for a new 11-disk raidz2 of 4 TB drives (OpenZFS 0.7.9, whose
// slop was 1/32 without the later 128 GiB cap) at every ashift.
func TestZFSMatchesPublishedPool(t *testing.T) {
	want := map[int]string{9: "31.5", 10: "31.2", 11: "30.6", 12: "29.5", 13: "29.5", 14: "25.8", 15: "25.8", 16: "12.9"}
	for ashift, w := range want {
		p, err := planZFS([]VdevSpec{{Type: "raidz", Parity: 2, Disks: 11}}, 4000787030016, ashift, 1<<20, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%.1f", float64(p.UsableBytes)/(1<<40)); got != w {
			t.Errorf("ashift %d: %s TiB, zfs list said %s TiB", ashift, got, w)
		}
	}
}

func TestZFSSlopAndVdevs(t *testing.T) {
	if got := Slop(100<<40, true); got != 128<<30 {
		t.Errorf("capped slop %d", got)
	}
	if got := Slop(1<<30, true); got != 128<<20 {
		t.Errorf("min slop %d", got)
	}
	for _, bad := range []string{"raidz2:3", "mirror:1", "disk:2", "raid5:4", "raidz2", "raidz2:x"} {
		if _, err := ParseVdev(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	v, err := ParseVdev("raidz:5")
	if err != nil || v.Parity != 1 || v.Type != "raidz" {
		t.Errorf("raidz:5 → %+v %v", v, err)
	}
	p, err := PlanZFS([]VdevSpec{{Type: "mirror", Disks: 2}, {Type: "mirror", Disks: 2}}, 4e12, 12, 128<<10)
	if err != nil || p.Vdevs[0].DeflateRatio != 512 || p.UsableBytes > 8e12 {
		t.Errorf("mirrors: %+v %v", p, err)
	}
}

// TestVPN follows OpenVPN 2.6 frame_calculate_mssfix.
func TestVPN(t *testing.T) {
	tests := []struct {
		in  VPNInput
		mss int
	}{
		// The example: AES-256-GCM over IPv4 with mssfix 1492 mtu:
		// 1492 - 28 (IPv4+UDP) - 4 (opcode+peer-id) - 20 (packet id + tag) - 40 = 1400.
		{VPNInput{MSSFix: 1492, Outer: "ipv4", Cipher: "AES-256-GCM", PeerID: true}, 1400},
		{VPNInput{MSSFix: 1492, Outer: "ipv6", Cipher: "AES-256-GCM", PeerID: true}, 1380},
		// CBC: 1492-28-4-16-32 = 1412 → 1408 whole blocks − 1 = 1407; − 4 (packet id) − 40.
		{VPNInput{MSSFix: 1492, Outer: "ipv4", Cipher: "AES-256-CBC", Auth: "SHA256", PeerID: true}, 1363},
		// Legacy meaning: the UDP payload, outer headers not counted.
		{VPNInput{MSSFix: 1450, Legacy: true, Cipher: "AES-256-GCM", PeerID: true}, 1386},
		// 1360 - 1 (opcode) - 8 (IV) - 20 (HMAC) = 1331 → 1327; - 4 (packet id) - 1 (compression) - 40.
		{VPNInput{MSSFix: 1360, Legacy: true, Cipher: "BF-CBC", Auth: "SHA1", Compression: true}, 1282},
	}
	for _, tt := range tests {
		p, err := PlanVPN(tt.in)
		if err != nil || p.MSS != tt.mss {
			t.Errorf("%+v: MSS %d (%+v), want %d, err %v", tt.in, p.MSS, p, tt.mss, err)
		}
	}
	for _, bad := range []VPNInput{{MSSFix: 1492, Cipher: "ROT13"}, {MSSFix: 100, Cipher: "AES-256-GCM"}, {MSSFix: 1492, Cipher: "AES-256-GCM", Outer: "ipx"}} {
		if _, err := PlanVPN(bad); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// Real disks' byte counts (blockdev --getsize64): the data offset mdadm
// >= 4.1 picks is 264192 sectors (the "Data Offset : 264192 sectors" of
// mdadm -E on such members) unless the device is small; the plan says
// which default it assumes.
func TestRAIDRealDiskSizes(t *testing.T) {
	tests := []struct {
		name   string
		bytes  uint64
		offset uint64
	}{
		{"4 TB (WD40EFRX)", 4000787030016, 264192},
		{"8 TB", 8001563222016, 264192},
		{"500 GB", 500107862016, 264192},
		{"16 GiB partition", 17179869184, 34816}, // headroom 16 MiB (0.1%) + bitmap
	}
	for _, tt := range tests {
		p, err := PlanRAID(RAIDInput{Level: 6, Devices: 6, MemberSize: tt.bytes})
		if err != nil {
			t.Fatal(err)
		}
		if p.DataOffsetSectors != tt.offset || p.ComponentBytes > tt.bytes-tt.offset*512 || !strings.Contains(p.DataOffsetBasis, "mdadm >= 4.1") {
			t.Errorf("%s: offset %d (want %d), component %d, basis %q", tt.name, p.DataOffsetSectors, tt.offset, p.ComponentBytes, p.DataOffsetBasis)
		}
	}
}
