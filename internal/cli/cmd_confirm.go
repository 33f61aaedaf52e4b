package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/tune"
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
			"process in its own session; after a reboot the next nastune apply or tune reverts a\n" +
			"run whose deadline passed. Without RUN_ID it confirms the newest pending run.\n\n" + exitHelp,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			if watch {
				return runWatchdog(cmd.Context(), id)
			}
			id, err := apply.Confirm(id, apply.Options{})
			if errors.Is(err, apply.ErrNotPending) || errors.Is(err, apply.ErrBadRunID) {
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

// armConfirm arms the deadline of run id and starts its watchdog,
// detached in a new session with no terminal.
func armConfirm(env *Env, id string, d time.Duration) error {
	deadline := time.Now().Add(d)
	if err := apply.ArmConfirm(id, deadline, apply.Options{}); err != nil {
		return err
	}
	if err := apply.StartWatchdog(id); err != nil {
		return fmt.Errorf("starting the watchdog: %w (the run stays applied: nastune undo %s reverts it)", err, id)
	}
	fmt.Fprintf(env.Stdout, "run %s reverts at %s unless confirmed: nastune confirm %s\n", id, deadline.Format(time.TimeOnly), id)
	return nil
}

// finishExpired reverts runs whose confirmation deadline passed with no
// watchdog left (after a reboot), and trials a killed tune left live;
// apply and tune call it first.
func finishExpired(env *Env) {
	if os.Geteuid() != 0 {
		return
	}
	if _, err := os.Stat("/var/lib/nastune/runs"); err != nil {
		return
	}
	done, err := apply.FinishExpired(apply.Options{})
	for _, id := range done {
		fmt.Fprintf(env.Stderr, "nastune: run %s was not confirmed before its deadline: reverted\n", id)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "nastune: warning: %v\n", err)
	}
	// A running tune's trials are its own: FinishOrphans leaves them (and
	// says so in an error, which only tune itself acts on).
	if ids, err := tune.FinishOrphans(apply.Options{}); err == nil && len(ids) > 0 {
		fmt.Fprintf(env.Stderr, "nastune: reverted %d trial run(s) a killed tune left live: %s\n", len(ids), strings.Join(ids, ", "))
	}
}
