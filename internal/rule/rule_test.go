package rule

import (
	"encoding/json"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{Info, Warn, Crit} {
		b, _ := json.Marshal(s)
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%v round-trips as %s → %v, %v", s, b, back, err)
		}
	}
	if _, err := ParseSeverity("loud"); err == nil {
		t.Error("unknown severity must fail")
	}
	if v, _ := ParseSeverity("CRITICAL"); v != Crit {
		t.Error("ParseSeverity is case-insensitive and takes long names")
	}
}

func TestKernelAtLeast(t *testing.T) {
	k := facts.Kernel{Major: 2, Minor: 6, Patch: 31}
	if !k.AtLeast(2, 6) || k.AtLeast(3, 0) || k.AtLeastPatch(2, 6, 32) || !k.AtLeastPatch(2, 4, 99) {
		t.Error("2.6.31 comparisons")
	}
	if !(facts.Kernel{}).AtLeast(6, 6) {
		t.Error("an unknown kernel is treated as current")
	}
}
