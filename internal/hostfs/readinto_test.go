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
	"time"
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

// A hostile captured tree aims the names the live fast paths take
// (/proc/PID/stat, /proc/self, /sys/class/...) at secrets, FIFOs and
// large files: every read stays inside the tree, refuses what NeverRead
// names by its real path, never hangs or reads past the cap, and
// ReadInto, which does not redact, reads only what is really a counter
// file: /proc/1/stat linked to smb.conf was returned unredacted. On the
// live system, /proc/self/root/… leads to any file.
func TestCounterNamesInAHostileTree(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("OUTSIDE\n"), 0o644)
	dir := t.TempDir()
	files := map[string]string{
		"etc/samba/smb.conf": "[global]\n\tldap admin password = SECRET\n",
		"etc/shadow":         "root:SECRET:1::::::\n",
		"etc/stat":           "1 (init) S 0\n",
		"proc/1/task/1/stat": "1 (init) S 0\n",
		"proc/4/stat":        strings.Repeat("x", MaxFileSize+1),
	}
	for name, data := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	links := map[string]string{
		"proc/self":                          "/etc",
		"proc/1/stat":                        "/etc/samba/smb.conf",
		"proc/1/schedstat":                   "../../etc/shadow",
		"proc/2":                             "../../../../../../..",
		"proc/3":                             outside[:len(outside)-len("/outside")],
		"sys/class/block/sda":                "../../../etc",
		"sys/class/net/eth0/statistics/rx_b": "../../../../../../../../etc/shadow",
	}
	for name, target := range links {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "proc/5"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "proc/5/stat"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cases := []struct {
		name string
		file error // ReadFile's error (nil: read, redacted)
		into error // ReadInto's
	}{
		{"/proc/self/stat", nil, errNotCounter}, // the tree's /etc/stat
		{"/proc/1/stat", nil, errNotCounter},    // smb.conf, redacted by ReadFile
		{"/proc/1/schedstat", ErrNeverRead, ErrNeverRead},
		{"/proc/1/task/1/stat", nil, nil},
		{"/proc/2/etc/shadow", ErrNeverRead, ErrNeverRead}, // ".." stops at the top
		{"/proc/3/outside", fs.ErrNotExist, fs.ErrNotExist},
		{"/proc/4/stat", ErrTooLarge, ErrTooLarge},
		{"/proc/5/stat", ErrNotRegular, ErrNotRegular},
		{"/sys/class/block/sda/shadow", ErrNeverRead, ErrNeverRead},
		{"/sys/class/block/sda/stat", nil, errNotCounter},
		{"/sys/class/net/eth0/statistics/rx_b", ErrNeverRead, ErrNeverRead},
	}
	for _, c := range cases {
		within(t, 5*time.Second, c.name, func() {
			b, err := r.ReadFile(c.name)
			if !matches(err, c.file) || strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "OUTSIDE") {
				t.Errorf("ReadFile(%s) = %.80q (%d bytes), %v; want %v", c.name, b, len(b), err, c.file)
			}
			b, err = r.ReadInto(c.name, nil)
			if !matches(err, c.into) || strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "OUTSIDE") {
				t.Errorf("ReadInto(%s) = %.80q (%d bytes), %v; want %v", c.name, b, len(b), err, c.into)
			}
		})
	}
	// Live: a counter name that leads out of /proc and /sys.
	secret := filepath.Join(t.TempDir(), "smb.conf")
	os.WriteFile(secret, []byte("password = SECRET\n"), 0o644)
	name := "/proc/self/root" + secret
	if b, err := Live().ReadInto(name, nil); !matches(err, errNotCounter) {
		t.Errorf("live ReadInto(%s) = %q, %v; want refused", name, b, err)
	}
	if c, err := Live().OpenCounter(name); !matches(err, errNotCounter) {
		if c != nil {
			c.Close()
		}
		t.Errorf("live OpenCounter(%s) = %v; want refused", name, err)
	}
}

// errNotCounter stands for ReadInto's refusal of what is not a kernel
// counter file.
var errNotCounter = errors.New("not a kernel counter file")

func matches(err, want error) bool {
	switch want {
	case nil:
		return err == nil
	case errNotCounter:
		return err != nil && strings.Contains(err.Error(), "kernel counter files only")
	}
	return errors.Is(err, want)
}
