package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The crash matrix of `apply --confirm` (issue 25): apply, confirm, undo
// and the watchdog's revert are each killed (SIGKILL, as kill -9) at every
// crash point they pass; afterwards what the commands say is checked
// against what is on disk: the confirm state (the line `undo --list` and
// audit print, Status.Describe), the answer of `nastune confirm`, of the
// sweep every root start and the nastune-finish unit run (FinishExpired)
// and of the next apply; and the tree is back to what it was once the
// deadline passed.

// crashChild is the child process of the matrix: it runs one operation
// and is killed at a crash point (exit 0: the point was not reached).
func crashChild() {
	root := os.Getenv("NASTUNE_TEST_CC_ROOT")
	n, _ := strconv.Atoi(os.Getenv("NASTUNE_TEST_CC_N"))
	stage, id := os.Getenv("NASTUNE_TEST_CC_STAGE"), os.Getenv("NASTUNE_TEST_CC_RUN")
	o := Options{Root: root, pause: killAt(stage, n)}
	if os.Getenv("NASTUNE_TEST_CC_HOLD") != "" {
		// Stop (alive, holding what it holds) at the point and say so.
		o.pause = func(s string) {
			if s == stage {
				os.WriteFile(filepath.Join(root, "var", "held"), nil, 0o600)
				time.Sleep(time.Hour)
			}
		}
	}
	switch os.Getenv("NASTUNE_TEST_CC_OP") {
	case "apply":
		o.Confirm = time.Hour
		Apply(samplePlan(), o)
	case "confirm":
		Confirm(id, o)
	case "undo":
		Undo(id, o)
	case "watch":
		o.Now = func() time.Time { return time.Now().Add(2 * time.Hour) } // the deadline passed
		Watch(context.Background(), id, 10*time.Millisecond, o)
	}
	os.Exit(0)
}

// runCrash runs op in a child killed at the n-th stage; it reports
// whether the kill happened.
func runCrash(t *testing.T, root, op, stage string, n int, id string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConfirmCrashMatrix$")
	cmd.Env = append(os.Environ(), "NASTUNE_TEST_CC_ROOT="+root, "NASTUNE_TEST_CC_OP="+op,
		"NASTUNE_TEST_CC_STAGE="+stage, "NASTUNE_TEST_CC_N="+strconv.Itoa(n), "NASTUNE_TEST_CC_RUN="+id)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return false
	}
	if !killed(err) {
		t.Fatalf("%s child at %s#%d: %v\n%s", op, stage, n, err, out)
	}
	return true
}

type killPoint struct {
	stage string
	n     int
}

func (p killPoint) String() string { return fmt.Sprintf("%s#%d", p.stage, p.n) }

// points lists stage#1..#max for each stage.
func points(max int, stages ...string) []killPoint {
	var out []killPoint
	for _, s := range stages {
		for i := 1; i <= max; i++ {
			out = append(out, killPoint{s, i})
		}
	}
	return out
}

