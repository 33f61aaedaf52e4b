//go:build linux

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/render"
)

type applyOptions struct {
	Only   []string
	Yes    bool
	Reload bool
	Root   string
	RTT    string
	Wait   bool
	// Confirm > 0: revert unless `nastune confirm` comes within it.
	Confirm time.Duration
}

func newApplyCmd(env *Env) *cobra.Command {
	o := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Carry out the plan: runtime values now, persisted in files nastune owns; journaled and undoable",
		Long: "apply audits this machine, plans the fixes (see `nastune plan`) and carries them out. Before the\n" +
			"first change it writes a journal to /var/lib/nastune/runs/RUN_ID (before-values and file backups);\n" +
			"a failing step rolls the run back, and `nastune undo` restores everything later. Config edits are\n" +
			"validated first (testparm for smb.conf). On a terminal it shows the plan and asks; elsewhere it\n" +
			"needs --yes. Services are reloaded only with --reload. Needs root.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runApply(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Only, "only", nil, "only changes for this finding ID (repeatable)")
	f.BoolVar(&o.Yes, "yes", false, "apply without asking")
	f.BoolVar(&o.Reload, "reload", false, "reload the services whose configuration changed (else printed as next steps)")
	f.StringVar(&o.Root, "root", "/", "refused: a captured tree is not a live system")
	f.StringVar(&o.RTT, "rtt", "500us", "round-trip time to size TCP buffers for")
	f.BoolVar(&o.Wait, "wait", false, "wait for another running apply or undo to finish (then plan again)")
	f.DurationVar(&o.Confirm, "confirm", 0, "revert on its own unless `nastune confirm` comes within this time (e.g. 120s), also when the session dies")
	return cmd
}

func parseRTTFlag(s string) (time.Duration, error) {
	d, err := calc.ParseRTT(s)
	if err != nil {
		return 0, &UsageError{Err: fmt.Errorf("--rtt: %w", err), Hint: "e.g. --rtt 500us for a LAN, --rtt 20ms for a VPN peer"}
	}
	return d, nil
}

// maxConfirm bounds --confirm: a window is for the session that applies the
// change; a week covers a weekend away and keeps a typo (--confirm 2000h)
// from arming a revert months later.
const maxConfirm = 7 * 24 * time.Hour

func runApply(ctx context.Context, o *applyOptions, env *Env) error {
	if o.Confirm < 0 {
		return usagef("give the window as a positive duration, e.g. --confirm 120s, or leave --confirm out", "--confirm %s: a negative window would apply with nothing to revert it", o.Confirm)
	}
	if o.Confirm > maxConfirm {
		return usagef("a confirm window is for checking a change now (e.g. --confirm 10m); without --confirm the run stays until `nastune undo`", "--confirm %s: at most %s", o.Confirm, maxConfirm)
	}
	if o.Root != "/" {
		return usagef("use `nastune plan --root DIR` to see what would change there", "apply refuses --root %s: a captured tree is not a live system", o.Root)
	}
	if os.Geteuid() != 0 {
		return usagef("run it as root: sudo nastune apply", "apply writes /proc/sys, /sys and /etc, which needs root")
	}
	if o.Confirm > 0 {
		// The watchdog is armed right after the run is applied: a hangup
		// of the SSH session in between must not kill apply and leave the
		// change live with nothing to revert it.
		signal.Ignore(syscall.SIGHUP)
	}
	if !o.Yes && !env.IsTTY {
		return usagef("review with `nastune plan`, then run `nastune apply --yes`", "nothing applied: not a terminal and no --yes")
	}
	finishExpired(env)
	p, err := makePlan(ctx, "/", o.RTT, o.Only)
	if err != nil {
		return err
	}
	if len(p.Changes) == 0 {
		fmt.Fprintln(env.Stdout, "nothing to apply: the audit finds nothing nastune can change automatically")
		return nil
	}
	if !o.Yes {
		printPlan(env.Stdout, p)
		q := fmt.Sprintf("these %d changes", len(p.Changes))
		if len(p.Changes) == 1 {
			q = "this change"
		}
		fmt.Fprintf(env.Stdout, "\nApply %s? [y/N] ", q)
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(env.Stdout, "nothing applied")
			return nil
		}
	}
	opts := apply.Options{Validate: func(path string, content []byte) error {
		err := apply.ValidateConfigs(ctx, path, content)
		if errors.Is(err, apply.ErrNotValidated) {
			fmt.Fprintf(env.Stderr, "nastune: warning: %s not validated: %v\n", path, err)
			return nil
		}
		return err
	}}
	opts.Wait, opts.Context = o.Wait, ctx
	opts.Waiting = func(pid int) {
		fmt.Fprintf(env.Stderr, "nastune: another nastune apply is running (pid %d); waiting for it\n", pid)
	}
	// Plan again once the lock is held: what was planned before waiting
	// for another run may be stale (only the changes confirmed are kept).
	opts.Replan = func() (plan.Plan, error) { return makePlan(ctx, "/", o.RTT, o.Only) }
	opts.Confirm = o.Confirm
	m, err := apply.Apply(p, opts)
	if errors.Is(err, apply.ErrNothingToDo) {
		fmt.Fprintln(env.Stdout, "nothing to apply: the system already matches the plan")
		return nil
	}
	if errors.Is(err, apply.ErrIncomplete) {
		return &UsageError{Err: err, Hint: "`nastune undo --list` shows the runs"}
	}
	var busy *apply.BusyError
	if errors.As(err, &busy) {
		return &UsageError{Err: err, Hint: "nastune apply --wait waits for it"}
	}
	if err != nil {
		return &failedError{Err: err} // the run failed (and was rolled back): not a usage error
	}
	values, files := 0, 0
	for _, st := range m.Steps {
		if st.Kind == "file" {
			files++
		} else {
			values++
		}
	}
	fmt.Fprintf(env.Stdout, "applied run %s: %s Undo with: nastune undo %s\n", m.ID, stepCount(len(p.Changes), values, files), m.ID)
	if o.Confirm > 0 {
		if err := startWatchdog(env, m.ID); err != nil {
			return err
		}
	}
	for _, c := range p.Changes {
		for _, n := range c.Needs {
			if o.Reload && strings.HasPrefix(n, "reload smbd") {
				if err := apply.ReloadSamba(); err != nil {
					fmt.Fprintf(env.Stderr, "nastune: warning: reload smbd: %v\n", err)
				}
				continue
			}
			fmt.Fprintf(env.Stdout, "next: %s\n", n)
		}
	}
	return nil
}

