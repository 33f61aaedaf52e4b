package rules

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/rule"
)

// A drive whose SCT capability word lacks the ERC bit (smartctl 5.38 text
// from an Ubuntu forums post, "SCT capabilities: (0x0001) SCT Status
// supported.") cannot be given 7 s with smartctl -l scterc: as an md
// member it gets the unsupported finding and the kernel timeout advice,
// never a scterc step.
func TestERCUnsupportedByCapabilities(t *testing.T) {
	h, s := corpusHost(t, smartCorpus+"/ubuntuforums-ST9250827AS-5.38-no-erc.txt")
	if s.ERC == nil || s.ERC.Supported {
		t.Fatalf("ERC = %+v, want unsupported from the capability word", s.ERC)
	}
	rot := true
	h.Block[0].Rotational = &rot
	fs := checkERC(rule.Input{Host: h})
	if len(fs) != 1 {
		t.Fatalf("%d findings, want one for the md member", len(fs))
	}
	f := fs[0]
	if !strings.Contains(f.Why, "does not support SCT ERC") || f.Recommendation == nil ||
		f.Recommendation.Kind == rule.KindERC || !strings.HasSuffix(f.Recommendation.Target, "/device/timeout") {
		t.Errorf("got %q → %+v; want unsupported and the 180 s timeout", f.Why, f.Recommendation)
	}
}
