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

// sockBuf reads the buffer the kernel gave c in this end's direction
// (SO_RCVBUF receiving, SO_SNDBUF sending); 0 when it cannot be read.
func sockBuf(c *net.TCPConn, reverse bool) int {
	opt := unix.SO_SNDBUF
	if reverse {
		opt = unix.SO_RCVBUF
	}
	n := 0
	if raw, err := c.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			if v, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, opt); err == nil {
				n = v
			}
		})
	}
	return n
}
