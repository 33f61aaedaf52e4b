package tune

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/apply"
)

const cachePressure = "/proc/sys/vm/vfs_cache_pressure"

// trialRoot is a scratch root with one attribute a trial can change.
func trialRoot(t *testing.T) (string, apply.Options) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, cachePressure)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, apply.Options{Root: root}
}

func attr(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, cachePressure))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// setJournalPID rewrites the pid a run's journal records (checksum
// included), as a tune that died and whose pid is now another process's.
func setJournalPID(t *testing.T, dir string, pid int) {
	t.Helper()
	p := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(env["body"], &body); err != nil {
		t.Fatal(err)
	}
	body["pid"] = pid
	nb, _ := json.Marshal(body)
	s := sha256.Sum256(nb)
	env["body"], env["sha256"] = nb, json.RawMessage(`"`+hex.EncodeToString(s[:])+`"`)
	out, _ := json.Marshal(env)
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 25, item 4: a tune killed mid-trial left its trial value live
// when its pid was reused; a zombie or a kernel thread (/proc/PID/exe
// unreadable) was taken as the tune, alive, and every later tune refused
// with "another nastune tune is running". Whether a tune runs is the tune
// lock, never a pid: each of these pids is a live process, none holds it.
func TestReusedPidDoesNotHoldTrial(t *testing.T) {
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zombie.Wait() })
	for i := 0; i < 200; i++ { // not reaped: a zombie once it exits
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", zombie.Process.Pid)); strings.Contains(string(st), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pids := map[string]int{"a sleep": sleep.Process.Pid, "a zombie": zombie.Process.Pid, "this test": os.Getpid()}
	if comm, _ := os.ReadFile("/proc/2/comm"); strings.TrimSpace(string(comm)) == "kthreadd" {
		pids["kthreadd"] = 2
	}
	for who, pid := range pids {
		t.Run(strings.ReplaceAll(who, " ", "_"), func(t *testing.T) {
			root, o := trialRoot(t)
			m, err := apply.Trial(cachePressure, "100", o)
			if err != nil {
				t.Fatal(err)
			}
			setJournalPID(t, apply.RunDir(m.ID, o), pid)
			done, err := FinishOrphans(o)
			if err != nil {
				t.Fatalf("pid %d (%s) in the journal: %v", pid, who, err)
			}
			if len(done) != 1 || done[0] != m.ID {
				t.Errorf("reverted %v, want [%s]", done, m.ID)
			}
			if v := attr(t, root); v != "1000" {
				t.Errorf("%s reads %s, want 1000: the trial stayed live", cachePressure, v)
			}
		})
	}
}

// A running tune (it holds the tune lock) keeps its trials: another
// nastune start leaves them and says a tune is running.
func TestRunningTuneKeepsItsTrials(t *testing.T) {
	root, o := trialRoot(t)
	unlock, err := apply.TuneLock(o)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := apply.Trial(cachePressure, "100", o); err != nil {
		t.Fatal(err)
	}
	if _, err := FinishOrphans(o); !errors.Is(err, apply.ErrTuneRunning) {
		t.Errorf("finish orphans while a tune runs: %v, want ErrTuneRunning", err)
	}
	if v := attr(t, root); v != "100" {
		t.Errorf("the running tune's trial was reverted under it: %s", v)
	}
	// The tune itself (holding the lock) reverts them.
	if done, err := FinishOrphansLocked(o); err != nil || len(done) != 1 {
		t.Errorf("finish orphans locked: %v %v", done, err)
	}
	if v := attr(t, root); v != "1000" {
		t.Errorf("%s reads %s after the revert", cachePressure, v)
	}
}
