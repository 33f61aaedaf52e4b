package bench

import (
	"net"

	"golang.org/x/sys/unix"
)

// retrans sums TCP_INFO's total retransmits over conns, and those the
// receiver reported as duplicates (D-SACK).
func retrans(conns []*net.TCPConn) (total, spurious int64) {
	for _, c := range conns {
		if raw, err := c.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
					total += int64(info.Total_retrans)
					spurious += int64(info.Dsack_dups)
				}
			})
		}
	}
	return total, spurious
}
