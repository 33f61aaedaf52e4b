package probe

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/netlink"
	"github.com/nastune/nastune/internal/parse/tc"
)

// qdiscSourceLive names the live source in evidence.
const qdiscSourceLive = "netlink RTM_GETQDISC"

// qdiscs fills each interface's root qdisc: live from a netlink dump, in
// a captured tree from `tc qdisc show`. Trees without it have no qdisc
// facts (rules then fall back to net.core.default_qdisc).
func (p *prober) qdiscs() {
	type entry struct {
		kind   string
		handle uint32
		root   bool
		parent uint32
		limit  uint64
	}
	byDev := map[string][]entry{}
	src := qdiscSourceLive
	if p.root.IsLive() {
		c, err := netlink.Dial(unix.NETLINK_ROUTE)
		if err != nil {
			p.skip(src, WhyNotCollected(err))
			return
		}
		defer c.Close()
		all, err := c.Qdiscs()
		if err != nil {
			p.skip(src, WhyNotCollected(err))
			return
		}
		names := map[int]string{}
		for _, i := range p.h.Interfaces {
			names[i.IfIndex] = i.Name
		}
		var text strings.Builder
		for _, q := range all {
			if n, ok := names[q.Ifindex]; ok {
				byDev[n] = append(byDev[n], entry{q.Kind, q.Handle >> 16, q.Parent == netlink.Root, q.Parent >> 16, uint64(q.Limit)})
				if p.root.Recording() {
					text.WriteString(tcLine(n, q))
				}
			}
		}
		if p.root.Recording() {
			p.root.RecordCommand([]string{"tc", "qdisc", "show"}, []byte(text.String()))
		}
	} else {
		b, s, ok := p.captured("tc", "qdisc", "show")
		if !ok {
			return
		}
		src = s
		all, err := tc.Parse(b)
		if err != nil {
			p.skip(src, err.Error()+" (other lines used)")
		}
		for _, q := range all {
			byDev[q.Dev] = append(byDev[q.Dev], entry{q.Kind, q.Handle, q.Root, q.ParentMajor, q.Limit})
		}
	}
	for i := range p.h.Interfaces {
		ifc := &p.h.Interfaces[i]
		var root *entry
		for j, e := range byDev[ifc.Name] {
			if e.root {
				root = &byDev[ifc.Name][j]
			}
		}
		if root == nil {
			continue
		}
		q := &facts.Qdisc{Kind: root.kind, Source: src}
		if root.kind == "pfifo" || root.kind == "bfifo" {
			q.Limit = root.limit
		}
		seen := map[string]bool{}
		for _, e := range byDev[ifc.Name] {
			// Children of the root carry its major number as their
			// parent's; ingress and clsact (ffff:) are not below it.
			if !e.root && e.parent == root.handle && e.kind != "ingress" && e.kind != "clsact" && !seen[e.kind] {
				seen[e.kind] = true
				q.Leaves = append(q.Leaves, e.kind)
			}
		}
		sort.Strings(q.Leaves)
		ifc.Qdisc = q
	}
}

// tcLine writes q as `tc qdisc show` prints it, so a snapshot of a live
// system replays through the captured-tree parser.
func tcLine(dev string, q netlink.Qdisc) string {
	where := "root"
	if q.Parent != netlink.Root {
		where = fmt.Sprintf("parent %x:%x", q.Parent>>16, q.Parent&0xffff)
	}
	s := fmt.Sprintf("qdisc %s %x: dev %s %s", q.Kind, q.Handle>>16, dev, where)
	switch {
	case q.Kind == "pfifo" && q.Limit > 0:
		s += fmt.Sprintf(" limit %dp", q.Limit)
	case q.Kind == "bfifo" && q.Limit > 0:
		s += fmt.Sprintf(" limit %db", q.Limit)
	}
	return s + "\n"
}
