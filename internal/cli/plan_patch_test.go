package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// Red team (issue 16, `plan -o diff | patch -p1`): on a host whose plan
// writes no file (kirkwood-jessie: runtime values only, or nothing), the
// output was the comment header alone and patch(1) failed with "Only
// garbage was found in the patch input" (exit 2). Like diff(1), nothing
// on stdout then; where files change, patch applies and the next plan has
// no file left to change.
func TestPlanDiffPipesIntoPatch(t *testing.T) {
	patchBin, err := exec.LookPath("patch")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("patch(1) missing: scripts/ensure-deps.sh installs patch")
		}
		t.Skip("patch(1) not installed")
	}
	for _, host := range []string{"kirkwood-jessie", "kirkwood-nas"} {
		dir := fixture.HostDir(t, host)
		out, errOut, code := run(t, "plan", "--root", dir, "-o", "diff")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", host, code, errOut)
		}
		cmd := exec.Command(patchBin, "-p1", "-s", "-d", dir)
		cmd.Stdin = strings.NewReader(out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: plan -o diff | patch -p1: %v: %s\n%s", host, err, b, out)
			continue
		}
		again, _, _ := run(t, "plan", "--root", dir, "-o", "diff")
		if strings.Contains(again, "\n+++ ") || strings.HasPrefix(again, "--- ") {
			t.Errorf("%s: after patch the plan still changes files:\n%s", host, again)
		}
	}
}
