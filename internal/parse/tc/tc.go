// Package tc parses what `tc qdisc show` prints, for captured machine
// trees where netlink cannot be asked (live systems are read through an
// RTM_GETQDISC dump in internal/netlink; both fill the same facts).
//
// One line per qdisc:
//
//	qdisc mq 0: dev eth0 root
//	qdisc fq_codel 0: dev eth0 parent :1 limit 10240p flows 1024 …
//	qdisc pfifo 8001: dev eth1 root refcnt 2 limit 1000p
//
// Statistics lines (`tc -s`) and anything that does not start with
// "qdisc" are skipped. The parser is pure and never fails on text: a
// "qdisc" line without a kind, device or position is an error naming the
// line (a *perr.Error, wrapping perr.ErrSyntax), and the other lines are
// still returned.
package tc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/parse/perr"
)

// Qdisc is one line of `tc qdisc show`.
type Qdisc struct {
	Kind string
	Dev  string
	// Handle is the major number of the qdisc's own handle ("8001:" → 0x8001).
	Handle uint32
	// Root is true for the root qdisc; otherwise ParentMajor names the
	// qdisc (or class) it hangs from (":1" → 0, "8001:1" → 0x8001).
	Root        bool
	ParentMajor uint32
	// Limit is the "limit" value when the kind prints one (pfifo "1000p",
	// bfifo "150000b", fq_codel "10240p"); LimitUnit is "p" or "b".
	Limit     uint64
	LimitUnit string
}

// Parse returns the qdiscs of a `tc qdisc show` listing.
func Parse(data []byte) ([]Qdisc, error) {
	var out []Qdisc
	var errs []error
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "qdisc" {
			continue
		}
		q, err := parseLine(f)
		if err != nil {
			errs = append(errs, perr.Line(n+1, "%s", err))
			continue
		}
		out = append(out, q)
	}
	return out, errors.Join(errs...)
}

func parseLine(f []string) (Qdisc, error) {
	if len(f) < 3 {
		return Qdisc{}, errors.New("want: qdisc KIND HANDLE: …")
	}
	q := Qdisc{Kind: f[1]}
	h, ok := major(f[2])
	if !ok {
		return q, fmt.Errorf("handle %q is not MAJOR:", f[2])
	}
	q.Handle = h
	where := false
	for i := 3; i < len(f); i++ {
		switch f[i] {
		case "dev":
			if i+1 < len(f) {
				q.Dev = f[i+1]
				i++
			}
		case "root":
			q.Root, where = true, true
		case "parent":
			if i+1 < len(f) {
				if m, ok := major(f[i+1]); ok {
					q.ParentMajor, where = m, true
				}
				i++
			}
		case "limit":
			if i+1 < len(f) {
				v := f[i+1]
				unit := ""
				if strings.HasSuffix(v, "p") || strings.HasSuffix(v, "b") {
					unit, v = v[len(v)-1:], v[:len(v)-1]
				}
				if n, err := strconv.ParseUint(v, 10, 64); err == nil {
					q.Limit, q.LimitUnit = n, unit
				}
				i++
			}
		}
	}
	if q.Dev == "" || !where {
		return q, errors.New("no `dev NAME` with `root` or `parent`")
	}
	return q, nil
}

// major reads the major number of a "MAJOR:MINOR" handle; an empty major
// (":1") is 0.
func major(s string) (uint32, bool) {
	m, _, ok := strings.Cut(s, ":")
	if !ok {
		return 0, false
	}
	if m == "" {
		return 0, true
	}
	v, err := strconv.ParseUint(m, 16, 32)
	return uint32(v), err == nil
}
