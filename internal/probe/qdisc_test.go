package probe

import (
	"testing"

	"github.com/nastune/nastune/internal/netlink"
	"github.com/nastune/nastune/internal/parse/tc"
)

// A live dump saved for a snapshot reads back through the captured-tree
// parser as the same qdiscs.
func TestTCLineRoundTrip(t *testing.T) {
	in := []netlink.Qdisc{
		{Kind: "mq", Handle: 0x80010000, Parent: netlink.Root},
		{Kind: "fq_codel", Parent: 0x80010003},
		{Kind: "pfifo", Handle: 0x10000, Parent: netlink.Root, Limit: 5000},
	}
	var text string
	for _, q := range in {
		text += tcLine("eth0", q)
	}
	got, err := tc.Parse([]byte(text))
	if err != nil || len(got) != 3 {
		t.Fatalf("%q: %v, %v", text, got, err)
	}
	if !got[0].Root || got[0].Handle != 0x8001 || got[1].ParentMajor != 0x8001 || got[1].Root || got[2].Limit != 5000 || got[2].Kind != "pfifo" {
		t.Errorf("%q read back as %+v", text, got)
	}
}
