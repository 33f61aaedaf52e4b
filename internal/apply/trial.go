package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/plan"
)

// Trials are what `nastune tune` tries: one runtime value, applied as its
// own journaled run (change ID TrialChange, nothing persisted) and
// reverted with Undo when the measurement says it does not pay. A trial a
// crash left live is an ordinary complete run: `nastune undo` reverts it,
// and the next nastune start reverts every trial once no tune holds the
// tune lock (OpenTrials, TuneLock).

// TrialChange is the change ID of every trial step.
const TrialChange = "tune-trial"

// Trial writes value to the runtime attribute path as one journaled run
// and reads it back. ErrNothingToDo: the attribute already holds value.
//
// A scheduler trial also records the device's nr_requests before it
// (queue/nr_requests of the same queue, in the run folder as
// trial-nr_requests): the kernel resets nr_requests to the new
// scheduler's default on every switch, the revert too, so undoing the
// scheduler alone would leave a hand-set queue depth changed. Revert
// writes it back.
func Trial(path, value string, o Options) (*Manifest, error) {
	from, _ := ReadValue(o, path)
	p := plan.Plan{Changes: []plan.Change{{ID: TrialChange, Kind: "sysfs", Target: path, From: from, To: value, Runtime: path}}}
	if strings.HasPrefix(path, "/proc/sys/") {
		p.Changes[0].Kind = "sysctl"
	}
	nrPath, nrBefore := schedSibling(path), ""
	if nrPath != "" {
		o2 := o
		o2.defaults()
		nrBefore, _ = readValue(o2.Root, nrPath)
	}
	m, err := Apply(p, o)
	if err != nil || nrBefore == "" {
		return m, err
	}
	if werr := writeNew(filepath.Join(RunDir(m.ID, o), trialNrFile), nrBefore+"\n"); werr != nil {
		return m, fmt.Errorf("run %s: recording nr_requests before the scheduler trial: %w (undo it with: nastune undo %s)", m.ID, werr, m.ID)
	}
	return m, nil
}

const trialNrFile = "trial-nr_requests"

// TrialEdit sets [section] key = value in a config file (smb.conf through
// confsyntax's smb.conf writer, nfs.conf through its ini writer; format as
// in plan.Edit) as one journaled trial run, validated like any apply
// (Options.Validate: testparm for smb.conf). The service is not told:
// the caller reloads or restarts it. Revert undoes it byte-exactly.
func TrialEdit(file string, e plan.Edit, o Options) (*Manifest, error) {
	p := plan.Plan{Changes: []plan.Change{{ID: TrialChange, Kind: "config", Target: file + " " + e.Key, To: e.Value,
		Persist: &plan.Persist{File: file, Edit: &e}}}}
	return Apply(p, o)
}

// schedSibling is queue/nr_requests beside a queue/scheduler path ("" for
// any other path).
func schedSibling(path string) string {
	if !strings.HasPrefix(path, "/sys/") || filepath.Base(path) != "scheduler" || filepath.Base(filepath.Dir(path)) != "queue" {
		return ""
	}
	return filepath.Join(filepath.Dir(path), "nr_requests")
}

// writeNew creates a file that must not exist, without following links.
func writeNew(p, content string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Revert undoes a trial run and returns the value read back afterwards
// ("" for a config file trial).
func Revert(id string, o Options) (string, error) {
	m, err := Undo(id, o)
	if err != nil {
		return "", err
	}
	o.defaults()
	if len(m.Steps) == 0 || m.Steps[0].Kind == "file" {
		return "", nil // a config trial (TrialEdit): the caller reads its value
	}
	if nrPath := schedSibling(m.Steps[0].Path); nrPath != "" {
		if err := restoreNr(id, nrPath, o); err != nil {
			return "", err
		}
	}
	return readValue(o.Root, m.Steps[0].Path)
}

// restoreNr writes back the nr_requests a scheduler trial recorded, when
// the scheduler switches (the trial's and its revert's) changed it.
func restoreNr(id, nrPath string, o Options) error {
	f, err := os.OpenFile(filepath.Join(RunDir(id, o), trialNrFile), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 32)
	n, _ := f.Read(buf)
	want := strings.TrimSpace(string(buf[:n]))
	if want == "" || strings.Trim(want, "0123456789") != "" {
		return fmt.Errorf("run %s: %s holds %q, not a queue depth", id, trialNrFile, want)
	}
	if cur, err := readValue(o.Root, nrPath); err == nil && cur == want {
		return nil
	}
	if err := writeValue(o.Root, nrPath, want); err != nil {
		return fmt.Errorf("run %s: the scheduler is back, but restoring %s to %s (the switch reset it): %w", id, nrPath, want, err)
	}
	return nil
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

// OpenTrials lists the trial runs still live (not undone or rolled back).
// Whether a tune is running is not read from their pid (reused by another
// program, a zombie, a kernel thread) but from the tune lock (TuneLock):
// trials are orphans once no process holds it.
func OpenTrials(o Options) ([]Manifest, error) {
	runs, err := List(o)
	if err != nil {
		return nil, err
	}
	var open []Manifest
	for _, m := range runs {
		if IsTrial(m) && m.State != StateUndone && m.State != StateRolledBack {
			open = append(open, m)
		}
	}
	return open, nil
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

// TuneLock is held by a running `nastune tune` for its whole run (the
// journal lock is held only while one run is applied or undone): a
// second tune refuses, also during the first one's baseline and between
// its trials, when no trial of it is live for OpenTrials to see. Two tunes
// at once read each other's trial values as the devices' own and revert
// over each other. The lock is an flock on StateDir/tune.lock: the kernel
// drops it when the process dies, kill -9 too.
//
// The lock is also how the next nastune start knows a tune's trials are
// orphans (OpenTrials): only a living tune holds it.
func TuneLock(o Options) (unlock func(), err error) {
	o.defaults()
	dir := filepath.Dir(o.runsDir())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	p := filepath.Join(dir, "tune.lock")
	fd, err := unix.Open(p, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tune lock %s: %w", p, err)
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		pid := tuneLockHolder(fd)
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			// The pid is what the holder wrote: shown, never trusted.
			if pid > 0 {
				return nil, fmt.Errorf("%w (pid %d): one tune at a time", ErrTuneRunning, pid)
			}
			return nil, fmt.Errorf("%w: one tune at a time", ErrTuneRunning)
		}
		return nil, fmt.Errorf("locking %s: %w", p, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := unix.Ftruncate(fd, 0); err == nil {
		_, _ = unix.Pwrite(fd, pid, 0)
	}
	return func() { unix.Close(fd) }, nil
}

// ErrTuneRunning: another process holds the tune lock.
var ErrTuneRunning = errors.New("another nastune tune is running")

func tuneLockHolder(fd int) int {
	buf := make([]byte, 16)
	n, _ := unix.Pread(fd, buf, 0)
	if n <= 0 {
		return 0
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return v
}
