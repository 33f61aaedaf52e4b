package apply

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Issue 25, item 3: a run applied with --confirm and undone by hand before
// its deadline stayed "pending" for ever; past its deadline the sweep of
// expired runs tried to revert it, failed ("already undone") and stopped
// there, so a later expired run whose watchdog had died stayed applied.
// An undone run is never pending, and each expired run is swept on its
// own.
func TestUndoneRunNeitherPendingNorBlocksSweep(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	m1, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m1.ID, time.Now().Add(time.Minute), o); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(m1.ID, o); err != nil { // by hand, before the deadline
		t.Fatal(err)
	}
	m2, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m2.ID, time.Now().Add(time.Minute), o); err != nil {
		t.Fatal(err)
	}
	// Both deadlines pass with no watchdog (it was killed).
	later := Options{Root: root, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	done, err := FinishExpired(later)
	if err != nil {
		t.Errorf("sweep: %v", err)
	}
	if len(done) != 1 || done[0] != m2.ID {
		t.Errorf("sweep reverted %v, want [%s]", done, m2.ID)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("tcp_timestamps %s: the expired run %s was left applied", v, m2.ID)
	}
	if _, err := Confirm(m1.ID, o); !errors.Is(err, ErrNotPending) {
		t.Errorf("confirm of the run undone by hand: %v, want not pending", err)
	}
}

// Issue 25, item 3: a watchdog killed with kill -9 (the OOM killer)
// before the deadline; after it, `nastune confirm` said the run "is being
// reverted" while nothing reverted it.
func TestKilledWatchdogIsNotReverting(t *testing.T) {
	if root := os.Getenv("NASTUNE_TEST_WATCHDOG_ROOT"); root != "" {
		Watch(context.Background(), os.Getenv("NASTUNE_TEST_WATCHDOG_RUN"), 10*time.Millisecond, Options{Root: root})
		os.Exit(0)
	}
	root := scratch(t)
	o := Options{Root: root}
	m, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m.ID, time.Now().Add(time.Minute), o); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledWatchdogIsNotReverting$")
	cmd.Env = append(os.Environ(), "NASTUNE_TEST_WATCHDOG_ROOT="+root, "NASTUNE_TEST_WATCHDOG_RUN="+m.ID)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let it start watching (either way the test holds)
	cmd.Process.Kill()
	cmd.Wait()
	later := Options{Root: root, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	_, err = Confirm(m.ID, later)
	if err == nil {
		t.Fatal("confirm after the deadline succeeded")
	}
	if strings.Contains(err.Error(), "being reverted") || !strings.Contains(err.Error(), "still applied") {
		t.Errorf("confirm after the deadline, watchdog dead: %q; want it to say the run is still applied and nothing reverts it", err)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "1" {
		t.Fatalf("tcp_timestamps %s: the message was checked against a reverted run", v)
	}
	if done, err := FinishExpired(later); err != nil || len(done) != 1 {
		t.Errorf("finish expired: %v %v", done, err)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("tcp_timestamps %s after finishing the expired run", v)
	}
}
