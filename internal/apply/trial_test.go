package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scheduler switch resets nr_requests to the new scheduler's default
// (the kernel's elevator switch), the revert's switch too. Staged on a
// loop device (bfq, nr_requests 4), a tune that tried other schedulers and
// kept nothing left nr_requests at 256: not the system it found. Here the
// kernel's reset is played by hand between the trial and its revert.
func TestSchedulerTrialRevertRestoresNrRequests(t *testing.T) {
	root := scratch(t)
	q := filepath.Join(root, "sys/block/sda/queue")
	os.WriteFile(filepath.Join(q, "scheduler"), []byte("none [bfq]\n"), 0o644)
	os.WriteFile(filepath.Join(q, "nr_requests"), []byte("4\n"), 0o644)
	o := Options{Root: root}
	m, err := Trial("/sys/block/sda/queue/scheduler", "none", o)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(q, "nr_requests"), []byte("256\n"), 0o644) // the kernel's reset
	rb, err := Revert(m.ID, o)
	if err != nil {
		t.Fatal(err)
	}
	if rb != "bfq" {
		t.Errorf("scheduler reads %q after the revert, want bfq", rb)
	}
	if got := read(t, root, "sys/block/sda/queue/nr_requests"); got != "4\n" {
		t.Errorf("nr_requests reads %q after the revert, want 4 as before the trial", got)
	}
	// A trial of another attribute records nothing.
	m2, err := Trial("/proc/sys/vm/vfs_cache_pressure", "100", o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(RunDir(m2.ID, o), "trial-nr_requests")); !os.IsNotExist(err) {
		t.Errorf("a sysctl trial recorded trial-nr_requests: %v", err)
	}
	if _, err := Revert(m2.ID, o); err != nil {
		t.Fatal(err)
	}
}

// Two tunes at once (different test files on one loop device) read each
// other's trial values as the device's own; the first then failed to revert
// ("changed since the apply") and left its trial live. One tune at a time.
func TestTuneLockOneAtATime(t *testing.T) {
	o := Options{Root: t.TempDir()}
	unlock, err := TuneLock(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TuneLock(o); err == nil || !strings.Contains(err.Error(), "another nastune tune is running (pid") {
		t.Fatalf("second tune lock: %v, want refused naming the pid", err)
	}
	unlock()
	unlock2, err := TuneLock(o)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	unlock2()
}
