package hostfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree builds a root with files and symlinks (name → target).
func tree(t *testing.T, files map[string]string, links map[string]string) *Root {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestSymlinksResolveInsideRoot(t *testing.T) {
	// A secret outside the tree that hostile links try to reach.
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tree(t, map[string]string{
		"sys/devices/pci/net/eth0/mtu": "1500\n",
		"etc/passwd":                   "inside\n",
		"secret":                       "inside-secret\n",
	}, map[string]string{
		"sys/class/net/eth0": "../../devices/pci/net/eth0", // ordinary sysfs link
		"sys/abs":            "/etc/passwd",                // absolute: means DIR/etc/passwd
		"sys/climb":          "../../../../../../etc/passwd",
		"sys/out":            outside, // absolute path of a real file outside
		"loop/a":             "b",
		"loop/b":             "a",
	})
	cases := map[string]string{
		"/sys/class/net/eth0/mtu": "1500",
		"/sys/abs":                "inside",
		"/sys/climb":              "inside",
	}
	for name, want := range cases {
		got, err := r.ReadString(name)
		if err != nil || got != want {
			t.Errorf("ReadString(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if got, err := r.ReadString("/sys/out"); err == nil && got == "outside" {
		t.Errorf("a link read a file outside the root")
	}
	if _, err := r.ReadFile("/loop/a"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("loop: got %v, want a too-many-links error", err)
	}
	if p, err := r.RealPath("/sys/class/net/eth0"); err != nil || p != "/sys/devices/pci/net/eth0" {
		t.Errorf("RealPath = %q, %v", p, err)
	}
	if l, err := r.Readlink("/sys/class/net/eth0"); err != nil || l != "../../devices/pci/net/eth0" {
		t.Errorf("Readlink = %q, %v", l, err)
	}
}

func TestReadErrors(t *testing.T) {
	r := tree(t, map[string]string{"big": strings.Repeat("x", MaxFileSize+1), "dir/f": "1\n"}, nil)
	if _, err := r.ReadFile("/big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big file: %v, want ErrTooLarge", err)
	}
	if _, err := r.ReadFile("/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
	if _, err := r.ReadFile("/dir"); err == nil {
		t.Error("reading a directory must fail")
	}
	if _, err := r.ReadFile("relative"); err == nil {
		t.Error("a relative path must fail")
	}
	ents, err := r.ReadDir("/dir")
	if err != nil || len(ents) != 1 || ents[0].Name() != "f" {
		t.Errorf("ReadDir = %v, %v", ents, err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing root: %v, want an error naming the path", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as root: %v", err)
	}
	r, err := Open("/")
	if err != nil || !r.IsLive() {
		t.Errorf("Open(/) must be the live root: %v", err)
	}
}

func TestLiveRootReadsProc(t *testing.T) {
	s, err := Live().ReadString("/proc/self/stat")
	if err != nil || s == "" {
		t.Fatalf("live /proc/self/stat: %q %v", s, err)
	}
}
