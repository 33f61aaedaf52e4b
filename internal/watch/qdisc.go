package watch

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/rtnl"
)

// Qdisc is the root qdisc of one interface with its shaping rate (tbf
// rate, or the ceil of htb's top classes) and cumulative statistics, read
// by a netlink RTM_GETQDISC dump (what `tc -s qdisc` prints) without
// starting tc.
type Qdisc struct {
	Ifindex    int
	Kind       string
	RateBps    uint64 // shaping rate in bits per second; 0 = does not shape
	Bytes      uint64
	Backlog    uint32 // bytes queued now
	Drops      uint64
	Overlimits uint64
}

// Netlink attribute numbers from linux/rtnetlink.h, linux/pkt_sched.h and
// linux/gen_stats.h.
const (
	tcaKind       = 1
	tcaOptions    = 2
	tcaStats2     = 7
	tcaStatsBasic = 1
	tcaStatsQueue = 3
	tcaTbfParms   = 1
	tcaTbfRate64  = 4
	tcaHtbParms   = 1
	tcaHtbRate64  = 6
	tcHRoot       = 0xFFFFFFFF
	sizeofTcmsg   = 20
)

// qdiscReader asks rtnetlink (internal/rtnl) for qdiscs and classes on
// one socket kept for the whole watch.
type qdiscReader struct {
	c   *rtnl.Conn
	hdr [sizeofTcmsg]byte
}

func newQdiscReader() (*qdiscReader, error) {
	c, err := rtnl.Dial()
	if err != nil {
		return nil, err
	}
	return &qdiscReader{c: c}, nil
}

func (q *qdiscReader) Close() error { return q.c.Close() }

// dump sends one RTM_GETQDISC or RTM_GETTCLASS dump request (a tcmsg for
// ifindex, 0 for every interface) and calls fn for every message payload
// of type want.
func (q *qdiscReader) dump(typ uint16, want uint16, ifindex int, fn func(b []byte)) error {
	q.hdr = [sizeofTcmsg]byte{0: unix.AF_UNSPEC}
	binary.NativeEndian.PutUint32(q.hdr[4:], uint32(ifindex))
	return q.c.Dump(typ, want, q.hdr[:], fn)
}

// attrs walks netlink attributes (rtnl.Attrs).
func attrs(b []byte, fn func(t uint16, v []byte)) { rtnl.Attrs(b, fn) }

// parseQdiscMsg decodes one RTM_NEWQDISC payload (tcmsg + attributes).
func parseQdiscMsg(b []byte) (q Qdisc, parent uint32, ok bool) {
	if len(b) < sizeofTcmsg {
		return q, 0, false
	}
	q.Ifindex = int(int32(binary.NativeEndian.Uint32(b[4:])))
	parent = binary.NativeEndian.Uint32(b[12:])
	attrs(b[sizeofTcmsg:], func(t uint16, v []byte) {
		switch t {
		case tcaKind:
			if i := len(v); i > 0 && v[i-1] == 0 {
				v = v[:i-1]
			}
			q.Kind = string(v)
		case tcaOptions:
			if q.Kind == "tbf" {
				attrs(v, func(t uint16, v []byte) {
					switch {
					case t == tcaTbfParms && len(v) >= 12 && q.RateBps == 0:
						q.RateBps = uint64(binary.NativeEndian.Uint32(v[8:])) * 8
					case t == tcaTbfRate64 && len(v) >= 8:
						q.RateBps = binary.NativeEndian.Uint64(v) * 8
					}
				})
			}
		case tcaStats2:
			attrs(v, func(t uint16, v []byte) {
				switch {
				case t == tcaStatsBasic && len(v) >= 8:
					q.Bytes = binary.NativeEndian.Uint64(v)
				case t == tcaStatsQueue && len(v) >= 20:
					q.Backlog = binary.NativeEndian.Uint32(v[4:])
					q.Drops = uint64(binary.NativeEndian.Uint32(v[8:]))
					q.Overlimits = uint64(binary.NativeEndian.Uint32(v[16:]))
				}
			})
		}
	})
	return q, parent, true
}

// parseHTBClassRate returns the rate in bits/s of an htb class message.
// A top-level class has no parent to borrow from, so its rate (not its
// ceil) is what it can send.
func parseHTBClassRate(b []byte) (ifindex int, parent uint32, rate uint64, ok bool) {
	if len(b) < sizeofTcmsg {
		return 0, 0, 0, false
	}
	ifindex = int(int32(binary.NativeEndian.Uint32(b[4:])))
	parent = binary.NativeEndian.Uint32(b[12:])
	kind := ""
	attrs(b[sizeofTcmsg:], func(t uint16, v []byte) {
		switch t {
		case tcaKind:
			kind = string(trimNul(v))
		case tcaOptions:
			attrs(v, func(t uint16, v []byte) {
				switch {
				case t == tcaHtbParms && len(v) >= 12 && rate == 0:
					// struct tc_htb_opt starts with the rate's tc_ratespec, whose last field is bytes/s.
					rate = uint64(binary.NativeEndian.Uint32(v[8:])) * 8
				case t == tcaHtbRate64 && len(v) >= 8:
					rate = binary.NativeEndian.Uint64(v) * 8
				}
			})
		}
	})
	return ifindex, parent, rate, kind == "htb"
}

func trimNul(v []byte) []byte {
	if i := len(v); i > 0 && v[i-1] == 0 {
		return v[:i-1]
	}
	return v
}

// read returns the root qdisc of every interface, by ifindex, into out.
// An htb root gets the sum of its top-level classes' rates as its rate.
func (q *qdiscReader) read(out map[int]Qdisc) error {
	clear(out)
	var htb []int
	err := q.dump(unix.RTM_GETQDISC, unix.RTM_NEWQDISC, 0, func(b []byte) {
		qd, parent, ok := parseQdiscMsg(b)
		if ok && parent == tcHRoot {
			out[qd.Ifindex] = qd
			if qd.Kind == "htb" {
				htb = append(htb, qd.Ifindex)
			}
		}
	})
	for _, idx := range htb {
		if err != nil {
			break
		}
		err = q.dump(unix.RTM_GETTCLASS, unix.RTM_NEWTCLASS, idx, classRates(out))
	}
	return err
}

// classRates adds the rates of htb's top-level classes to their
// interface's root qdisc.
func classRates(out map[int]Qdisc) func(b []byte) {
	return func(b []byte) {
		idx, parent, rate, ok := parseHTBClassRate(b)
		qd, have := out[idx]
		// htb reports a top-level class's parent as TC_H_ROOT.
		if ok && have && qd.Kind == "htb" && parent == tcHRoot {
			qd.RateBps += rate
			out[idx] = qd
		}
	}
}
