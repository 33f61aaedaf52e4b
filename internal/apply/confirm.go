package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Confirmed runs (`nastune apply --confirm 120s`, as `netplan try`): a run
// that could cut the admin off (MTU, offloads, firewall-relevant sysctls)
// reverts on its own unless `nastune confirm` comes in time. The run
// folder holds confirm.json ({"deadline", "state"}); a watchdog process
// (Watch, started detached in its own session so a dying SSH session does
// not take it along) polls it and undoes the run at the deadline. A
// watchdog that died too (a reboot) is replaced by the next nastune start:
// FinishExpired undoes every run still pending after its deadline.

// Confirm states.
const (
	ConfirmPending   = "pending"
	ConfirmConfirmed = "confirmed"
	ConfirmReverted  = "reverted"
)

// ConfirmState is the content of a run's confirm.json.
type ConfirmState struct {
	Deadline time.Time `json:"deadline"`
	State    string    `json:"state"`
	Error    string    `json:"error,omitempty"`
}

func confirmPath(id string, o *Options) string { return filepath.Join(o.runsDir(), id, "confirm.json") }

func writeConfirm(id string, st ConfirmState, o *Options) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile("/", confirmPath(id, o), append(b, '\n'), &FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}, expect{any: true}, nil)
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
		return st, false, fmt.Errorf("run %s: confirm.json: %w", id, err)
	}
	return st, true, nil
}

// ArmConfirm marks a run as reverting at deadline unless confirmed.
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

// Confirm keeps a run applied with --confirm ("" for the newest pending).
func Confirm(id string, o Options) (string, error) {
	o.defaults()
	l, err := lock(&o)
	if err != nil {
		return "", err
	}
	defer l.unlock()
	if id == "" {
		runs, err := list(&o)
		if err != nil {
			return "", err
		}
		for i := len(runs) - 1; i >= 0 && id == ""; i-- {
			if st, ok, _ := ReadConfirm(runs[i].ID, o); ok && st.State == ConfirmPending {
				id = runs[i].ID
			}
		}
		if id == "" {
			return "", fmt.Errorf("%w: no run waits for confirmation", ErrNotPending)
		}
	}
	st, ok, err := ReadConfirm(id, o)
	if err != nil {
		return id, err
	}
	if !ok || st.State != ConfirmPending {
		state := "applied without --confirm"
		if ok {
			state = st.State
		}
		return id, fmt.Errorf("%w for run %s (%s)", ErrNotPending, id, state)
	}
	if o.Now().After(st.Deadline) {
		return id, fmt.Errorf("run %s: too late, the deadline %s has passed (it is being reverted)", id, st.Deadline.Local().Format(time.TimeOnly))
	}
	st.State = ConfirmConfirmed
	return id, writeConfirm(id, st, &o)
}

// Watch waits for the confirmation of run id and undoes the run when the
// deadline passes first, or at once when ctx is cancelled (the watchdog
// was told to stop) before a confirmation. It returns whether it reverted
// the run.
func Watch(ctx context.Context, id string, poll time.Duration, o Options) (bool, error) {
	o.defaults()
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	for {
		st, ok, err := ReadConfirm(id, o)
		if err != nil {
			return false, err
		}
		if !ok || st.State != ConfirmPending {
			return false, nil
		}
		if o.Now().After(st.Deadline) {
			return revertUnconfirmed(id, st, o)
		}
		select {
		case <-ctx.Done():
			// Stopped (SIGTERM: logind ending the SSH session's scope
			// with KillUserProcesses, a shutdown) while still pending:
			// nobody is left to confirm, so revert now rather than leave
			// the change live past its deadline with no watchdog.
			if r, err := revertUnconfirmed(id, st, o); err != nil || r {
				return r, err
			}
			return false, ctx.Err()
		case <-time.After(min(poll, time.Until(st.Deadline)+time.Millisecond)):
		}
	}
}

func revertUnconfirmed(id string, st ConfirmState, o Options) (bool, error) {
	// The run's lock serialises this with a late `nastune confirm`: the
	// state is read again under it by Undo's caller below.
	o.Wait = true
	l, err := lock(&o)
	if err != nil {
		return false, err
	}
	cur, ok, err := ReadConfirm(id, o)
	l.unlock()
	if err != nil || !ok || cur.State != ConfirmPending {
		return false, err
	}
	_, uerr := Undo(id, Options{Root: o.Root, StateDir: o.StateDir, Wait: true, Now: o.Now})
	st.State = ConfirmReverted
	if uerr != nil {
		// Left pending: the next apply or tune tries again and says why.
		st.State, st.Error = ConfirmPending, uerr.Error()
	}
	l, err = lock(&o)
	if err == nil {
		_ = writeConfirm(id, st, &o)
		l.unlock()
	}
	return uerr == nil, uerr
}

// FinishExpired undoes every run whose confirmation deadline passed while
// no watchdog was there to do it (a reboot); it returns their IDs.
func FinishExpired(o Options) ([]string, error) {
	o.defaults()
	runs, err := List(o)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, r := range runs {
		st, ok, err := ReadConfirm(r.ID, o)
		if err != nil || !ok || st.State != ConfirmPending || !o.Now().After(st.Deadline.Add(5*time.Second)) {
			continue
		}
		if _, err := revertUnconfirmed(r.ID, st, o); err != nil {
			return done, fmt.Errorf("run %s was not confirmed in time; reverting it: %w", r.ID, err)
		}
		done = append(done, r.ID)
	}
	return done, nil
}

// StartWatchdog starts `nastune confirm --watch ID` (this binary),
// detached in a new session with no terminal, so it outlives the SSH
// session that ran apply and reverts the run at its deadline.
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
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
