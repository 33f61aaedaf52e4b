package rules

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// TestARCSmallBoxCurrentIsTheParameter: on a module left at its default,
// /sys/module/zfs/parameters/zfs_arc_max reads 0 and arcstats c_max holds
// the effective limit. The recommendation's "now" is the file's 0 (cited),
// not c_max; without the file read, c_max stays the best statement.
func TestARCSmallBoxCurrentIsTheParameter(t *testing.T) {
	zero := uint64(0)
	for _, tt := range []struct {
		param   *uint64
		current string
		cites   bool
	}{
		{&zero, "0", true},
		{nil, "8367976448", false},
	} {
		h := &facts.Host{Memory: facts.Memory{TotalBytes: 3742148 << 10},
			ZFS: &facts.ZFS{ARCMax: 8367976448, ARCMaxParam: tt.param}}
		fs := checkARCSmallBox(rule.Input{Host: h})
		if len(fs) != 1 {
			t.Fatalf("param %v: %d findings, want 1", tt.param, len(fs))
		}
		r := fs[0].Recommendation
		if r.Current != tt.current || r.Value != "1915748352" {
			t.Errorf("param %v: current %q value %q, want %q and 1915748352", tt.param, r.Current, r.Value, tt.current)
		}
		cited := false
		for _, e := range fs[0].Evidence {
			if strings.Contains(e.Source, "parameters/zfs_arc_max") {
				cited = true
			}
		}
		if cited != tt.cites {
			t.Errorf("param %v: evidence cites the parameter file: %v, want %v", tt.param, cited, tt.cites)
		}
	}
}
