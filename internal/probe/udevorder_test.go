package probe

import (
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// Only the rules files udev reads after 90-nastune.rules are read, a name
// in /etc masking the same name in /usr/lib.
func TestUdevLater(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"etc/udev/rules.d/60-sched.rules":       `ATTR{queue/scheduler}="bfq"` + "\n",
		"etc/udev/rules.d/99-local.rules":       `KERNEL=="sd*", ATTR{queue/read_ahead_kb}="16384"` + "\n",
		"usr/lib/udev/rules.d/99-local.rules":   `ATTR{queue/read_ahead_kb}="1"` + "\n",
		"usr/lib/udev/rules.d/95-vendor.rules":  `SUBSYSTEM=="net", ATTR{tx_queue_len}="5000"` + "\n",
		"etc/udev/rules.d/90-nastune.rules":     `ATTR{queue/scheduler}="deadline"` + "\n",
		"etc/udev/rules.d/90-nastune-erc.rules": `RUN+="/usr/sbin/smartctl"` + "\n",
		"proc/sys/kernel/osrelease":             "6.1.0\n",
	}
	fixture.WriteTree(t, dir, files)
	h := collect(t, dir)
	got := map[string]string{}
	for _, a := range h.UdevLater {
		got[a.File+" "+a.Attr] = a.Value
	}
	want := map[string]string{
		"/usr/lib/udev/rules.d/95-vendor.rules tx_queue_len":   "5000",
		"/etc/udev/rules.d/99-local.rules queue/read_ahead_kb": "16384",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
