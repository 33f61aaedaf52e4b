package kernellab

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A cache directory in a shared parent is used only when it is this user's
// own: a directory or symlink planted there first is refused.
func TestSharedCacheDir(t *testing.T) {
	parent := t.TempDir()
	d, err := sharedCacheDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(d)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache %s: %v %v, want a 0700 directory", d, fi, err)
	}
	if d2, err := sharedCacheDir(parent); err != nil || d2 != d {
		t.Fatalf("second call: %q %v, want %q", d2, err, d)
	}
	name := fmt.Sprintf("nastune-kernellab-%d", os.Getuid())

	writable := t.TempDir()
	if err := os.Mkdir(filepath.Join(writable, name), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(writable, name), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := sharedCacheDir(writable); err == nil {
		t.Fatal("a world-writable planted directory was accepted")
	}

	link := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(link, name)); err != nil {
		t.Fatal(err)
	}
	if _, err := sharedCacheDir(link); err == nil {
		t.Fatal("a planted symlink was accepted")
	}

	if os.Getuid() == 0 {
		other := t.TempDir()
		if err := os.Mkdir(filepath.Join(other, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(other, name), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := sharedCacheDir(other); err == nil {
			t.Fatal("a directory owned by another user was accepted")
		}
	}
}
