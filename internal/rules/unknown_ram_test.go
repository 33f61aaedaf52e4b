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

// Without /proc/meminfo the RAM size is unknown: no finding may state or
// compute from "0 B" of RAM (every fixture host, meminfo removed).
func TestMissingMeminfoIsUnknown(t *testing.T) {
	for _, name := range fixture.HostNames(t) {
		t.Run(name, func(t *testing.T) {
			dir := fixture.HostDir(t, name)
			if err := os.Remove(filepath.Join(dir, "proc", "meminfo")); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			h := probeDir(t, dir)
			if h.Memory.TotalBytes != 0 {
				t.Fatalf("RAM %d without meminfo", h.Memory.TotalBytes)
			}
			for _, f := range rules.Run(rule.Input{Host: h}) {
				s := text(f)
				if r := f.Recommendation; r != nil {
					s += " " + r.Basis
				}
				if strings.Contains(s, " 0 B") || strings.Contains(s, "0 B of RAM") || strings.Contains(s, "/proc/meminfo") {
					t.Errorf("%s %s uses an unknown RAM size: %s", f.ID, f.Subject, s)
				}
			}
		})
	}
}
