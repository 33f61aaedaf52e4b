package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// With transparent huge pages on, khugepaged sets min_free_kbytes at boot
// above sqrt(lowmem × 16): the finding must not pin that formula (it would
// hold the reserve ~10× below the kernel's value on a 1 GiB x86 box). With
// THP off or absent the formula is the boot value and is pinned.
func TestMinFreeWithTHP(t *testing.T) {
	for _, c := range []struct {
		mode string // "" = no THP file
		kind string
	}{
		{"always [madvise] never", rule.KindAdvice},
		{"[always] madvise never", rule.KindAdvice},
		{"always madvise [never]", rule.KindSysctl},
		{"", rule.KindSysctl},
	} {
		dir := fixture.HostDir(t, "kirkwood-nas") // vm.min_free_kbytes = 16384 of 122 MiB
		if c.mode != "" {
			p := filepath.Join(dir, "sys/kernel/mm/transparent_hugepage")
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "enabled"), []byte(c.mode+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h := probeDir(t, dir)
		var got *rule.Finding
		for _, f := range rules.Run(rule.Input{Host: h}) {
			if f.ID == "mem-min-free-kbytes-high" {
				got = &f
			}
		}
		if got == nil || got.Recommendation == nil {
			t.Fatalf("THP %q: no mem-min-free-kbytes-high finding with a recommendation", c.mode)
		}
		if got.Recommendation.Kind != c.kind {
			t.Errorf("THP %q: recommendation %s %q, want kind %s", c.mode, got.Recommendation.Kind, got.Recommendation.Value, c.kind)
		}
		if c.kind == rule.KindAdvice && !strings.Contains(got.Why, "khugepaged") {
			t.Errorf("THP %q: why does not say khugepaged sets the boot value: %s", c.mode, got.Why)
		}
	}
}
