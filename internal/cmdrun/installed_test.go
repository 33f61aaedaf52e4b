package cmdrun

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInstalledIgnoresPATH: Installed answers what Run would find, so a
// tool only on the caller's $PATH (a planted or private copy) counts as
// not installed, like Run treats it.
func TestInstalledIgnoresPATH(t *testing.T) {
	dir := t.TempDir()
	name := "nastune-test-tool-only-on-path"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if Installed(name) {
		t.Errorf("%s on $PATH only counted as installed", name)
	}
	if !Installed("sh") {
		t.Error("sh in the system folders not found")
	}
}
