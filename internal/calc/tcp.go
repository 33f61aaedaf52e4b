package calc

import (
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
