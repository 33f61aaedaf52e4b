package netlink

import (
	"encoding/binary"
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

func TestIsGet(t *testing.T) {
	for typ, want := range map[uint16]bool{
		unix.RTM_GETLINK: true, unix.RTM_GETADDR: true, unix.RTM_GETQDISC: true, unix.RTM_GETTCLASS: true, unix.RTM_GETROUTE: true,
		unix.RTM_NEWLINK: false, unix.RTM_SETLINK: false, unix.RTM_DELADDR: false, unix.RTM_NEWQDISC: false, unix.RTM_DELQDISC: false,
		unix.NLMSG_DONE: false, 0: false,
	} {
		if IsGet(typ) != want {
			t.Errorf("IsGet(%d) = %v, want %v", typ, !want, want)
		}
	}
}

// Dump refuses anything but a get request before a byte is sent.
func TestDumpRefusesChanges(t *testing.T) {
	c := &Conn{fd: -1, proto: unix.NETLINK_ROUTE}
	for _, typ := range []uint16{unix.RTM_NEWADDR, unix.RTM_DELQDISC, unix.RTM_SETLINK} {
		if err := c.Dump(typ, 0, nil, func([]byte) { t.Error("answer to a refused request") }); err == nil {
			t.Errorf("type %d: not refused", typ)
		}
	}
}

func msg(typ uint16, seq uint32, payload []byte) []byte {
	b := make([]byte, unix.NLMSG_HDRLEN+len(payload))
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint32(b[8:], seq)
	copy(b[unix.NLMSG_HDRLEN:], payload)
	for len(b)%unix.NLMSG_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

func TestWalk(t *testing.T) {
	var got []string
	fn := func(b []byte) { got = append(got, string(b)) }
	dgram := append(append(msg(unix.RTM_NEWADDR, 7, []byte("a")), msg(unix.RTM_NEWADDR, 6, []byte("stale"))...), msg(unix.RTM_NEWLINK, 7, []byte("other"))...)
	if done, err := walk(dgram, 7, unix.RTM_NEWADDR, fn); done || err != nil || len(got) != 1 || got[0] != "a" {
		t.Errorf("walk: done %v err %v got %q", done, err, got)
	}
	if done, err := walk(msg(unix.NLMSG_DONE, 7, nil), 7, unix.RTM_NEWADDR, fn); !done || err != nil {
		t.Errorf("NLMSG_DONE: done %v err %v", done, err)
	}
	e := make([]byte, 4)
	errno := -int32(unix.EPERM)
	binary.NativeEndian.PutUint32(e, uint32(errno))
	if done, err := walk(msg(unix.NLMSG_ERROR, 7, e), 7, unix.RTM_NEWADDR, fn); !done || !errors.Is(err, unix.EPERM) {
		t.Errorf("NLMSG_ERROR: done %v err %v", done, err)
	}
	bad := msg(unix.RTM_NEWADDR, 7, []byte("abcd"))
	binary.NativeEndian.PutUint32(bad[0:], 200)
	if _, err := walk(bad, 7, unix.RTM_NEWADDR, fn); err == nil {
		t.Error("truncated message: no error")
	}
}

func TestAttrs(t *testing.T) {
	// two attributes: type 1 "ab" (padded), type 0x8002 (nested flag) "xyz1"
	b := []byte{6, 0, 1, 0, 'a', 'b', 0, 0, 8, 0, 2, 0x80, 'x', 'y', 'z', '1', 9, 0}
	var got []string
	Attrs(b, func(t uint16, v []byte) { got = append(got, string(rune('0'+t))+string(v)) })
	if len(got) != 2 || got[0] != "1ab" || got[1] != "2xyz1" {
		t.Errorf("Attrs: %q", got)
	}
}

// A real dump: the loopback interface has an address in every network
// namespace this test can run in.
func TestDumpAddresses(t *testing.T) {
	c, err := Dial(unix.NETLINK_ROUTE)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	hdr := [unix.SizeofIfAddrmsg]byte{0: unix.AF_UNSPEC}
	for range 2 { // the socket and its buffer serve a second dump
		if err := c.Dump(unix.RTM_GETADDR, unix.RTM_NEWADDR, hdr[:], func(b []byte) { n++ }); err != nil {
			t.Fatal(err)
		}
	}
	if n < 2 {
		t.Errorf("%d addresses in two dumps, want at least loopback's twice", n)
	}
}

// On a sock_diag socket only SOCK_DIAG_BY_FAMILY passes; rtnetlink's types
// (and a socket of another protocol) are refused before a byte is sent.
func TestDumpRefusesOtherProtocols(t *testing.T) {
	for _, c := range []struct {
		proto int
		typ   uint16
	}{{unix.NETLINK_SOCK_DIAG, unix.RTM_GETADDR}, {unix.NETLINK_SOCK_DIAG, 21}, {unix.NETLINK_ROUTE, sockDiagByFamily}, {unix.NETLINK_AUDIT, 1000}} {
		conn := &Conn{fd: -1, proto: c.proto}
		if err := conn.Dump(c.typ, 0, nil, func([]byte) { t.Error("answer to a refused request") }); err == nil {
			t.Errorf("protocol %d type %d: not refused", c.proto, c.typ)
		}
	}
}
