package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// IncludeBomb writes an smb.conf include fan-out into dir: f0.conf to
// f7.conf each include the next level ten times (10^8 loads), f8.conf is a
// [global] with a 60 kB comment. It returns the top file, f0.conf: a
// testparm that follows it runs without end, so only a limit stops it.
func IncludeBomb(t testing.TB, dir string) string {
	t.Helper()
	for i := 0; i < 8; i++ {
		var sb strings.Builder
		for k := 0; k < 10; k++ {
			fmt.Fprintf(&sb, "include = %s/f%d.conf\n", dir, i+1)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.conf", i)), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	leaf := "[global]\n\tcomment = " + strings.Repeat("x", 60000) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "f8.conf"), []byte(leaf), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "f0.conf")
}

// NoTestparmLeft fails t when a testparm reading /dev/fd/3 (cmdrun's
// input) that this test process started is still running. Other test
// binaries run testparm the same way at the same time (go test runs
// packages in parallel): only descendants of this process count.
func NoTestparmLeft(t testing.TB) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !descendant(pid, os.Getpid()) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.Contains(string(b), "testparm") || !strings.Contains(string(b), "/dev/fd/3") {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue // a zombie of another test's group, already dead
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("testparm %d survived: %s", pid, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// descendant reports whether pid is a child, grandchild … of ancestor,
// following the parent pids in /proc/PID/stat.
func descendant(pid, ancestor int) bool {
	for range 64 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		i := strings.LastIndexByte(string(st), ')')
		if i < 0 {
			return false
		}
		f := strings.Fields(string(st[i+1:])) // state, ppid, …
		if len(f) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if ppid == ancestor {
			return true
		}
		pid = ppid
	}
	return false
}
