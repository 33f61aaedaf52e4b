// Package netlink is nastune's one netlink client. It reads kernel state
// through dump requests: the interfaces' addresses (RTM_GETADDR, for the
// probe), the queueing disciplines of every interface (what `tc -s qdisc`
// prints, for the probe and watch) and TCP sockets' tcp_info (what `ss -ti`
// prints, for watch), without starting ip, tc or ss. It only asks: Dump
// refuses any message type that is not a read request, so no caller can
// change a link, an address, a qdisc or a socket through it. Parsers are pure
// functions of one message payload, so they are fuzzed and table-tested
// without a socket.
package netlink

import (
	"encoding/binary"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// Conn keeps one netlink socket and one buffer for every dump, so watch's
// sampling loop does not allocate one per interval.
type Conn struct {
	fd    int
	proto int
	buf   []byte
	seq   uint32
	// noCompat: the kernel refused TCPDIAG_GETSOCK (TCPSocks).
	noCompat bool
}

// Dial opens a netlink socket of the given protocol (unix.NETLINK_ROUTE,
// unix.NETLINK_SOCK_DIAG); a receive waits at most 2 s.
func Dial(proto int) (*Conn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlink bind: %w", err)
	}
	tv := unix.Timeval{Sec: 2}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return &Conn{fd: fd, proto: proto, buf: *bufs.Get().(*[]byte)}, nil
}

// bufs keeps the receive buffers of closed connections: the audit opens
// two one after the other (addresses, queueing disciplines).
var bufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Close closes the socket.
func (c *Conn) Close() error {
	if c.buf != nil {
		b := c.buf
		bufs.Put(&b)
		c.buf = nil
	}
	return unix.Close(c.fd)
}

// IsGet reports whether typ is an rtnetlink get request (RTM_GETLINK,
// RTM_GETADDR, RTM_GETQDISC …): each family of messages is NEW, DEL, GET,
// SET in that order from a multiple of four (linux/rtnetlink.h).
func IsGet(typ uint16) bool { return typ >= unix.RTM_BASE && (typ-unix.RTM_BASE)%4 == 2 }

// asks reports whether a request of type typ on a socket of protocol proto
// only reads: an rtnetlink get, or sock_diag's one request type
// (SOCK_DIAG_BY_FAMILY, which has no form that changes a socket).
func asks(proto int, typ uint16) bool {
	switch proto {
	case unix.NETLINK_ROUTE:
		return IsGet(typ)
	case unix.NETLINK_SOCK_DIAG:
		return typ == sockDiagByFamily || typ == tcpDiagGetSock
	}
	return false
}

// Dump sends one dump request of type typ whose payload is hdr (the
// family's header and any attributes) and calls fn with the payload of
// every answer of type want, until the kernel says it is done. It refuses,
// before a byte is sent, any request that is not a read (asks).
func (c *Conn) Dump(typ, want uint16, hdr []byte, fn func(b []byte)) error {
	if !asks(c.proto, typ) {
		return fmt.Errorf("netlink: message type %d is not a read request", typ)
	}
	c.seq++
	req := make([]byte, unix.NLMSG_HDRLEN+len(hdr))
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], typ)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], c.seq)
	copy(req[unix.NLMSG_HDRLEN:], hdr)
	if err := unix.Sendto(c.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink send: %w", err)
	}
	for {
		n, _, err := unix.Recvfrom(c.fd, c.buf, 0)
		if err != nil {
			return fmt.Errorf("netlink receive: %w", err)
		}
		done, err := walk(c.buf[:n], c.seq, want, fn)
		if done || err != nil {
			return err
		}
	}
}

// walk calls fn for the messages of one datagram that answer seq with type
// want; done is true at NLMSG_DONE or NLMSG_ERROR.
func walk(b []byte, seq uint32, want uint16, fn func(b []byte)) (done bool, err error) {
	for len(b) >= unix.NLMSG_HDRLEN {
		l := int(binary.NativeEndian.Uint32(b[0:]))
		t := binary.NativeEndian.Uint16(b[4:])
		s := binary.NativeEndian.Uint32(b[8:])
		if l < unix.NLMSG_HDRLEN || l > len(b) {
			return true, fmt.Errorf("netlink: truncated message")
		}
		if s == seq {
			switch t {
			case unix.NLMSG_DONE:
				return true, nil
			case unix.NLMSG_ERROR:
				if l >= unix.NLMSG_HDRLEN+4 {
					if e := int32(binary.NativeEndian.Uint32(b[unix.NLMSG_HDRLEN:])); e != 0 {
						return true, fmt.Errorf("netlink: %w", unix.Errno(-e))
					}
				}
				return true, nil
			case want:
				fn(b[unix.NLMSG_HDRLEN:l])
			}
		}
		al := (l + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		if al > len(b) {
			break
		}
		b = b[al:]
	}
	return false, nil
}

// Attrs walks netlink attributes, calling fn with each type and payload.
func Attrs(b []byte, fn func(t uint16, v []byte)) {
	for len(b) >= 4 {
		l := int(binary.NativeEndian.Uint16(b[0:]))
		t := binary.NativeEndian.Uint16(b[2:]) & 0x3FFF
		if l < 4 || l > len(b) {
			return
		}
		fn(t, b[4:l])
		al := (l + 3) &^ 3
		if al > len(b) {
			return
		}
		b = b[al:]
	}
}

func trimNul(v []byte) []byte {
	if i := len(v); i > 0 && v[i-1] == 0 {
		return v[:i-1]
	}
	return v
}
