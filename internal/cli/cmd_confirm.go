//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
)

// `nastune confirm [RUN]` keeps a run applied with `apply --confirm`;
// `nastune confirm --watch RUN` is the watchdog apply starts detached.
func newConfirmCmd(env *Env) *cobra.Command {
	var watch bool
	cmd := &cobra.Command{
		Use:   "confirm [RUN_ID]",
		Short: "Keep a run applied with --confirm (else it reverts at its deadline)",
		Long: "`nastune apply --confirm 120s` applies as usual, then reverts the run on its own unless\n" +
			"`nastune confirm` comes within 120 s: a change that cut you off (MTU, offloads, a firewall\n" +
			"sysctl) undoes itself, also when your SSH session died. The revert is done by a watchdog\n" +
			"process in its own session; when it is gone (killed, a reboot) the nastune-finish unit (at boot\n" +
			"and every minute) or the next nastune start reverts a run whose deadline passed. Without\n" +
			"RUN_ID it confirms the newest pending run.\n\n" + exitHelp,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			if watch {
				return runWatchdog(cmd.Context(), id)
			}
			if os.Geteuid() != 0 {
				return usagef("run it as root: sudo nastune confirm", "confirm writes the journal in /var/lib/nastune, which needs root")
			}
			// An expired run is reverted first: confirm then says so,
			// rather than that something else is reverting it.
			finishExpired(env)
			id, err := apply.Confirm(id, apply.Options{})
			if errors.Is(err, apply.ErrNotPending) || errors.Is(err, apply.ErrBadRunID) || errors.Is(err, apply.ErrTooLate) {
				return &UsageError{Err: err, Hint: "`nastune undo --list` shows the runs"}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "confirmed run %s: it stays applied (undo with: nastune undo %s)\n", id, id)
			return nil
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "run the watchdog of RUN_ID (started by apply --confirm)")
	_ = cmd.Flags().MarkHidden("watch")
	return cmd
}

func runWatchdog(ctx context.Context, id string) error {
	if id == "" {
		return usagef("", "--watch needs the run ID")
	}
	// A hangup of the session that started apply is no reason to stop.
	signal.Ignore(syscall.SIGHUP)
	_, err := apply.Watch(ctx, id, 250*time.Millisecond, apply.Options{})
	return err
}

// startWatchdog starts the watchdog of run id (armed by apply with
// Options.Confirm), detached in a new session with no terminal; it takes
// over the run's watchdog lock from this process.
func startWatchdog(env *Env, id string) error {
	st, _, err := apply.ReadConfirm(id, apply.Options{})
	if err != nil {
		return err
	}
	if err := apply.StartWatchdog(id); err != nil {
		apply.ReleaseWatch(id)
		return fmt.Errorf("starting the watchdog: %w (the run stays applied until its deadline %s; then nastune-finish.timer or the next nastune start reverts it; nastune undo %s reverts it now)",
			err, apply.DeadlineText(st.Deadline), id)
	}
	fmt.Fprintf(env.Stdout, "run %s reverts at %s unless confirmed: nastune confirm %s\n", id, apply.DeadlineText(st.Deadline), id)
	return nil
}

// finishExpired reverts the runs whose confirmation deadline passed with
// nobody reverting them (their watchdog was killed, a reboot), and the
// trials a killed tune left live; every root start of apply, undo,
// confirm and tune calls it first. It reports false when something could
// not be reverted (said on stderr).
func finishExpired(env *Env) bool {
	_, ok := finishExpiredRuns(env, true)
	return ok
}

// finishExpiredOnly is finishExpired for the nastune-finish unit: it
// starts no watchdog (systemd ends a oneshot service's processes).
func finishExpiredOnly(env *Env) bool {
	_, ok := finishExpiredRuns(env, false)
	return ok
}

// finishExpiredIDs is finishExpired; it returns the runs it reverted
// (expired runs and a killed tune's trials).
func finishExpiredIDs(env *Env) []string {
	ids, _ := finishExpiredRuns(env, true)
	return ids
}

func finishExpiredRuns(env *Env, rewatch bool) ([]string, bool) {
	if os.Geteuid() != 0 {
		return nil, true
	}
	if _, err := os.Stat("/var/lib/nastune/runs"); err != nil {
		return nil, true
	}
	ok := true
	done, err := apply.FinishExpired(apply.Options{})
	for _, id := range done {
		fmt.Fprintf(env.Stderr, "nastune: run %s was not confirmed before its deadline: reverted\n", id)
	}
	if err != nil {
		ok = false
		fmt.Fprintf(env.Stderr, "nastune: warning: %v\n", err)
	}
	if rewatch {
		// A pending run whose watchdog was killed gets a new one, so it
		// is reverted at its deadline, not up to a minute later.
		runs, _ := apply.List(apply.Options{})
		for _, r := range runs {
			if cs := apply.Status(r, apply.Options{}); cs.State == apply.ConfirmPending && !cs.Watched {
				if err := apply.StartWatchdog(r.ID); err == nil {
					fmt.Fprintf(env.Stderr, "nastune: run %s had lost its watchdog: started a new one (it reverts the run at %s unless confirmed)\n",
						r.ID, apply.DeadlineText(cs.Deadline))
				}
			}
		}
	}
	// A running tune's trials are its own: FinishOrphans leaves them
	// while a tune holds the tune lock.
	ids, err := finishTuneOrphans(env, apply.Options{})
	if err != nil && !errors.Is(err, apply.ErrTuneRunning) {
		ok = false
		fmt.Fprintf(env.Stderr, "nastune: warning: %v\n", err)
	}
	return append(done, ids...), ok
}
