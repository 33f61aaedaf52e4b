package hostfs

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Only paths of sysfs's own trees and /proc/sys skip the type check
// before open; anything that could hold a device node, or climb out of
// those trees, does not.
func TestNoDevices(t *testing.T) {
	for name, want := range map[string]bool{
		"/sys/class/net/eth0/mtu":        true,
		"/sys/block/sda/queue/scheduler": true,
		"/sys/devices/system/cpu/online": true,
		"/proc/sys/vm/swappiness":        true,
		"/sys/kernel/debug/x":            false, // debugfs
		"/sys/fs/cgroup/cpu.max":         false,
		"/sys/class/../../dev/watchdog":  false,
		"/sys//kernel/debug/x":           false,
		"/proc/self/fd/0":                false,
		"/proc/meminfo":                  false,
		"/dev/watchdog":                  false,
		"/etc/samba/smb.conf":            false,
		"/sysx/class/net":                false,
		"/proc/sys/../self/fd/0":         false,
		// A task's counters, which procfs makes itself.
		"/proc/1/stat":               true,
		"/proc/42/task/43/schedstat": true,
		"/proc/42/task/43/stat":      true,
		"/proc/self/stat":            false,
		"/proc/42/fd/0":              false,
		"/proc/42/root/dev/watchdog": false,
		"/proc/42/cwd/stat":          false,
		"/proc/42/task/43/fd/stat":   false,
		"/proc/42/task/x/stat":       false,
		"/proc/42/../self/fd/0":      false,
		"/proc/4x2/stat":             false,
		"/proc//stat":                false,
		"/proc/42/statm":             false,
		"/proc/42/task/43/stat/x":    false,
	} {
		if got := noDevices(name); got != want {
			t.Errorf("noDevices(%q) = %v, want %v", name, got, want)
		}
	}
}

// modeOf gives the type bits os.Stat gives.
func TestModeOf(t *testing.T) {
	for _, p := range []string{"/", "/dev/null", "/proc/self/exe", "/proc/meminfo", "/dev/loop-control"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		if got := modeOf(uint32(st.Mode)); got.Type() != fi.Mode().Type() || got.Perm() != fi.Mode().Perm() {
			t.Errorf("%s: modeOf %v, os.Stat %v", p, got, fi.Mode())
		}
	}
}

// The live read refuses what is not a regular file and reads a file
// larger than its scratch buffer whole.
func TestLiveReadFile(t *testing.T) {
	r := Live()
	if _, err := r.ReadFile("/dev/null"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: %v, want ErrNotRegular", err)
	}
	if _, err := r.ReadFile("/"); err == nil {
		t.Error("/: read as a file")
	}
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	f := t.TempDir() + "/big"
	if err := os.WriteFile(f, big, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadFile(f)
	if err != nil || string(got) != string(big) {
		t.Fatalf("200 KiB file: %d bytes, %v", len(got), err)
	}
	empty := t.TempDir() + "/empty"
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := r.ReadFile(empty); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty file: %q (nil %v), %v", got, got == nil, err)
	}
}
