package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nastune/nastune/internal/plan"
)

// Trials are what `nastune tune` tries: one runtime value, applied as its
// own journaled run (change ID TrialChange, nothing persisted) and
// reverted with Undo when the measurement says it does not pay. A trial a
// crash left live is an ordinary complete run: `nastune undo` reverts it,
// and the next tune reverts every trial whose process is gone
// (OpenTrials).

// TrialChange is the change ID of every trial step.
const TrialChange = "tune-trial"

// Trial writes value to the runtime attribute path as one journaled run
// and reads it back. ErrNothingToDo: the attribute already holds value.
func Trial(path, value string, o Options) (*Manifest, error) {
	from, _ := ReadValue(o, path)
	p := plan.Plan{Changes: []plan.Change{{ID: TrialChange, Kind: "sysfs", Target: path, From: from, To: value, Runtime: path}}}
	if strings.HasPrefix(path, "/proc/sys/") {
		p.Changes[0].Kind = "sysctl"
	}
	return Apply(p, o)
}

// Revert undoes a trial run and returns the value read back afterwards.
func Revert(id string, o Options) (string, error) {
	m, err := Undo(id, o)
	if err != nil {
		return "", err
	}
	o.defaults()
	if len(m.Steps) == 0 {
		return "", nil
	}
	return readValue(o.Root, m.Steps[0].Path)
}

// IsTrial says whether a run is a tune trial.
func IsTrial(m Manifest) bool {
	if len(m.Steps) == 0 {
		return false
	}
	for _, s := range m.Steps {
		if s.Change != TrialChange {
			return false
		}
	}
	return true
}

// OpenTrials lists the trial runs still live (not undone or rolled back)
// whose process is gone: a tune that was killed. Those of a running tune
// (its pid alive) are returned in busy.
func OpenTrials(o Options) (orphans, busy []Manifest, err error) {
	runs, err := List(o)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range runs {
		if !IsTrial(m) || m.State == StateUndone || m.State == StateRolledBack {
			continue
		}
		if m.PID > 0 && pidAlive(m.PID) {
			busy = append(busy, m)
			continue
		}
		orphans = append(orphans, m)
	}
	return orphans, busy, nil
}

// pidAlive: the process lives and runs the same program as this one (a
// reused pid of another program does not hold a trial).
func pidAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	self, err1 := os.Readlink("/proc/self/exe")
	other, err2 := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err1 != nil || err2 != nil {
		return true
	}
	return strings.TrimSuffix(self, " (deleted)") == strings.TrimSuffix(other, " (deleted)")
}

// ReadValue reads a runtime attribute as apply does (a scheduler list
// reads as its active entry).
func ReadValue(o Options, path string) (string, error) {
	o.defaults()
	if !allowed("value", path) {
		return "", fmt.Errorf("%s: not a /proc/sys or /sys attribute", path)
	}
	return readValue(o.Root, path)
}

// RunDir is the journal folder of a run.
func RunDir(id string, o Options) string {
	o.defaults()
	return filepath.Join(o.runsDir(), id)
}
