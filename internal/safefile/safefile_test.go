package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown to another user")
	}
}

// The issue-15 attack: another user plants P.tmp (or P itself) as a
// symlink to a file root must not overwrite.
func TestWriteFileRefusesPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	p := filepath.Join(dir, "result.json")
	os.Symlink(victim, p+".tmp") // the old fixed temp name
	if err := WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("wrote through a planted temp link")
	}
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Fatalf("content %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	// The target itself a symlink: refused, victim untouched, no temp left.
	os.Remove(p)
	os.Symlink(victim, p)
	if err := WriteFile(p, []byte("x"), 0o644); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("symlink target: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("wrote through a symlinked target")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("leftovers: %v", ents)
	}
	// A directory as target.
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	if err := WriteFile(filepath.Join(dir, "d"), []byte("x"), 0o644); err == nil {
		t.Error("a directory target must be refused")
	}
}

func TestOpenDirLinkRules(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	// Our own symlink to a directory: followed.
	os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "mine"))
	d, err := OpenDir(filepath.Join(dir, "mine"))
	if err != nil {
		t.Fatalf("own link: %v", err)
	}
	d.Close()
	// A symlink owned by another user: refused.
	evil := filepath.Join(dir, "evil")
	os.Symlink("/etc", evil)
	os.Lchown(evil, 12345, 12345)
	if _, err := OpenDir(evil); !errors.Is(err, ErrUnsafe) {
		t.Errorf("foreign link: %v", err)
	}
	if err := WriteFile(filepath.Join(evil, "nastune-should-not-exist"), []byte("x"), 0o644); !errors.Is(err, ErrUnsafe) {
		t.Errorf("WriteFile through a foreign link: %v", err)
	}
	// A directory owned by another user (a share owned by its media user):
	// accepted, and a name its owner planted is still never written through.
	foreign := filepath.Join(dir, "foreign")
	os.Mkdir(foreign, 0o755)
	os.Chown(foreign, 12345, 12345)
	fd, err := OpenDir(foreign)
	if err != nil {
		t.Fatalf("foreign-owned dir: %v", err)
	}
	fd.Close()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	planted := filepath.Join(foreign, "result.json")
	os.Symlink(victim, planted)
	os.Lchown(planted, 12345, 12345)
	if err := WriteFile(planted, []byte("x"), 0o644); err == nil {
		t.Errorf("WriteFile replaced a symlink planted in a foreign-owned dir")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("victim overwritten through a planted link: %q", b)
	}
	// World-writable without sticky: refused; /tmp-like with sticky: fine.
	ww := filepath.Join(dir, "ww")
	os.Mkdir(ww, 0o777)
	os.Chmod(ww, 0o777)
	if _, err := OpenDir(ww); !errors.Is(err, ErrUnsafe) {
		t.Errorf("world-writable dir: %v", err)
	}
	os.Chmod(ww, os.ModeSticky|0o777)
	if d, err := OpenDir(ww); err != nil {
		t.Errorf("sticky dir: %v", err)
	} else {
		d.Close()
	}
	// A file as a path component.
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o600)
	if _, err := OpenDir(filepath.Join(dir, "f")); err == nil {
		t.Error("a file is not a directory")
	}
}

// The Dir keeps working on the directory it opened when the path is
// swapped for a symlink afterwards.
func TestDirSurvivesSwap(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.Mkdir(a, 0o755)
	d, err := OpenDir(a)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	os.Rename(a, filepath.Join(dir, "a.moved"))
	os.Symlink("/etc", a)
	f, err := d.Create("x", 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, "a.moved", "x")); err != nil {
		t.Error("the file must land in the directory opened, not the swapped link")
	}
}

func TestOpenRefusesFIFOAndLinks(t *testing.T) {
	dir := t.TempDir()
	unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan error, 1)
	go func() { _, err := d.Open("fifo", unix.O_RDONLY); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO hung")
	}
	if _, err := d.Open("link", unix.O_RDONLY); !errors.Is(err, ErrUnsafe) {
		t.Errorf("link: %v", err)
	}
	if _, err := d.Create("link", 0o600); !errors.Is(err, unix.EEXIST) {
		t.Errorf("create over a link: %v", err)
	}
	// Remove refuses when the name no longer is our file.
	f, name, err := d.CreateTemp("t-", 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Rename(filepath.Join(dir, name), filepath.Join(dir, "ours.moved"))
	os.WriteFile(filepath.Join(dir, name), []byte("theirs"), 0o600)
	if err := d.Remove(name, f); err == nil {
		t.Error("removed a file that was not ours")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "theirs" {
		t.Error("their file changed")
	}
}

// TestOpenNeverOpensOtherFiles: Open checks the type before it opens, so
// a FIFO or device node is never opened (opening a device can act; a
// FIFO's open releases a writer waiting on it, which is what is watched
// here: the old Open, a non-blocking open then fstat, released it).
func TestOpenNeverOpensOtherFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "nastune-bench-x.bin")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			close(released)
			f.Close()
		}
	}()
	time.Sleep(100 * time.Millisecond) // the writer waits in open(2)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Open("nastune-bench-x.bin", unix.O_RDONLY); !errors.Is(err, ErrUnsafe) {
		t.Errorf("fifo: %v", err)
	}
	select {
	case <-released:
		t.Error("Open opened the FIFO (a waiting writer was released)")
	case <-time.After(300 * time.Millisecond):
	}
	// Release the writer.
	if r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
		<-released
		r.Close()
	}
	// A regular file still opens, for reading and writing.
	os.WriteFile(filepath.Join(dir, "f"), []byte("data"), 0o600)
	f, err := d.Open("f", unix.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("D"), 0); err != nil {
		t.Error(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "Data" {
		t.Errorf("file: %q", b)
	}
}

func TestRelativeAndDotDot(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	t.Chdir(filepath.Join(dir, "a"))
	if err := WriteFile("b/../b/./r.json", []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a", "b", "r.json")); string(b) != "1" {
		t.Errorf("content %q", b)
	}
	if err := WriteFile("r.json", []byte("2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a", "r.json")); string(b) != "2" {
		t.Errorf("content %q", b)
	}
	if err := WriteFile("b/", []byte("x"), 0o600); err == nil {
		t.Error("a directory name must be refused")
	}
}
