package tc

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
)

func TestParse(t *testing.T) {
	in := `qdisc noqueue 0: dev lo root refcnt 2
qdisc mq 8001: dev eth0 root
qdisc fq_codel 0: dev eth0 parent 8001:8 limit 10240p flows 1024 quantum 9014 ...
 Sent 787136348 bytes 1146663 pkt (dropped 0, overlimits 0 requeues 8004)
qdisc pfifo 8002: dev eth1 root refcnt 2 limit 1000p
qdisc bfifo 1: dev eth2 root refcnt 2 limit 150000b
qdisc ingress ffff: dev eth0 parent ffff:fff1 ----------------
`
	got, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Qdisc{
		{Kind: "noqueue", Dev: "lo", Root: true},
		{Kind: "mq", Dev: "eth0", Handle: 0x8001, Root: true},
		{Kind: "fq_codel", Dev: "eth0", ParentMajor: 0x8001, Limit: 10240, LimitUnit: "p"},
		{Kind: "pfifo", Dev: "eth1", Handle: 0x8002, Root: true, Limit: 1000, LimitUnit: "p"},
		{Kind: "bfifo", Dev: "eth2", Handle: 1, Root: true, Limit: 150000, LimitUnit: "b"},
		{Kind: "ingress", Dev: "eth0", Handle: 0xffff, ParentMajor: 0xffff},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"qdisc", "qdisc fq 0", "qdisc fq 0: root", "qdisc fq zz: dev eth0 root"} {
		got, err := Parse([]byte("qdisc noqueue 0: dev lo root\n" + in + "\n"))
		if !errors.Is(err, perr.ErrSyntax) || len(got) != 1 {
			t.Errorf("%q: got %v, %v; want the good line and a syntax error", in, got, err)
		}
		if err != nil && err.Error()[:6] != "line 2" {
			t.Errorf("%q: error %q does not name line 2", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("qdisc mq 0: dev eth0 root\nqdisc fq 0: dev eth0 parent :1 limit 10000p\n"))
	f.Fuzz(func(t *testing.T, b []byte) { Parse(b) })
}
