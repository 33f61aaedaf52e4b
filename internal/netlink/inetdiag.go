package netlink

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// TCPSock is one established TCP socket with the tcp_info counters that
// tell what limits its sending (what `ss -ti` prints).
type TCPSock struct {
	Cookie        uint64
	Local, Remote netip.AddrPort
	RTTus         uint32 // smoothed RTT, µs
	BytesAcked    uint64 // sent and acknowledged
	BytesReceived uint64
	// Cumulative µs the connection was sending (busy), and of that time
	// limited by the peer's receive window or by its own send buffer
	// (tcp_info tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited,
	// Linux 4.10+; Limits is false on older kernels).
	BusyUS, RwndLimitedUS, SndbufLimitedUS uint64
	Limits                                 bool
}

// From linux/sock_diag.h, linux/inet_diag.h and linux/tcp.h.
const (
	sockDiagByFamily = 20
	tcpDiagGetSock   = 18 // TCPDIAG_GETSOCK, struct inet_diag_req
	sizeofCompatReq  = 60
	compatStates     = 52
	inetDiagInfo     = 2
	sizeofDiagReq    = 56
	sizeofDiagMsg    = 72
	tcpEstablished   = 1
	// struct tcp_info offsets
	tiRTT           = 68
	tiBytesAcked    = 120
	tiBytesReceived = 128
	tiBusy          = 168
	tiRwndLimited   = 176
	tiSndbufLimited = 184
	tiLimitsEnd     = 192
)

// TCPSocks dumps the established TCP sockets (IPv4 and IPv6) with their
// tcp_info. The dump's cost is the kernel's walk of the whole established
// hash table, empty buckets included (2^18 of them on a box with 16 GiB or
// more, 2^10–2^12 on a small NAS), once per family asked: it asks with the
// original TCPDIAG_GETSOCK request, which the kernel answers for both
// families in one walk, and falls back to one SOCK_DIAG_BY_FAMILY dump
// per family when the kernel refuses it.
func (c *Conn) TCPSocks() ([]TCPSock, error) {
	var out []TCPSock
	add := func(b []byte) {
		if s, ok := ParseTCPSock(b); ok {
			out = append(out, s)
		}
	}
	if !c.noCompat {
		// struct inet_diag_req: family (any), src_len, dst_len, ext,
		// inet_diag_sockid, states, dbs.
		req := make([]byte, sizeofCompatReq)
		req[3] = 1 << (inetDiagInfo - 1)
		binary.NativeEndian.PutUint32(req[compatStates:], 1<<tcpEstablished)
		err := c.Dump(tcpDiagGetSock, tcpDiagGetSock, req, add)
		if err == nil {
			return out, nil
		}
		c.noCompat, out = true, out[:0]
	}
	for _, fam := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req := make([]byte, sizeofDiagReq)
		req[0], req[1], req[2] = fam, unix.IPPROTO_TCP, 1<<(inetDiagInfo-1)
		binary.NativeEndian.PutUint32(req[4:], 1<<tcpEstablished)
		err := c.Dump(sockDiagByFamily, sockDiagByFamily, req, add)
		if err != nil {
			return out, fmt.Errorf("inet_diag: %w", err)
		}
	}
	return out, nil
}

// ParseTCPSock decodes one inet_diag_msg with its INET_DIAG_INFO attribute.
func ParseTCPSock(b []byte) (s TCPSock, ok bool) {
	if len(b) < sizeofDiagMsg {
		return s, false
	}
	fam := b[0]
	ip := func(off int) netip.Addr {
		if fam == unix.AF_INET {
			return netip.AddrFrom4([4]byte(b[off : off+4]))
		}
		return netip.AddrFrom16([16]byte(b[off : off+16])).Unmap()
	}
	if fam != unix.AF_INET && fam != unix.AF_INET6 {
		return s, false
	}
	// struct inet_diag_sockid at 4: sport, dport (big endian), src[16], dst[16], if, cookie[2].
	sport, dport := binary.BigEndian.Uint16(b[4:]), binary.BigEndian.Uint16(b[6:])
	s.Local, s.Remote = netip.AddrPortFrom(ip(8), sport), netip.AddrPortFrom(ip(24), dport)
	s.Cookie = uint64(binary.NativeEndian.Uint32(b[44:])) | uint64(binary.NativeEndian.Uint32(b[48:]))<<32
	info := false
	Attrs(b[sizeofDiagMsg:], func(t uint16, v []byte) {
		if t != inetDiagInfo || len(v) < tiBytesReceived+8 {
			return
		}
		info = true
		s.RTTus = binary.NativeEndian.Uint32(v[tiRTT:])
		s.BytesAcked = binary.NativeEndian.Uint64(v[tiBytesAcked:])
		s.BytesReceived = binary.NativeEndian.Uint64(v[tiBytesReceived:])
		if len(v) >= tiLimitsEnd {
			s.Limits = true
			s.BusyUS = binary.NativeEndian.Uint64(v[tiBusy:])
			s.RwndLimitedUS = binary.NativeEndian.Uint64(v[tiRwndLimited:])
			s.SndbufLimitedUS = binary.NativeEndian.Uint64(v[tiSndbufLimited:])
		}
	})
	return s, info
}
