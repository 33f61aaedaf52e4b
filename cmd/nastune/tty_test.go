package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// On a real terminal (script(1) gives one), `plan -o diff` with stdin not
// a terminal wrote its patch raw: the filter was skipped whenever stdin
// was redirected, so a --root path holding ESC ]0;… retitled the
// terminal. The patch is raw only when stdout is not a terminal.
func TestPlanDiffOnTerminalFiltered(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("script(1) (util-linux) is missing")
		}
		t.Skip("script(1) (util-linux) is missing")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "nastune")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "ev\x1b]0;PWNED\a")
	if err := fixture.UnpackFile(filepath.Join(fixture.HostsDir(), "kirkwood-nas.txtar"), root); err != nil {
		t.Fatal(err)
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	out, err := exec.Command(scriptBin, "-qec", quote(bin)+" plan --root "+quote(root)+" -o diff </dev/null", "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "+++ b/etc/sysctl.d/90-nastune.conf") {
		t.Fatalf("no patch on the terminal:\n%s", out)
	}
	if strings.Contains(string(out), "\x1b]0;PWNED") {
		t.Errorf("the patch reached the terminal raw:\n%q", out[:min(len(out), 300)])
	}
	if !strings.Contains(string(out), `\x1b]0;PWNED`) {
		t.Errorf("the root path is not shown escaped:\n%q", out[:min(len(out), 300)])
	}
}