type undoOptions struct {
	List    bool
	Force   bool
	Wait    bool
	Expired bool
	Discard string
	Output  string
}

func newUndoCmd(env *Env) *cobra.Command {
	o := &undoOptions{}
	cmd := &cobra.Command{
		Use:   "undo [RUN_ID]",
		Short: "Restore the runtime values and files of an apply run (default: the last one)",
		Long: "undo restores, byte for byte, every value and file an apply run changed, from its journal, and\n" +
			"removes the files nastune created. A file edited by someone else since the apply is merged (nastune's\n" +
			"change reversed, theirs kept) when the edits touch different lines; otherwise undo changes nothing and\n" +
			"shows the diff (--force restores anyway). --list shows the runs; --discard RUN_ID removes the journal\n" +
			"of a damaged run without restoring anything. --expired only reverts the runs applied with --confirm\n" +
			"whose deadline passed unconfirmed (every root start of nastune does that first; the\n" +
			"nastune-finish unit runs it at boot and every minute).\n\n" + exitHelp,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputFormat(o.Output, "text", "json"); err != nil {
				return err
			}
			if o.List {
				runs, err := apply.List(apply.Options{})
				if err != nil {
					return err
				}
				if o.Output == "json" {
					return undoListJSON(env, runs)
				}
				writeRunList(env.Stdout, runs)
				return nil
			}
			if o.Output != "text" {
				return usagef("nastune undo --list -o json", "-o %s: only --list has a JSON form", o.Output)
			}
			if os.Geteuid() != 0 {
				return usagef("run it as root: sudo nastune undo", "undo writes /proc/sys, /sys and /etc, which needs root")
			}
			if o.Expired {
				if len(args) > 0 || o.Discard != "" || o.Force {
					return usagef("run nastune undo --expired alone", "--expired takes no run ID, --force or --discard")
				}
				// The nastune-finish unit (at boot, and its timer):
				// exit status 1 when a run could not be reverted.
				if !finishExpiredOnly(env) {
					return errors.New("some expired runs could not be reverted (nastune undo --list shows them)")
				}
				return nil
			}
			if reverted := finishExpiredIDs(env); len(reverted) > 0 && len(args) == 0 && o.Discard == "" {
				// `nastune undo` meant the newest run (an expired one,
				// a killed tune's trial); it was just reverted, and
				// undoing the one before it too would be a surprise.
				fmt.Fprintln(env.Stdout, "nothing else undone (name a run to undo another: nastune undo --list)")
				return nil
			}
			opts := apply.Options{Force: o.Force, Wait: o.Wait, Context: cmd.Context(), Waiting: func(pid int) {
				fmt.Fprintf(env.Stderr, "nastune: another nastune apply is running (pid %d); waiting for it\n", pid)
			}}
			if o.Discard != "" {
				if err := apply.Discard(o.Discard, opts); errors.Is(err, apply.ErrBadRunID) {
					return &UsageError{Err: err, Hint: "nastune undo --list shows the run IDs"}
				} else if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "discarded the journal of run %s (nothing restored)\n", o.Discard)
				return nil
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			m, err := apply.Undo(id, opts)
			if errors.Is(err, apply.ErrBadRunID) {
				return &UsageError{Err: err, Hint: "nastune undo --list shows the run IDs"}
			}
			var busy *apply.BusyError
			if errors.As(err, &busy) {
				return &UsageError{Err: err, Hint: "nastune undo --wait waits for it"}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "undone run %s: %s restored\n", m.ID, plural(len(m.Steps), "step", "steps"))
			smbdNote(env.Stdout, sambaFiles(*m))
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.List, "list", false, "list the recorded runs")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format of --list: text or json")
	cmd.Flags().BoolVar(&o.Force, "force", false, "restore files and values changed since the apply, losing those later edits")
	cmd.Flags().BoolVar(&o.Wait, "wait", false, "wait for another running apply or undo to finish")
	cmd.Flags().BoolVar(&o.Expired, "expired", false, "only revert the runs applied with --confirm whose deadline passed unconfirmed (the nastune-finish unit runs this at boot and every minute)")
	cmd.Flags().StringVar(&o.Discard, "discard", "", "remove the journal of run `RUN_ID` (a damaged one) without restoring anything")
	return cmd
}

