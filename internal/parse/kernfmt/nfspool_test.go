package kernfmt

import (
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

func TestNFSPoolStats(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []facts.NFSPool
		err      bool
	}{
		// Debian 6.1.0-56-amd64 under test/kernellab, nfsd with 1 thread
		{"linux-6.1", "# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n0 2 2 0 0\n",
			[]facts.NFSPool{{Pool: 0, PacketsArrived: 2, SocketsEnqueued: 2}}, false},
		// 2.6.28-era layout with overloads-avoided, two pools
		{"linux-2.6", "# pool packets-arrived sockets-enqueued threads-woken overloads-avoided threads-timedout\n0 10 3 7 0 1\n1 5 0 5 0 0\n",
			[]facts.NFSPool{{Pool: 0, PacketsArrived: 10, SocketsEnqueued: 3, ThreadsWoken: 7, ThreadsTimedout: 1}, {Pool: 1, PacketsArrived: 5, ThreadsWoken: 5}}, false},
		{"no header", "0 2 2 0 0\n", nil, true},
		{"short line", "# pool packets-arrived\n0\n", nil, true},
		{"garbled", "# pool packets-arrived\n0 x\n", nil, true},
		{"empty", "", nil, false},
	} {
		got, err := NFSPoolStats([]byte(tc.in))
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v", tc.name, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: pool %d: %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}
