package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Confirmed runs (`nastune apply --confirm 120s`, as `netplan try`): a run
// that could cut the admin off (MTU, offloads, firewall-relevant sysctls)
// reverts on its own unless `nastune confirm` comes in time.
//
// The run folder holds confirm.json ({"deadline", "state"}), written with
// the first journal, before any change (Options.Confirm), and
// watchdog.lock. The process watching the run holds an flock on
// watchdog.lock for as long as it lives: apply from the journal's first
// write, then the watchdog (Watch, started detached in its own session,
// inheriting apply's open lock so there is no moment without it). A
// run's confirm state is derived from its journal and that lock, never
// from a pid (Status):
//
//   - an undone or rolled-back run is never pending (undone by hand
//     before its deadline, or reverted);
//   - "confirmed" is recorded by `nastune confirm` under the journal lock;
//   - before the deadline a run is pending, watched or not;
//   - after it, a run is being reverted while its lock is held, else it
//     is expired: nobody is reverting it.
//
// FinishExpired reverts expired runs, each on its own (one that cannot be
// reverted never stops the others). Every root start of apply, undo,
// confirm and tune calls it first, and so does the nastune-finish unit at
// boot and its timer every minute: a run whose watchdog was killed (OOM)
// or whose machine lost power is reverted within a minute of its deadline
// or at boot.

// Confirm states (ConfirmStatus.State).
const (
	ConfirmNone      = ""          // applied without --confirm
	ConfirmPending   = "pending"   // before the deadline
	ConfirmConfirmed = "confirmed" // kept by `nastune confirm`
	ConfirmReverted  = "reverted"  // undone because it was not confirmed in time
	ConfirmUndone    = "undone"    // undone (by hand, or rolled back), not pending
	ConfirmReverting = "reverting" // past the deadline; its watchdog holds the lock
	ConfirmExpired   = "expired"   // past the deadline, not undone, nobody on it
)

// ConfirmState is the content of a run's confirm.json: the deadline and
// what was recorded ("pending", "confirmed" or "reverted"; the journal's
// own state overrides it, see Status).
type ConfirmState struct {
	Deadline time.Time `json:"deadline"`
	State    string    `json:"state"`
	Error    string    `json:"error,omitempty"`
}

// ConfirmStatus is a run's confirm state as derived by Status.
type ConfirmStatus struct {
	ID       string    `json:"id"`
	State    string    `json:"state"`
	Deadline time.Time `json:"deadline"`
	// Watched: a living process holds the run's watchdog lock.
	Watched bool `json:"watched"`
	// Error is the last failed revert, or why confirm.json is unreadable.
	Error string `json:"error,omitempty"`
}

const watchLockName = "watchdog.lock"

func confirmPath(id string, o *Options) string { return filepath.Join(o.runsDir(), id, "confirm.json") }

func watchLockPath(id string, o *Options) string {
	return filepath.Join(o.runsDir(), id, watchLockName)
}

func writeConfirmAt(dir string, st ConfirmState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile("/", filepath.Join(dir, "confirm.json"), append(b, '\n'), &FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}, expect{any: true}, nil)
}

func writeConfirm(id string, st ConfirmState, o *Options) error {
	return writeConfirmAt(filepath.Join(o.runsDir(), id), st)
}

// ReadConfirm reads a run's confirm.json; ok is false for a run applied
// without --confirm.
func ReadConfirm(id string, o Options) (st ConfirmState, ok bool, err error) {
	o.defaults()
	if !validRunID(id) {
		return st, false, fmt.Errorf("%w: %q", ErrBadRunID, id)
	}
	fs, err := readFile("/", confirmPath(id, &o), true)
	if err != nil || !fs.Exists {
		return st, false, err
	}
	if err := json.Unmarshal(fs.Content, &st); err != nil {
		return st, true, fmt.Errorf("run %s: confirm.json: %w", id, err)
	}
	return st, true, nil
}

// Status derives run m's confirm state from its journal and its watchdog
// lock.
func Status(m Manifest, o Options) ConfirmStatus {
	o.defaults()
	return status(m, &o, lockHeld(watchLockPath(m.ID, &o)))
}

