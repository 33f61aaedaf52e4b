package netlink

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

func attr(t uint16, v []byte) []byte {
	b := make([]byte, 4+len(v), (4+len(v)+3)&^3)
	binary.NativeEndian.PutUint16(b, uint16(4+len(v)))
	binary.NativeEndian.PutUint16(b[2:], t)
	copy(b[4:], v)
	return b[:cap(b)]
}

func TestParseQdiscFifoLimit(t *testing.T) {
	msg := tcmsg(3)
	binary.NativeEndian.PutUint32(msg[8:], 0x80010000)
	binary.NativeEndian.PutUint32(msg[12:], Root)
	lim := make([]byte, 4)
	binary.NativeEndian.PutUint32(lim, 5000)
	msg = append(msg, attr(tcaKind, []byte("pfifo\x00"))...)
	msg = append(msg, attr(tcaOptions, lim)...)
	q, ok := ParseQdisc(msg)
	if !ok || q.Kind != "pfifo" || q.Limit != 5000 || q.Ifindex != 3 || q.Parent != Root || q.Handle != 0x80010000 {
		t.Errorf("got %+v, %v; want pfifo limit 5000 on ifindex 3 at the root", q, ok)
	}
	if _, ok := ParseQdisc(msg[:10]); ok {
		t.Error("a short message parsed")
	}
}

// The loopback device has no queue: the kernel attaches noqueue to it
// (IFF_NO_QUEUE, sch_generic.c attach_one_default_qdisc).
func TestLiveLoopbackNoqueue(t *testing.T) {
	c, err := Dial(unix.NETLINK_ROUTE)
	if err != nil {
		t.Skipf("no netlink: %v", err)
	}
	defer c.Close()
	all, err := c.Qdiscs()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range all {
		if q.Ifindex == 1 && q.Parent == Root {
			if q.Kind != "noqueue" {
				t.Errorf("lo's root qdisc is %q, want noqueue", q.Kind)
			}
			return
		}
	}
	t.Errorf("no root qdisc for lo in %+v", all)
}

func FuzzParse(f *testing.F) {
	f.Add(append(tcmsg(1), attr(tcaKind, []byte("tbf\x00"))...))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseQdisc(b)
		ParseHTBClassRate(b)
	})
}
