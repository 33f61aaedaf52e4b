//go:build !linux

package bench

import "net"

// retrans is 0, 0 where the kernel's TCP_INFO counters are not read (the
// client OSes the release builds for): the result shows no retransmits.
func retrans(conns []*net.TCPConn) (total, spurious int64) { return 0, 0 }

// sockBuf is 0 where the buffer a stream got is not read.
func sockBuf(c *net.TCPConn, reverse bool) int { return 0 }