// status: watched says whether the run's watchdog lock is held.
func status(m Manifest, o *Options, watched bool) ConfirmStatus {
	cs := ConfirmStatus{ID: m.ID, Watched: watched}
	st, ok, err := ReadConfirm(m.ID, *o)
	if !ok {
		return cs
	}
	cs.Deadline = st.Deadline
	if st.Error != "" {
		cs.Error = shortError(errors.New(st.Error))
	}
	if err != nil {
		// No deadline to trust: past it, so that it is reverted, as
		// --confirm promised for a run nobody confirmed.
		cs.Error = shortError(err)
		st = ConfirmState{State: ConfirmPending}
	}
	switch {
	case m.State == StateUndone || m.State == StateRolledBack:
		cs.State = ConfirmUndone
		if st.State == ConfirmReverted {
			cs.State = ConfirmReverted
		}
	case st.State == ConfirmConfirmed:
		cs.State = ConfirmConfirmed
	case !st.Deadline.IsZero() && !o.Now().After(st.Deadline):
		cs.State = ConfirmPending
	case watched:
		cs.State = ConfirmReverting
	default:
		cs.State = ConfirmExpired
	}
	return cs
}

// Describe says in a sentence what the state means and what to do.
func (cs ConfirmStatus) Describe() string {
	at := DeadlineText(cs.Deadline)
	var s string
	switch cs.State {
	case ConfirmPending:
		if cs.Watched {
			s = fmt.Sprintf("waits for confirmation until %s; its watchdog reverts it then unless `nastune confirm %s`", at, cs.ID)
		} else {
			s = fmt.Sprintf("waits for confirmation until %s; no watchdog is running: nastune-finish.timer or the next nastune start reverts it after the deadline unless `nastune confirm %s`", at, cs.ID)
		}
	case ConfirmConfirmed:
		s = "confirmed"
	case ConfirmReverted:
		s = fmt.Sprintf("reverted: not confirmed by %s", at)
	case ConfirmUndone:
		s = "undone, no confirmation pending"
	case ConfirmReverting:
		s = fmt.Sprintf("not confirmed by %s: its watchdog is reverting it", at)
	case ConfirmExpired:
		s = fmt.Sprintf("not confirmed by %s and still applied (no watchdog is running): `nastune undo --expired` reverts it", at)
	default:
		return "applied without --confirm"
	}
	if cs.Error != "" && cs.State != ConfirmConfirmed && cs.State != ConfirmReverted && cs.State != ConfirmUndone {
		s += " (last attempt: " + cs.Error + ")"
	}
	return s
}

// DeadlineText is a deadline as every message about a run shows it: the
// local time alone for a deadline today, else the date and time ("until
// 14:00:00" for a run given --confirm 48h would read as today).
func DeadlineText(t time.Time) string {
	l, now := t.Local(), time.Now().Local()
	if y, m, d := l.Date(); t.IsZero() || y == now.Year() && m == now.Month() && d == now.Day() {
		return l.Format("15:04:05")
	}
	return l.Format("2006-01-02 15:04:05")
}

// Statuses returns the confirm state of every run applied with --confirm.
// It only reads (audit uses it).
func Statuses(o Options) ([]ConfirmStatus, error) {
	o.defaults()
	runs, err := list(&o)
	if err != nil {
		return nil, err
	}
	var out []ConfirmStatus
	for _, m := range runs {
		if cs := status(m, &o, lockHeld(watchLockPath(m.ID, &o))); cs.State != ConfirmNone {
			out = append(out, cs)
		}
	}
	return out, nil
}

// ArmConfirm marks an applied run as reverting at deadline unless
// confirmed. (apply --confirm arms the run with its first journal write,
// Options.Confirm; this arms one afterwards.)
func ArmConfirm(id string, deadline time.Time, o Options) error {
	o.defaults()
	if !validRunID(id) {
		return fmt.Errorf("%w: %q", ErrBadRunID, id)
	}
	l, err := lock(&o)
	if err != nil {
		return err
	}
	defer l.unlock()
	return writeConfirm(id, ConfirmState{Deadline: deadline.UTC(), State: ConfirmPending}, &o)
}

// ErrNotPending: the run has no confirmation pending (confirmed already,
// reverted, or applied without --confirm).
var ErrNotPending = errors.New("no confirmation pending")

// ErrTooLate: the deadline passed before the confirmation.
var ErrTooLate = errors.New("too late")