func TestConfirmCrashMatrix(t *testing.T) {
	if os.Getenv("NASTUNE_TEST_CC_ROOT") != "" {
		crashChild()
		return
	}
	now := func(root string) Options { return Options{Root: root} }
	later := func(root string) Options {
		return Options{Root: root, Now: func() time.Time { return time.Now().Add(2 * time.Hour) }}
	}
	status := func(t *testing.T, o Options, id string) ConfirmStatus {
		t.Helper()
		runs, err := List(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.ID == id {
				return Status(r, o)
			}
		}
		t.Fatalf("run %s not listed", id)
		return ConfirmStatus{}
	}
	runState := func(t *testing.T, root, id string) string {
		m, err := readManifest(filepath.Join(root, "var/lib/nastune/runs", id))
		if err != nil {
			t.Fatal(err)
		}
		return m.State
	}
	// finish: past the deadline the sweep reverts the run, the tree is
	// as before, every message agrees, and the next apply works.
	finish := func(t *testing.T, root, id, before string, wantReverted bool) {
		t.Helper()
		done, err := FinishExpired(later(root))
		if err != nil {
			t.Fatalf("sweep: %v", err)
		}
		if got := len(done) == 1 && done[0] == id; got != wantReverted {
			t.Errorf("sweep reverted %v, want run %s reverted: %v", done, id, wantReverted)
		}
		if digest(t, root) != before {
			t.Fatalf("after the deadline and the sweep the tree is not as before")
		}
		cs := status(t, later(root), id)
		if cs.State != ConfirmReverted && cs.State != ConfirmUndone {
			t.Errorf("after the sweep: %s (%s)", cs.State, cs.Describe())
		}
		if _, err := Confirm(id, later(root)); !errors.Is(err, ErrNotPending) {
			t.Errorf("confirm after the revert: %v", err)
		}
		if done, err := FinishExpired(later(root)); err != nil || len(done) > 0 {
			t.Errorf("second sweep: %v %v", done, err)
		}
		m, err := Apply(samplePlan(), now(root))
		if err != nil {
			t.Fatalf("the next apply: %v", err)
		}
		if _, err := Undo(m.ID, now(root)); err != nil {
			t.Fatal(err)
		}
	}
	// applied arms a run applied in this process and lets go of its
	// watchdog lock, as an apply whose watchdog then died.
	applied := func(t *testing.T, root string) string {
		m, err := Apply(samplePlan(), Options{Root: root, Confirm: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if cs := status(t, now(root), m.ID); cs.State != ConfirmPending || !cs.Watched {
			t.Fatalf("just applied: %s watched %v", cs.State, cs.Watched)
		}
		ReleaseWatch(m.ID)
		return m.ID
	}

	t.Run("apply", func(t *testing.T) {
		kills := 0
		defer func() {
			if kills < 2*len(samplePlan().Changes) { // 8 steps: 3 + 2×8 points
				t.Errorf("apply was killed at %d points only", kills)
			}
		}()
		for _, p := range append([]killPoint{{"journaled", 1}, {"complete", 1}, {"armed", 1}}, points(9, "before-step", "after-step")...) {
			root := scratch(t)
			before := digest(t, root)
			if !runCrash(t, root, "apply", p.stage, p.n, "") {
				continue // the plan has fewer steps
			}
			kills++
			runs, _ := List(now(root))
			if len(runs) != 1 {
				t.Fatalf("%v: runs %+v", p, runs)
			}
			id := runs[0].ID
			cs := status(t, now(root), id)
			if cs.State != ConfirmPending || cs.Watched || !strings.Contains(cs.Describe(), "no watchdog is running") {
				t.Errorf("%v: before the deadline: %s watched %v: %s", p, cs.State, cs.Watched, cs.Describe())
			}
			_, cerr := Confirm(id, now(root))
			if runs[0].State == StateComplete {
				if cerr != nil {
					t.Errorf("%v: confirm of a complete run: %v", p, cerr)
				}
				if done, err := FinishExpired(later(root)); err != nil || len(done) > 0 {
					t.Errorf("%v: sweep of a confirmed run: %v %v", p, done, err)
				}
				if cs := status(t, later(root), id); cs.State != ConfirmConfirmed || digest(t, root) == before {
					t.Errorf("%v: confirmed, after the deadline: %s", p, cs.State)
				}
				if _, err := Undo(id, now(root)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if !errors.Is(cerr, ErrNotPending) || !strings.Contains(cerr.Error(), "not complete") {
				t.Errorf("%v: confirm of a run killed while applying: %v", p, cerr)
			}
			if _, err := Apply(samplePlan(), now(root)); !errors.Is(err, ErrIncomplete) {
				t.Errorf("%v: apply over the killed run: %v", p, err)
			}
			if cs := status(t, later(root), id); cs.State != ConfirmExpired || !strings.Contains(cs.Describe(), "nastune undo --expired") {
				t.Errorf("%v: past the deadline: %s: %s", p, cs.State, cs.Describe())
			}
			if _, err := Confirm(id, later(root)); !errors.Is(err, ErrTooLate) || !strings.Contains(err.Error(), "still applied") {
				t.Errorf("%v: confirm past the deadline: %v", p, err)
			}
			finish(t, root, id, before, true)
		}
	})

	t.Run("confirm", func(t *testing.T) {
		for _, p := range []killPoint{{"confirm", 1}, {"confirmed", 1}} {
			root := scratch(t)
			before := digest(t, root)
			id := applied(t, root)
			if !runCrash(t, root, "confirm", p.stage, p.n, id) {
				t.Fatalf("%v not reached", p)
			}
			cs := status(t, later(root), id)
			if p.stage == "confirmed" {
				// Written before the kill: it is kept.
				if cs.State != ConfirmConfirmed {
					t.Errorf("%v: %s", p, cs.State)
				}
				if done, _ := FinishExpired(later(root)); len(done) > 0 || digest(t, root) == before {
					t.Errorf("%v: a confirmed run was reverted", p)
				}
				Undo(id, now(root))
				continue
			}
			if cs.State != ConfirmExpired {
				t.Errorf("%v: a confirm killed before its write: %s", p, cs.State)
			}
			finish(t, root, id, before, true)
		}
	})

	t.Run("undo", func(t *testing.T) {
		for _, p := range append([]killPoint{{"undo-start", 1}, {"undo-journaled", 1}, {"undo-restored", 1}}, points(9, "restore")...) {
			root := scratch(t)
			before := digest(t, root)
			id := applied(t, root)
			if !runCrash(t, root, "undo", p.stage, p.n, id) {
				continue
			}
			state := runState(t, root, id)
			cs := status(t, now(root), id)
			if cs.State != ConfirmPending || cs.Watched {
				t.Errorf("%v: run %s: %s", p, state, cs.Describe())
			}
			if _, err := Confirm(id, now(root)); state != StateComplete && !errors.Is(err, ErrNotPending) {
				t.Errorf("%v: confirm of a half-undone run: %v", p, err)
			} else if state == StateComplete {
				// The undo was killed before it started: confirmable.
				Undo(id, now(root))
				if digest(t, root) != before {
					t.Errorf("%v: undo did not restore", p)
				}
				continue
			}
			if _, err := Undo(id, now(root)); err != nil { // the admin finishes it
				t.Fatalf("%v: %v", p, err)
			}
			if cs := status(t, later(root), id); cs.State != ConfirmUndone {
				t.Errorf("%v: undone by hand: %s", p, cs.State)
			}
			finish(t, root, id, before, false)
		}
	})

	t.Run("watchdog", func(t *testing.T) {
		for _, p := range append([]killPoint{{"revert", 1}, {"undo-start", 1}, {"undo-journaled", 1}, {"undo-restored", 1}, {"reverted", 1}}, points(9, "restore")...) {
			root := scratch(t)
			before := digest(t, root)
			id := applied(t, root)
			if !runCrash(t, root, "watch", p.stage, p.n, id) {
				continue
			}
			state := runState(t, root, id)
			cs := status(t, later(root), id)
			switch {
			case state == StateUndone:
				if cs.State != ConfirmUndone && cs.State != ConfirmReverted {
					t.Errorf("%v: journal undone, confirm %s", p, cs.State)
				}
				if digest(t, root) != before {
					t.Errorf("%v: undone but not restored", p)
				}
			case cs.State != ConfirmExpired || cs.Watched:
				t.Errorf("%v: watchdog killed, run %s: %s (%s)", p, state, cs.State, cs.Describe())
			}
			if _, err := Confirm(id, later(root)); err == nil {
				t.Errorf("%v: confirm after the deadline succeeded", p)
			} else if strings.Contains(err.Error(), "is reverting") {
				t.Errorf("%v: confirm says it is being reverted, with the watchdog dead: %v", p, err)
			}
			finish(t, root, id, before, state != StateUndone)
		}
	})

	// A watchdog alive in its revert holds the lock: the run is being
	// reverted, and the sweep leaves it to it.
	t.Run("watchdog-alive", func(t *testing.T) {
		root := scratch(t)
		before := digest(t, root)
		id := applied(t, root)
		cmd := exec.Command(os.Args[0], "-test.run", "^TestConfirmCrashMatrix$")
		cmd.Env = append(os.Environ(), "NASTUNE_TEST_CC_ROOT="+root, "NASTUNE_TEST_CC_OP=watch",
			"NASTUNE_TEST_CC_STAGE=restore", "NASTUNE_TEST_CC_HOLD=1", "NASTUNE_TEST_CC_RUN="+id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for i := 0; ; i++ {
			if _, err := os.Stat(filepath.Join(root, "var", "held")); err == nil {
				break
			}
			if i > 3000 {
				t.Fatal("the watchdog never reached its revert")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if cs := status(t, later(root), id); cs.State != ConfirmReverting || !cs.Watched || !strings.Contains(cs.Describe(), "its watchdog is reverting it") {
			t.Errorf("watchdog alive in its revert: %s: %s", cs.State, cs.Describe())
		}
		if done, err := FinishExpired(later(root)); err != nil || len(done) > 0 {
			t.Errorf("the sweep took a run its watchdog is reverting: %v %v", done, err)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if cs := status(t, later(root), id); cs.State != ConfirmExpired {
			t.Errorf("watchdog killed in its revert: %s", cs.State)
		}
		finish(t, root, id, before, true)
	})
}
