package netlink

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Qdisc is one queueing discipline of one interface with its shaping rate
// (tbf rate, or the rate of htb's top classes), its packet or byte limit
// where the kernel reports one, and cumulative statistics.
type Qdisc struct {
	Ifindex int
	Handle  uint32
	Parent  uint32 // Root for a root qdisc
	Kind    string
	// Limit is pfifo's packet limit or bfifo's byte limit (struct
	// tc_fifo_qopt); 0 for other kinds.
	Limit      uint32
	RateBps    uint64 // shaping rate in bits per second; 0 = does not shape
	Bytes      uint64
	Backlog    uint32 // bytes queued now
	Drops      uint64
	Overlimits uint64
}

// Root is the parent handle of a root qdisc (TC_H_ROOT).
const Root = 0xFFFFFFFF

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
	sizeofTcmsg   = 20
)

func tcmsg(ifindex int) []byte {
	b := make([]byte, sizeofTcmsg)
	b[0] = unix.AF_UNSPEC
	binary.NativeEndian.PutUint32(b[4:], uint32(ifindex))
	return b
}

// ParseQdisc decodes one RTM_NEWQDISC payload (tcmsg + attributes).
func ParseQdisc(b []byte) (q Qdisc, ok bool) {
	if len(b) < sizeofTcmsg {
		return q, false
	}
	q.Ifindex = int(int32(binary.NativeEndian.Uint32(b[4:])))
	q.Handle = binary.NativeEndian.Uint32(b[8:])
	q.Parent = binary.NativeEndian.Uint32(b[12:])
	var opts []byte
	Attrs(b[sizeofTcmsg:], func(t uint16, v []byte) {
		switch t {
		case tcaKind:
			q.Kind = string(trimNul(v))
		case tcaOptions:
			opts = v
		case tcaStats2:
			Attrs(v, func(t uint16, v []byte) {
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
	switch q.Kind {
	case "tbf":
		Attrs(opts, func(t uint16, v []byte) {
			switch {
			case t == tcaTbfParms && len(v) >= 12 && q.RateBps == 0:
				q.RateBps = uint64(binary.NativeEndian.Uint32(v[8:])) * 8
			case t == tcaTbfRate64 && len(v) >= 8:
				q.RateBps = binary.NativeEndian.Uint64(v) * 8
			}
		})
	case "pfifo", "bfifo":
		// fifo_dump puts struct tc_fifo_qopt { __u32 limit; } as the
		// bare TCA_OPTIONS payload.
		if len(opts) >= 4 {
			q.Limit = binary.NativeEndian.Uint32(opts)
		}
	}
	return q, true
}

// ParseHTBClassRate returns the rate in bits/s of an htb class message.
// A top-level class has no parent to borrow from, so its rate (not its
// ceil) is what it can send.
func ParseHTBClassRate(b []byte) (ifindex int, parent uint32, rate uint64, ok bool) {
	if len(b) < sizeofTcmsg {
		return 0, 0, 0, false
	}
	ifindex = int(int32(binary.NativeEndian.Uint32(b[4:])))
	parent = binary.NativeEndian.Uint32(b[12:])
	kind := ""
	Attrs(b[sizeofTcmsg:], func(t uint16, v []byte) {
		switch t {
		case tcaKind:
			kind = string(trimNul(v))
		case tcaOptions:
			Attrs(v, func(t uint16, v []byte) {
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

// Qdiscs returns every qdisc of every interface (root, children, ingress).
func (c *Conn) Qdiscs() ([]Qdisc, error) {
	var all []Qdisc
	err := c.Dump(unix.RTM_GETQDISC, unix.RTM_NEWQDISC, tcmsg(0), func(b []byte) {
		if q, ok := ParseQdisc(b); ok {
			all = append(all, q)
		}
	})
	return all, err
}

// RootQdiscs fills out with the root qdisc of every interface, by ifindex.
// An htb root gets the sum of its top-level classes' rates as its rate.
func (c *Conn) RootQdiscs(out map[int]Qdisc) error {
	clear(out)
	var htb []int
	err := c.Dump(unix.RTM_GETQDISC, unix.RTM_NEWQDISC, tcmsg(0), func(b []byte) {
		if qd, ok := ParseQdisc(b); ok && qd.Parent == Root {
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
		err = c.Dump(unix.RTM_GETTCLASS, unix.RTM_NEWTCLASS, tcmsg(idx), classRates(out))
	}
	return err
}

// classRates adds the rates of htb's top-level classes to their
// interface's root qdisc.
func classRates(out map[int]Qdisc) func(b []byte) {
	return func(b []byte) {
		idx, parent, rate, ok := ParseHTBClassRate(b)
		qd, have := out[idx]
		// htb reports a top-level class's parent as TC_H_ROOT.
		if ok && have && qd.Kind == "htb" && parent == Root {
			qd.RateBps += rate
			out[idx] = qd
		}
	}
}