// Confirm keeps a run applied with --confirm ("" for the newest pending).
func Confirm(id string, o Options) (string, error) {
	o.defaults()
	if id != "" && !validRunID(id) {
		return "", fmt.Errorf("%w: %q", ErrBadRunID, id)
	}
	// Wait: a watchdog reverting the run holds the lock; the answer is
	// what the journal says once it is done.
	o.Wait = true
	l, err := lock(&o)
	if err != nil {
		return "", err
	}
	defer l.unlock()
	runs, err := list(&o)
	if err != nil {
		return "", err
	}
	var cs ConfirmStatus
	var m Manifest
	for i := len(runs) - 1; i >= 0; i-- {
		if (id == "" || runs[i].ID == id) && runs[i].State != StateDamaged {
			cs = Status(runs[i], o)
			if id != "" || cs.State == ConfirmPending {
				id, m = runs[i].ID, runs[i]
				break
			}
		}
	}
	if id == "" {
		return "", fmt.Errorf("%w: no run waits for confirmation", ErrNotPending)
	}
	if cs.ID == "" {
		return id, fmt.Errorf("%w: run %s is not recorded or is damaged", ErrNotPending, id)
	}
	switch cs.State {
	case ConfirmPending:
	case ConfirmNone:
		return id, fmt.Errorf("%w for run %s (applied without --confirm)", ErrNotPending, id)
	case ConfirmReverting, ConfirmExpired:
		return id, fmt.Errorf("%w: run %s %s", ErrTooLate, id, cs.Describe())
	default:
		return id, fmt.Errorf("%w for run %s (%s)", ErrNotPending, id, cs.Describe())
	}
	if m.State != StateComplete {
		// Killed while applying (or an undo of it was): what is live is
		// not what was asked for, so it is not kept.
		return id, fmt.Errorf("%w: run %s is %s, not complete: it still reverts at its deadline (nastune undo %s reverts it now)", ErrNotPending, id, m.State, id)
	}
	st, _, err := ReadConfirm(id, o)
	if err != nil {
		return id, err
	}
	st.State, st.Error = ConfirmConfirmed, ""
	o.at("confirm")
	if err := writeConfirm(id, st, &o); err != nil {
		return id, err
	}
	o.at("confirmed")
	return id, nil
}

// heldWatch are the watchdog locks this process took in Apply (run ID →
// fd), handed to the watchdog by StartWatchdog or used by Watch.
var heldWatch = struct {
	sync.Mutex
	fds map[string]int
}{fds: map[string]int{}}

func keepWatch(id string, fd int) {
	heldWatch.Lock()
	heldWatch.fds[id] = fd
	heldWatch.Unlock()
}

func takeWatch(id string) (int, bool) {
	heldWatch.Lock()
	defer heldWatch.Unlock()
	fd, ok := heldWatch.fds[id]
	delete(heldWatch.fds, id)
	return fd, ok
}

// ReleaseWatch closes the watchdog lock Apply took for run id in this
// process (after StartWatchdog failed, say): the run is then unwatched.
func ReleaseWatch(id string) {
	if fd, ok := takeWatch(id); ok {
		unix.Close(fd)
	}
}

// InheritedWatchFD is the descriptor on which StartWatchdog hands the
// run's lock to the watchdog process.
const InheritedWatchFD = 3

// acquireWatch gets the run's watchdog lock for Watch: the one Apply took
// in this process, the one inherited from apply, or a fresh one.
func acquireWatch(id string, o *Options) (int, error) {
	if fd, ok := takeWatch(id); ok {
		return fd, nil
	}
	p := watchLockPath(id, o)
	var want, got unix.Stat_t
	if unix.Stat(p, &want) == nil && unix.Fstat(InheritedWatchFD, &got) == nil && got.Dev == want.Dev && got.Ino == want.Ino {
		// The open file apply locked: flock on it again keeps its lock.
		if err := unix.Flock(InheritedWatchFD, unix.LOCK_EX|unix.LOCK_NB); err == nil {
			unix.CloseOnExec(InheritedWatchFD)
			return InheritedWatchFD, nil
		}
	}
	if _, err := os.Lstat(filepath.Dir(p)); err != nil {
		return -1, fmt.Errorf("run %s: %w", id, err)
	}
	fd, held, err := tryFlock(p, true)
	if err != nil {
		return -1, err
	}
	if held {
		return -1, fmt.Errorf("run %s already has a watchdog (it holds %s)", id, p)
	}
	return fd, nil
}

