package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
)

// undo --list shows a tune as one entry: what it kept after its trials,
// or that it kept nothing; a trial still live (a killed tune) on its own;
// runs of no tune as before.
func TestUndoListOneEntryPerTune(t *testing.T) {
	trial := func(id, tune, state string) apply.Manifest {
		return apply.Manifest{ID: id, Tune: tune, State: state, Changes: []string{"sysctl net.ipv4.tcp_wmem: a → b"},
			Steps: []apply.Step{{Change: apply.TrialChange, Kind: "sysctl", Path: "/proc/sys/net/ipv4/tcp_wmem"}}}
	}
	persist := apply.Manifest{ID: "000004", Tune: "tune-A", State: apply.StateComplete, Changes: []string{"sysctl net.ipv4.tcp_wmem: a → b"},
		Steps: []apply.Step{{Change: "tune-1", Kind: "sysctl"}, {Change: "tune-1", Kind: "file"}}}
	runs := []apply.Manifest{
		{ID: "000001", State: apply.StateComplete, Changes: []string{"sysctl vm.swappiness: 60 → 10"}, Steps: []apply.Step{{Change: "c"}}},
		trial("000002", "tune-A", apply.StateUndone), trial("000003", "tune-A", apply.StateUndone), persist,
		trial("000005", "tune-B", apply.StateUndone), trial("000006", "tune-B", apply.StateUndone),
		trial("000007", "tune-C", apply.StateUndone), trial("000008", "tune-C", apply.StateComplete),
	}
	var b bytes.Buffer
	writeRunList(&b, runs)
	out := b.String()
	for _, want := range []string{
		"000001  complete         1 step(s)  sysctl vm.swappiness: 60 → 10\n",
		"000004  complete         2 step(s)  tune-A: kept sysctl net.ipv4.tcp_wmem: a → b (after 2 trial(s), each reverted)\n",
		"000006  tune             tune-B: 2 trial(s), each reverted; nothing kept\n",
		"000008  complete         1 step(s)  sysctl net.ipv4.tcp_wmem: a → b\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("%d lines, want 4 (one per tune, the live trial, the apply):\n%s", n, out)
	}
}
