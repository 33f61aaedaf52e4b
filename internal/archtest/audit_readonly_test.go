package archtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/cli"
	"github.com/nastune/nastune/internal/fixture"
)

// treeDigest hashes every path, mode, modification time, link target and
// file content under dir.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00" + info.ModTime().String() + "\x00"))
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			h.Write([]byte(l))
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestAuditLeavesTreeUnchanged audits a read-only copy of every fixture
// through the real CLI and proves the tree is bit-for-bit as before.
func TestAuditLeavesTreeUnchanged(t *testing.T) {
	for _, name := range fixture.HostNames(t) {
		dir := fixture.HostDir(t, name)
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink == 0 {
				os.Chmod(p, 0o555&^0o111|map[bool]fs.FileMode{true: 0o111}[d.IsDir()])
			}
			return nil
		})
		t.Cleanup(func() { // let t.TempDir remove it
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					os.Chmod(p, 0o755)
				}
				return nil
			})
		})
		before := treeDigest(t, dir)
		for _, args := range [][]string{{"audit", "--root", dir}, {"audit", "--root", dir, "-o", "json", "-v"}, {"--root", dir}} {
			var out, errb bytes.Buffer
			code := cli.Main(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
			if code != 0 || out.Len() == 0 {
				t.Fatalf("%s %v: exit %d, stderr %s", name, args, code, errb.String())
			}
		}
		if after := treeDigest(t, dir); after != before {
			t.Errorf("%s: audit changed the tree", name)
		}
	}
}

// TestTreeDigestSeesChanges proves TestAuditLeavesTreeUnchanged could
// fail: each kind of change an audit might make moves the digest.
func TestTreeDigestSeesChanges(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "proc", "meminfo")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("MemTotal: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{treeDigest(t, dir): "the tree as written"}
	for what, change := range map[string]func() error{
		"new content": func() error { return os.WriteFile(f, []byte("MemTotal: 2 kB\n"), 0o644) },
		"new mode":    func() error { return os.Chmod(f, 0o600) },
		"new file":    func() error { return os.WriteFile(filepath.Join(dir, "x"), nil, 0o644) },
		"new symlink": func() error { return os.Symlink("proc/meminfo", filepath.Join(dir, "l")) },
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		d := treeDigest(t, dir)
		if prev, ok := seen[d]; ok {
			t.Errorf("%s: digest unchanged since %s", what, prev)
		}
		seen[d] = what
	}
}
