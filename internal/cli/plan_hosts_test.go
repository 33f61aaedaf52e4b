package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// TestPlanOnEveryFixtureHost: `plan --root` (text and -o diff) works on
// every captured host. A capture holds only what audit read, so a runtime
// attribute the plan changes may be missing from it (a bond's
// xmit_hash_policy, zfs_arc_max): the preview shows it as absent instead
// of failing the whole plan.
func TestPlanOnEveryFixtureHost(t *testing.T) {
	hosts, err := filepath.Glob(filepath.Join(fixture.HostsDir(), "*.txtar"))
	if err != nil || len(hosts) == 0 {
		t.Fatalf("no fixture hosts: %v", err)
	}
	absentSeen := false
	for _, h := range hosts {
		name := strings.TrimSuffix(filepath.Base(h), ".txtar")
		dir := t.TempDir()
		if err := fixture.UnpackFile(h, dir); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{"text", "diff"} {
			var o, e bytes.Buffer
			code := Main(context.Background(), []string{"plan", "--root", dir, "-o", out},
				Env{Stdout: &o, Stderr: &e, Getenv: os.Getenv})
			if code != 0 {
				t.Errorf("%s: plan -o %s exit %d: %s", name, out, code, e.String())
			}
			absentSeen = absentSeen || strings.Contains(o.String(), "(absent)")
		}
	}
	if !absentSeen {
		t.Error("no fixture host plans a runtime value its capture lacks: the test no longer covers the case")
	}
}
