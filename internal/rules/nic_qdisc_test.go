package rules_test

import (
	"strings"
	"testing"
)

// The queue length matters only where packets wait in it. The real tree is
// Holger Hoffstätte's `tc qd show` on netdev (2019-09-08): eth0 under mq with
// fq_codel on every transmit queue, lo with noqueue; both had tx_queue_len
// raised to 10000. The variants swap the qdisc lines for the kernel's other
// defaults (pfifo_fast under mq, as on a kernel without
// net.core.default_qdisc) and for a tree without a tc capture.
func TestTxQueueLenJudgedByQdisc(t *testing.T) {
	const tcFile = ".nastune/commands/tc_qdisc_show.txt"
	pfifoFast := func(f map[string]string) {
		f[tcFile] = strings.ReplaceAll(f[tcFile], "fq_codel 0: dev eth0 parent 8001:", "pfifo_fast 0: dev eth0 parent 8001:")
		f["proc/sys/net/core/default_qdisc"] = "pfifo_fast\n"
	}
	for _, tc := range []struct {
		name   string
		edit   func(map[string]string)
		fires  []string // subjects
		phrase string
	}{
		{"mq of fq_codel, lo noqueue", func(map[string]string) {}, nil, ""},
		{"mq of pfifo_fast", pfifoFast, []string{"eth0"}, "in its mq of pfifo_fast qdisc"},
		{"root pfifo_fast", func(f map[string]string) {
			f[tcFile] = "qdisc noqueue 0: dev lo root refcnt 2\nqdisc pfifo_fast 0: dev eth0 root refcnt 2 bands 3 priomap  1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n"
		}, []string{"eth0"}, "in its pfifo_fast qdisc"},
		{"root pfifo (limit copied at creation)", func(f map[string]string) {
			f[tcFile] = "qdisc pfifo 8002: dev eth0 root refcnt 2 limit 1000p\n"
		}, nil, ""},
		{"root pfifo created with a 10000-packet limit", func(f map[string]string) {
			f[tcFile] = "qdisc pfifo 8002: dev eth0 root refcnt 2 limit 10000p\n"
		}, []string{"eth0"}, "root pfifo qdisc queues up to 10000 packets"},
		{"not captured, default fq_codel", func(f map[string]string) { delete(f, tcFile) }, nil, ""},
		{"not captured, default pfifo_fast", func(f map[string]string) {
			delete(f, tcFile)
			f["proc/sys/net/core/default_qdisc"] = "pfifo_fast\n"
		}, []string{"eth0"}, "in the default pfifo_fast qdisc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := realTreeFiles(t, "nic-netdev-mq-fq-codel-txqueuelen")
			tc.edit(files)
			h, fs := runTree(t, files)
			var got []string
			for _, f := range byID(fs, "nic-txqueuelen-high") {
				got = append(got, f.Subject)
				if !strings.Contains(f.Why, tc.phrase) {
					t.Errorf("why %q does not say %q", f.Why, tc.phrase)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.fires, ",") {
				t.Errorf("fires on %v, want %v (interfaces %+v)", got, tc.fires, h.Interfaces)
			}
		})
	}
}
