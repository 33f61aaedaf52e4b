package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The package's pages carry the release date (SOURCE_DATE_EPOCH, as
// Debian's reproducible builds set it), one page per command, gzipped; the
// completions are written for the three shells.
func TestRun(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1795305600") // 2026-11-22 00:00 UTC
	out := t.TempDir()
	if err := run(out, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"nastune.1.gz", "nastune-audit.1.gz", "nastune-calc-raid.1.gz", "nastune-bench-disk.1.gz"} {
		f, err := os.Open(filepath.Join(out, "man", name))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		f.Close()
		if !strings.Contains(string(b), `"2026-11-22" "nastune v1.2.3"`) {
			t.Errorf("%s: no release date in %.80q", name, b)
		}
		if !zr.Header.ModTime.IsZero() || zr.Header.Name != "" {
			t.Errorf("%s: gzip header has a name or time (not reproducible)", name)
		}
	}
	for _, name := range []string{"nastune.bash", "_nastune", "nastune.fish"} {
		if st, err := os.Stat(filepath.Join(out, "completions", name)); err != nil || st.Size() == 0 {
			t.Errorf("completion %s: %v", name, err)
		}
	}
}
