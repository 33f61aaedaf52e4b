// Package netlink reads kernel state through netlink dump requests:
// the queueing disciplines of every interface (what `tc -s qdisc` prints)
// and TCP sockets' tcp_info (what `ss -ti` prints), without starting tc or
// ss. It only sends dump requests: it changes nothing. Parsers are pure
// functions of one message payload, so they are fuzzed and table-tested
// without a socket.
package netlink

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Conn keeps one netlink socket and one buffer for every dump.
type Conn struct {
	fd  int
	buf []byte
	seq uint32
}

// Dial opens a netlink socket of the given protocol (unix.NETLINK_ROUTE,
// unix.NETLINK_SOCK_DIAG).
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
	return &Conn{fd: fd, buf: make([]byte, 32<<10)}, nil
}

// Close closes the socket.
func (c *Conn) Close() error { return unix.Close(c.fd) }

// Dump sends one dump request of type typ with the given payload (the
// family header and any attributes) and calls fn for every message payload
// of type want until the kernel says done.
func (c *Conn) Dump(typ, want uint16, payload []byte, fn func(b []byte)) error {
	c.seq++
	req := make([]byte, unix.NLMSG_HDRLEN+len(payload))
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], typ)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], c.seq)
	copy(req[unix.NLMSG_HDRLEN:], payload)
	if err := unix.Sendto(c.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink send: %w", err)
	}
	for {
		n, _, err := unix.Recvfrom(c.fd, c.buf, 0)
		if err != nil {
			return fmt.Errorf("netlink receive: %w", err)
		}
		b := c.buf[:n]
		for len(b) >= unix.NLMSG_HDRLEN {
			l := int(binary.NativeEndian.Uint32(b[0:]))
			t := binary.NativeEndian.Uint16(b[4:])
			seq := binary.NativeEndian.Uint32(b[8:])
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return fmt.Errorf("netlink: truncated message")
			}
			if seq == c.seq {
				switch t {
				case unix.NLMSG_DONE:
					return nil
				case unix.NLMSG_ERROR:
					if l >= unix.NLMSG_HDRLEN+4 {
						if e := int32(binary.NativeEndian.Uint32(b[unix.NLMSG_HDRLEN:])); e != 0 {
							return fmt.Errorf("netlink: %w", unix.Errno(-e))
						}
					}
					return nil
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
	}
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
