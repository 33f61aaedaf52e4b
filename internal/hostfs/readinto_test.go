package hostfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestReadInto(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes: grows the buffer
	os.WriteFile(filepath.Join(dir, "proc", "big"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "proc", "small"), []byte("cpu 1 2 3\n"), 0o644)
	os.Symlink("/proc/small", filepath.Join(dir, "proc", "link"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf, err := r.ReadInto("/proc/big", nil)
	if err != nil || !bytes.Equal(buf, big) {
		t.Fatalf("big: %d bytes, %v", len(buf), err)
	}
	c := cap(buf)
	buf, err = r.ReadInto("/proc/link", buf)
	if err != nil || string(buf) != "cpu 1 2 3\n" || cap(buf) != c {
		t.Errorf("small through a link into the same buffer: %q cap %d (was %d), %v", buf, cap(buf), c, err)
	}
	if _, err := r.ReadInto("/proc/missing", buf); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// The live system: /proc/self/stat is read whole.
	b, err := Live().ReadInto("/proc/self/stat", nil)
	if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("live /proc/self/stat: %q %v", b, err)
	}
	// A task's counters (no type check before open, read through the
	// descriptor) and a file larger than the first buffer, read whole.
	pid := strconv.Itoa(os.Getpid())
	for name, fields := range map[string]int{"/proc/" + pid + "/stat": 52, "/proc/" + pid + "/task/" + pid + "/schedstat": 3, "/proc/self/smaps": 1000} {
		b, err := Live().ReadInto(name, b)
		if n := len(strings.Fields(string(b))); err != nil || n < fields || !bytes.HasSuffix(b, []byte("\n")) {
			t.Errorf("live %s: %d fields (want %d or more), %v", name, n, fields, err)
		}
	}
	if _, err := Live().ReadInto("/proc/999999999/stat", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an exited task's stat: %v, want not exist", err)
	}
}

// Stream opens the package database only (unrecorded, unredacted), through
// the same checked open as ReadFile: a link at the name to a secret file
// is refused.
func TestStream(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "var/lib/dpkg"), 0o755)
	os.MkdirAll(filepath.Join(dir, "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, "var/lib/dpkg/status"), []byte("Package: samba\nVersion: 2:4.17.12\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "etc/shadow"), []byte("root:x\n"), 0o644)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := r.Record()
	f, err := r.Stream("/var/lib/dpkg/status")
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, _ := f.Read(b)
	f.Close()
	if string(b[:n]) != "Package: samba\nVersion: 2:4.17.12\n" {
		t.Errorf("read %q", b[:n])
	}
	if _, ok := rec.Read("/var/lib/dpkg/status"); ok {
		t.Error("Stream recorded the file into the snapshot")
	}
	if _, err := r.Stream("/etc/shadow"); err == nil {
		t.Error("Stream opened /etc/shadow")
	}
	os.Remove(filepath.Join(dir, "var/lib/dpkg/status"))
	os.Symlink("/etc/shadow", filepath.Join(dir, "var/lib/dpkg/status"))
	if _, err := r.Stream("/var/lib/dpkg/status"); !errors.Is(err, ErrNeverRead) {
		t.Errorf("a link to /etc/shadow: err %v, want ErrNeverRead", err)
	}
}

// A counter held open reads its task's stat again each time, fails once
// the task has exited (ESRCH), and opens only what ReadInto reads.
func TestCounter(t *testing.T) {
	c := exec.Command("sleep", "600")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	name := "/proc/" + strconv.Itoa(c.Process.Pid) + "/stat"
	f, err := Live().OpenCounter(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b []byte
	for range 2 {
		b, err = f.ReadInto(b)
		if want := strconv.Itoa(c.Process.Pid) + " (sleep) "; err != nil || !strings.HasPrefix(string(b), want) {
			t.Fatalf("%s: %q, %v; want %q first", name, b, err, want)
		}
	}
	c.Process.Kill()
	c.Wait()
	if b, err := f.ReadInto(b); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("%s of an exited task: %q, %v; want ESRCH", name, b, err)
	}
	for _, bad := range []string{"/proc/self/cmdline", "/proc/self/environ", "/etc/passwd"} {
		if f, err := Live().OpenCounter(bad); err == nil {
			f.Close()
			t.Errorf("OpenCounter(%s) opened it", bad)
		}
	}
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.OpenCounter("/proc/stat"); err == nil {
		t.Error("a captured tree's counter was held open")
	}
}