// Watch waits for the confirmation of run id and undoes the run when the
// deadline passes first, or at once when ctx is cancelled (the watchdog
// was told to stop) before a confirmation. It holds the run's watchdog
// lock until it returns, and returns whether it reverted the run.
func Watch(ctx context.Context, id string, poll time.Duration, o Options) (bool, error) {
	o.defaults()
	if !validRunID(id) {
		return false, fmt.Errorf("%w: %q", ErrBadRunID, id)
	}
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	fd, err := acquireWatch(id, &o)
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	for {
		m, err := readManifest(filepath.Join(o.runsDir(), id))
		if err != nil {
			return false, fmt.Errorf("run %s: %w", id, err)
		}
		cs := status(*m, &o, true)
		switch cs.State {
		case ConfirmPending:
		case ConfirmReverting, ConfirmExpired:
			return revertLocked(id, &o)
		default:
			return false, nil
		}
		select {
		case <-ctx.Done():
			// Stopped (SIGTERM: logind ending the SSH session's scope
			// with KillUserProcesses, a shutdown) while still pending:
			// nobody is left to confirm, so revert now rather than leave
			// the change live past its deadline with no watchdog.
			if r, err := revertLocked(id, &o); err != nil || r {
				return r, err
			}
			return false, ctx.Err()
		case <-time.After(min(poll, time.Until(cs.Deadline)+time.Millisecond)):
		}
	}
}

// revertLocked undoes run id unless it was confirmed or undone meanwhile;
// the caller holds the run's watchdog lock. The check and the undo are
// one step under the journal lock, so a `nastune confirm` is either
// before (the run stays) or after (it says the run was reverted).
func revertLocked(id string, o *Options) (bool, error) {
	oo := Options{Root: o.Root, StateDir: o.StateDir, Now: o.Now, Wait: true, pause: o.pause}
	l, err := lock(&oo)
	if err != nil {
		return false, err
	}
	defer l.unlock()
	m, err := readManifest(filepath.Join(oo.runsDir(), id))
	if err != nil {
		return false, fmt.Errorf("run %s is damaged: %w; nothing restored (remove its journal with: nastune undo --discard %s)", id, err, id)
	}
	if cs := status(*m, &oo, true); cs.State == ConfirmConfirmed || cs.State == ConfirmUndone || cs.State == ConfirmReverted || cs.State == ConfirmNone {
		return false, nil
	}
	st, _, _ := ReadConfirm(id, oo)
	oo.at("revert")
	_, uerr := undoLocked(id, &oo)
	if uerr != nil {
		// Left as it is (expired once its lock is gone): the next
		// nastune start or the timer tries again, and says why.
		st.State, st.Error = ConfirmPending, shortError(uerr)
		_ = writeConfirm(id, st, &oo)
		return false, uerr
	}
	oo.at("reverted")
	st.State, st.Error = ConfirmReverted, ""
	_ = writeConfirm(id, st, &oo) // the journal already says undone
	return true, nil
}

// FinishExpired reverts every expired run (its deadline passed, it was
// neither confirmed nor undone, and no process holds its watchdog lock),
// each on its own: a run that cannot be reverted is reported in the error
// and the others are still reverted. It returns the IDs reverted.
func FinishExpired(o Options) ([]string, error) {
	o.defaults()
	runs, err := list(&o)
	if err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for _, r := range runs {
		if r.State == StateUndone || r.State == StateRolledBack {
			continue
		}
		if cs := status(r, &o, lockHeld(watchLockPath(r.ID, &o))); cs.State != ConfirmExpired {
			continue
		}
		fd, held, err := tryFlock(watchLockPath(r.ID, &o), true)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s was not confirmed in time: %w", r.ID, err))
			continue
		}
		if held {
			continue // its watchdog came back, or another nastune is on it
		}
		reverted, err := revertLocked(r.ID, &o)
		unix.Close(fd)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s was not confirmed in time; reverting it: %w", r.ID, err))
			continue
		}
		if reverted {
			done = append(done, r.ID)
		}
	}
	return done, errors.Join(errs...)
}

// StartWatchdog starts `nastune confirm --watch ID` (this binary),
// detached in a new session with no terminal, so it outlives the SSH
// session that ran apply and reverts the run at its deadline. The
// watchdog lock Apply holds for the run is handed over (inherited as
// descriptor 3), so the run is never unwatched in between.
func StartWatchdog(id string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, "confirm", "--watch", id)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	fd, held := takeWatch(id)
	if held {
		f := os.NewFile(uintptr(fd), watchLockName)
		defer f.Close() // the child keeps its own copy
		cmd.ExtraFiles = []*os.File{f}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// shortError is the first line of err, printable and at most 300 bytes:
// what confirm.json keeps of a failed revert (a conflict's diff quotes
// files other people wrote; `nastune undo RUN` shows it in full).
func shortError(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	line = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, line)
	if len(line) > 300 {
		line = strings.ToValidUTF8(line[:300], "") + "…"
	}
	return line
}
