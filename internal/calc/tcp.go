package calc

import (
	"fmt"
	"math"
	"time"
)

// BDP is the bandwidth-delay product in bytes: what must be in flight to
// fill a link of bps bits per second with round-trip time rtt.
func BDP(bps float64, rtt time.Duration) uint64 {
	return uint64(math.Ceil(bps / 8 * rtt.Seconds()))
}

// TCPBufferMax is the smallest tcp_rmem[2]/tcp_wmem[2] that lets
// autotuning cover a path: twice the BDP (the kernel counts skb overhead
// against the buffer, about half of it on common NICs), rounded up to a
// whole 64 KiB.
func TCPBufferMax(bdp uint64) uint64 {
	const step = 64 << 10
	need := 2 * bdp
	return (need + step - 1) / step * step
}

// RAMShareCap is the most per-socket buffer nastune will recommend on a box
// with ramBytes of memory: RAM/32 (a heuristic: a handful of busy
// connections must not take the box's memory).
func RAMShareCap(ramBytes uint64) uint64 { return ramBytes / 32 }

// Kernel defaults of tcp_rmem/tcp_wmem (min, default, max) that nastune
// keeps when they already cover a path: tcp_rmem[2] was 6 MiB for a decade
// (newer kernels ship more), tcp_wmem[2] is 4 MiB.
var (
	DefaultRmem = [3]uint64{4096, 131072, 6 << 20}
	DefaultWmem = [3]uint64{4096, 16384, 4 << 20}
)

// TCPPlan is the answer of `nastune calc tcp`.
type TCPPlan struct {
	BandwidthBPS float64 `json:"bandwidth_bps"`
	RTTSeconds   float64 `json:"rtt_seconds"`
	BDPBytes     uint64  `json:"bdp_bytes"`
	// NeedBytes is 2 × BDP rounded up to 64 KiB: the smallest useful max.
	NeedBytes uint64 `json:"need_bytes"`
	TCPRmem   string `json:"tcp_rmem"`
	TCPWmem   string `json:"tcp_wmem"`
	// DefaultsCover is true when the kernel defaults already reach NeedBytes.
	DefaultsCover bool    `json:"defaults_cover"`
	RAMBytes      uint64  `json:"ram_bytes,omitempty"`
	RAMShare      float64 `json:"ram_share,omitempty"` // per-socket max ÷ RAM
	OverRAMShare  bool    `json:"over_ram_share,omitempty"`
	Why           string  `json:"why"`
}

// PlanTCP sizes TCP buffers for a path of bps bits per second and rtt,
// on a machine with ramBytes of memory (0: unknown).
func PlanTCP(bps float64, rtt time.Duration, ramBytes uint64) TCPPlan {
	bdp := BDP(bps, rtt)
	need := TCPBufferMax(bdp)
	rmax, wmax := max(need, DefaultRmem[2]), max(need, DefaultWmem[2])
	p := TCPPlan{
		BandwidthBPS: bps, RTTSeconds: rtt.Seconds(), BDPBytes: bdp, NeedBytes: need,
		TCPRmem:       fmt.Sprintf("%d %d %d", DefaultRmem[0], DefaultRmem[1], rmax),
		TCPWmem:       fmt.Sprintf("%d %d %d", DefaultWmem[0], DefaultWmem[1], wmax),
		DefaultsCover: need <= DefaultWmem[2],
		RAMBytes:      ramBytes,
	}
	if p.DefaultsCover {
		p.Why = fmt.Sprintf("One stream needs about 2 × BDP = %d bytes in its buffers; the kernel defaults (tcp_rmem max %d, tcp_wmem max %d) already allow that, so change nothing.",
			need, DefaultRmem[2], DefaultWmem[2])
	} else {
		p.Why = fmt.Sprintf("One stream needs about 2 × BDP = %d bytes in its buffers (the kernel counts packet overhead against them), more than the defaults allow; raise only the max, autotuning does the rest. core.rmem_max/wmem_max matter only for programs that set SO_RCVBUF/SO_SNDBUF themselves.", need)
	}
	if ramBytes > 0 {
		p.RAMShare = float64(max(rmax, wmax)) / float64(ramBytes)
		if need > RAMShareCap(ramBytes) {
			p.OverRAMShare = true
			p.Why += fmt.Sprintf(" On this machine that is more than RAM/32 (%d bytes) per socket: a few such streams would press on memory.", RAMShareCap(ramBytes))
		}
	}
	return p
}