// undoRun is one run in `nastune undo --list -o json` (docs/json.md).
type undoRun struct {
	ID       string   `json:"id"`
	State    string   `json:"state"`
	Started  string   `json:"started"`
	Finished string   `json:"finished,omitempty"`
	Changes  []string `json:"changes"`
	Steps    int      `json:"steps"`
	Error    string   `json:"error,omitempty"`
	// Tune names the tune run this run belongs to (its trials and the
	// run that persists what it kept share it).
	Tune string `json:"tune,omitempty"`
	// Confirm is absent for a run applied without --confirm.
	Confirm *undoConfirm `json:"confirm,omitempty"`
}

type undoConfirm struct {
	State    string `json:"state"`
	Deadline string `json:"deadline"`
	Watched  bool   `json:"watched"`
	Text     string `json:"text"`
}

func undoListJSON(env *Env, runs []apply.Manifest) error {
	out := []undoRun{}
	for _, r := range runs {
		u := undoRun{ID: r.ID, State: r.State, Started: r.Started, Finished: r.Finished, Changes: r.Changes, Steps: len(r.Steps), Error: r.Error, Tune: r.Tune}
		if u.Changes == nil {
			u.Changes = []string{}
		}
		if r.State != apply.StateDamaged {
			if cs := apply.Status(r, apply.Options{}); cs.State != apply.ConfirmNone {
				u.Confirm = &undoConfirm{State: cs.State, Deadline: cs.Deadline.UTC().Format(time.RFC3339), Watched: cs.Watched, Text: cs.Describe()}
			}
		}
		out = append(out, u)
	}
	return render.JSON(env.Stdout, out)
}

// writeRunList is `undo --list`: one line per run, a run that did not
// finish with its steps and what to do. A tune's runs (its trials and the
// run that persists what it kept) are one entry, at its newest run; a
// trial still live is shown on its own (it needs an undo).
func writeRunList(w io.Writer, runs []apply.Manifest) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "no runs recorded")
	}
	trials, newest := map[string]int{}, map[string]string{}
	for _, r := range runs {
		if r.Tune != "" {
			newest[r.Tune] = r.ID
			if apply.IsTrial(r) {
				trials[r.Tune]++
			}
		}
	}
	for _, r := range runs {
		done := r.State == apply.StateUndone || r.State == apply.StateRolledBack
		if r.Tune != "" && r.ID != newest[r.Tune] && apply.IsTrial(r) && done {
			continue
		}
		if r.Tune != "" && r.ID == newest[r.Tune] && apply.IsTrial(r) && done {
			fmt.Fprintf(w, "%s  %-16s %s: %d trial(s), each reverted; nothing kept\n", r.ID, "tune", r.Tune, trials[r.Tune])
			continue
		}
		if r.Tune != "" && r.ID == newest[r.Tune] && !apply.IsTrial(r) && (done || r.State == apply.StateComplete) {
			fmt.Fprintf(w, "%s  %-16s %d step(s)  %s: kept %s (after %d trial(s), each reverted)\n", r.ID, r.State, len(r.Steps), r.Tune, strings.Join(r.Changes, "; "), trials[r.Tune])
			continue
		}
		if r.State == apply.StateDamaged {
			fmt.Fprintf(w, "%s  %-16s %s (nastune undo --discard %s)\n", r.ID, r.State, r.Error, r.ID)
			continue
		}
		fmt.Fprintf(w, "%s  %-16s %d step(s)  %s\n", r.ID, r.State, len(r.Steps), strings.Join(r.Changes, "; "))
		if cs := apply.Status(r, apply.Options{}); cs.State != apply.ConfirmNone {
			fmt.Fprintf(w, "    confirm: %s\n", cs.Describe())
		}
		if r.State == apply.StateComplete || r.State == apply.StateUndone || r.State == apply.StateRolledBack {
			continue
		}
		// An unfinished run: what each step is at, and what to do.
		for _, s := range r.Steps {
			fmt.Fprintf(w, "    %-15s %s %s\n", s.State, s.Kind, s.Path)
		}
		if r.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", r.Error)
		}
		fmt.Fprintf(w, "    finish with: nastune undo %s\n", r.ID)
	}
}
