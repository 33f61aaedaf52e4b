package cmdrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red team: tools were found through the caller's $PATH. As root with a
// $PATH kept by `sudo -E` (or holding ~/bin or "."), `nastune audit` ran
// an "ethtool" that user 65534 had planted. Now only SystemPath is
// searched, and only files nobody else can replace are run.
func TestPlantedToolInPATHIsNotRun(t *testing.T) {
	if _, err := LookPath("ethtool"); err != nil {
		t.Skip("ethtool not installed")
	}
	evil := t.TempDir()
	marker := filepath.Join(evil, "ran")
	script := "#!/bin/sh\ntouch " + marker + "\n"
	if err := os.WriteFile(filepath.Join(evil, "ethtool"), []byte(script), 0o777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", evil+":"+os.Getenv("PATH"))
	_, err := run(context.Background(), Limits{}, []string{"ethtool", "-i", "lo"}, nil)
	t.Logf("run: %v", err)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("ran the ethtool planted first in $PATH")
	}
}

func TestLookPathTrust(t *testing.T) {
	dir := t.TempDir() // owned by us, mode 0700 under /tmp (sticky, world-writable)
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// /tmp itself is world-writable: a file below it is never trusted.
	if _, err := lookPath("tool", []string{dir}); err == nil || !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "writable by everyone") {
		t.Errorf("tool below /tmp: %v", err)
	}
	if _, err := lookPath("sh", []string{dir, "/bin", "/usr/bin"}); err != nil {
		t.Errorf("sh in /bin: %v", err)
	}
	if _, err := lookPath("../bin/sh", []string{"/usr/bin"}); err == nil {
		t.Error("a path as tool name was accepted")
	}
	if _, err := lookPath("no-such-tool-nastune", SystemPath); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing tool: %v", err)
	}
}
