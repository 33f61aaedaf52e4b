package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// Red team: a --root tree (or snapshot) whose hostname holds terminal
// control sequences reached the terminal raw through `nastune audit`
// (retitle the window, clear the screen). Every text output is filtered.
func TestHostDataCannotDriveTheTerminal(t *testing.T) {
	dir := fixture.HostDir(t, "kirkwood-nas")
	evil := "evil\x1b]0;PWNED\a\x1b[2J\r\x1b[8m\n"
	for _, f := range []string{"etc/hostname", "proc/sys/kernel/hostname"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(evil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"audit", "--root", dir}, {"audit", "--root", dir, "--color", "always"}, {"inventory", "net", "--root", dir}} {
		out, _, _ := run(t, args...)
		if args[0] == "audit" && !strings.Contains(out, "evil") {
			t.Errorf("%v: the hostname is not shown at all:\n%s", args, out)
		}
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\a", "\r", "\x1b[8m"} {
			if strings.Contains(out, bad) {
				t.Errorf("%v: output holds %q raw", args, bad)
			}
		}
	}
}
