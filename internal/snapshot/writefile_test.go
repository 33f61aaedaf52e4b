package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// WriteFile puts a loadable snapshot at path, leaves no temporary file, and
// refuses a path that is a planted symlink without writing through it.
func TestWriteFileSafe(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "snap.tar.gz")
	n, _, err := WriteFile(out, nil, &facts.Host{Hostname: "nas"}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Size() != n || st.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot %s: %v %v, want %d bytes, mode 0600", out, st, err, n)
	}
	l, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}

	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "planted.tar.gz")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WriteFile(link, nil, &facts.Host{Hostname: "nas"}, Meta{}); err == nil {
		t.Error("a symlink target was accepted")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("victim changed: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("left behind: %v", ents)
	}
}
