package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/plan"
)

func confirmPlan() plan.Plan {
	return plan.Plan{Changes: []plan.Change{{ID: "sysctl-1", Kind: "sysctl", Target: "net.ipv4.tcp_timestamps", From: "0", To: "1",
		Runtime: "/proc/sys/net/ipv4/tcp_timestamps", Persist: &plan.Persist{File: plan.SysctlFile, Line: "net.ipv4.tcp_timestamps = 1"}}}}
}

func value(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// Not confirmed in time: the watchdog undoes the run (value and file).
func TestUnconfirmedRunReverts(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	m, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m.ID, time.Now().Add(300*time.Millisecond), o); err != nil {
		t.Fatal(err)
	}
	reverted, err := Watch(context.Background(), m.ID, 20*time.Millisecond, o)
	if err != nil || !reverted {
		t.Fatalf("watch: reverted %v, %v", reverted, err)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("tcp_timestamps %s after the deadline, want 0", v)
	}
	if _, err := os.Stat(filepath.Join(root, plan.SysctlFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sysctl.d file survived the revert: %v", err)
	}
	st, _, _ := ReadConfirm(m.ID, o)
	if st.State != ConfirmReverted {
		t.Errorf("state %q", st.State)
	}
	if _, err := Confirm(m.ID, o); !errors.Is(err, ErrNotPending) {
		t.Errorf("confirm after the revert: %v", err)
	}
}

// Confirmed in time: the watchdog leaves the run applied.
func TestConfirmedRunStays(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	m, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m.ID, time.Now().Add(2*time.Second), o); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		r, err := Watch(context.Background(), m.ID, 20*time.Millisecond, o)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(100 * time.Millisecond)
	if id, err := Confirm("", o); err != nil || id != m.ID {
		t.Fatalf("confirm: %s %v", id, err)
	}
	if <-done {
		t.Fatal("a confirmed run was reverted")
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "1" {
		t.Errorf("tcp_timestamps %s, want 1", v)
	}
}

// No watchdog (the box rebooted): the next start reverts runs whose
// deadline passed.
func TestExpiredRunRevertedAtNextStart(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	m, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m.ID, time.Now().Add(-time.Minute), o); err != nil {
		t.Fatal(err)
	}
	done, err := FinishExpired(o)
	if err != nil || len(done) != 1 || done[0] != m.ID {
		t.Fatalf("finish expired: %v %v", done, err)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("tcp_timestamps %s, want 0", v)
	}
}

// A watchdog stopped before the deadline (SIGTERM: logind ends the SSH
// session's scope with KillUserProcesses=yes, or a shutdown) reverts at
// once. Staged: kill -TERM of `nastune confirm --watch` left
// tcp_timestamps applied past the deadline, and `nastune confirm` then
// said "it is being reverted" while nothing did.
func TestStoppedWatchdogReverts(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	m, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := ArmConfirm(m.ID, time.Now().Add(time.Hour), o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	reverted, _ := Watch(ctx, m.ID, 20*time.Millisecond, o)
	if !reverted {
		t.Error("a stopped watchdog left the pending run applied")
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("tcp_timestamps %s after the watchdog stopped, want 0", v)
	}
	if st, _, _ := ReadConfirm(m.ID, o); st.State != ConfirmReverted {
		t.Errorf("confirm state %q, want reverted", st.State)
	}
	// Confirmed first: a stop changes nothing.
	m2, err := Apply(confirmPlan(), o)
	if err != nil {
		t.Fatal(err)
	}
	ArmConfirm(m2.ID, time.Now().Add(time.Hour), o)
	if _, err := Confirm(m2.ID, o); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if r, _ := Watch(ctx2, m2.ID, 20*time.Millisecond, o); r {
		t.Error("a confirmed run was reverted")
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "1" {
		t.Errorf("confirmed run: tcp_timestamps %s, want 1", v)
	}
}

// One expired run that cannot be reverted (its journal damaged, or a
// conflict) is reported and never keeps the others applied; its state
// stays "expired" with the reason, printable and on one line.
func TestStuckExpiredRunDoesNotBlockOthers(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	later := Options{Root: root, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	p2 := confirmPlan()
	p2.Changes[0] = plan.Change{ID: "sysctl-2", Kind: "sysctl", Target: "vm.vfs_cache_pressure", From: "1000", To: "100", Runtime: "/proc/sys/vm/vfs_cache_pressure"}
	mA, err := Apply(p2, Options{Root: root, Confirm: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ReleaseWatch(mA.ID)
	mB, err := Apply(confirmPlan(), Options{Root: root, Confirm: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ReleaseWatch(mB.ID)
	// A's value changed by someone else since: its revert conflicts.
	os.WriteFile(filepath.Join(root, "proc/sys/vm/vfs_cache_pressure"), []byte("\x1b[31m77\n"), 0o644)
	done, err := FinishExpired(later)
	if err == nil || !strings.Contains(err.Error(), mA.ID) {
		t.Errorf("sweep error %v, want run %s named", err, mA.ID)
	}
	if len(done) != 1 || done[0] != mB.ID {
		t.Errorf("sweep reverted %v, want [%s]", done, mB.ID)
	}
	if v := value(t, root, "proc/sys/net/ipv4/tcp_timestamps"); v != "0" {
		t.Errorf("run %s left applied behind the stuck run: tcp_timestamps %s", mB.ID, v)
	}
	runs, _ := List(o)
	cs := Status(runs[0], later)
	if cs.ID != mA.ID || cs.State != ConfirmExpired || cs.Error == "" || strings.ContainsAny(cs.Describe(), "\x1b\n") {
		t.Errorf("the stuck run: %+v: %q", cs, cs.Describe())
	}
}

// TestDescribeNamesTheDay: a deadline on another day than today says
// which day. "waits for confirmation until 14:00:00" for a run given
// --confirm 48h reads as today, and the admin lets the run stand.
func TestDescribeNamesTheDay(t *testing.T) {
	now := time.Now()
	for _, d := range []time.Duration{48 * time.Hour, 30 * time.Hour, -30 * time.Hour, 400 * 24 * time.Hour} {
		dl := now.Add(d)
		for _, st := range []string{ConfirmPending, ConfirmExpired, ConfirmReverted} {
			got := ConfirmStatus{ID: "000001-20260101-000000", State: st, Deadline: dl}.Describe()
			if !strings.Contains(got, dl.Local().Format("2006-01-02")) {
				t.Errorf("deadline %v from now, %s: %q does not name the day", d, st, got)
			}
		}
	}
	// Today: the time is enough.
	dl := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.Local)
	if got := (ConfirmStatus{State: ConfirmPending, Deadline: dl}).Describe(); !strings.Contains(got, "until 12:00:00;") {
		t.Errorf("today: %q", got)
	}
}
