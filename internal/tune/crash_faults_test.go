//go:build nastune_faults

package tune

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/apply"
)

// A tune killed (SIGKILL) at every crash point of its trial, and while it
// measures with the trial live: the next nastune start reverts the trial
// (the tune lock is free: nobody runs it), the value is back, and a tune
// can start again. The crash points are the nastune_faults build's
// (NASTUNE_CRASH_AT, internal/apply/faults.go).
func TestTuneKilledAtEveryTrialStep(t *testing.T) {
	if root := os.Getenv("NASTUNE_TEST_TUNE_ROOT"); root != "" {
		o := apply.Options{Root: root}
		unlock, err := apply.TuneLock(o)
		if err != nil {
			os.Exit(3)
		}
		defer unlock()
		if _, err := apply.Trial(cachePressure, "100", o); err != nil {
			os.Exit(4)
		}
		os.WriteFile(filepath.Join(root, "measuring"), nil, 0o600)
		time.Sleep(time.Hour) // measuring, the trial live
		return
	}
	for _, at := range []string{"journaled", "before-step", "after-step", "complete", "measuring"} {
		t.Run(at, func(t *testing.T) {
			root, o := trialRoot(t)
			cmd := exec.Command(os.Args[0], "-test.run", "^TestTuneKilledAtEveryTrialStep$")
			cmd.Env = append(os.Environ(), "NASTUNE_TEST_TUNE_ROOT="+root)
			if at != "measuring" {
				cmd.Env = append(cmd.Env, "NASTUNE_CRASH_AT="+at)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if at == "measuring" {
				for i := 0; ; i++ {
					if _, err := os.Stat(filepath.Join(root, "measuring")); err == nil {
						break
					}
					if i > 3000 {
						cmd.Process.Kill()
						t.Fatal("the trial never went live")
					}
					time.Sleep(10 * time.Millisecond)
				}
				// A tune alive: its trial is its own.
				if _, err := FinishOrphans(o); !errors.Is(err, apply.ErrTuneRunning) {
					t.Errorf("while the tune runs: %v, want ErrTuneRunning", err)
				}
				cmd.Process.Kill()
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want killed at %s", err, at)
			}
			runs, _ := apply.List(o)
			if len(runs) != 1 {
				t.Fatalf("runs after the kill: %+v", runs)
			}
			done, err := FinishOrphans(o)
			if err != nil || len(done) != 1 {
				t.Fatalf("finish orphans: %v %v", done, err)
			}
			if v := attr(t, root); v != "1000" {
				t.Errorf("%s reads %s after the kill at %s, want 1000", cachePressure, v, at)
			}
			if runs, _ := apply.List(o); runs[0].State != apply.StateUndone {
				t.Errorf("the trial run is %s, want undone", runs[0].State)
			}
			unlock, err := apply.TuneLock(o)
			if err != nil {
				t.Fatalf("the next tune: %v", err)
			}
			unlock()
		})
	}
}
