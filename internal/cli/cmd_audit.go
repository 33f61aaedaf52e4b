//go:build linux

package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rule"
)

type auditOptions struct {
	Root    string
	From    string
	Bench   []string
	Output  string
	FailOn  string
	Verbose bool
	Color   string
	RTT     string
	Only    []string
	Skip    []string
}

func addAuditFlags(cmd *cobra.Command, o *auditOptions) {
	f := cmd.Flags()
	f.StringVar(&o.Root, "root", "/", "audit a captured machine tree (DIR/proc, DIR/sys, DIR/etc …) instead of this machine")
	f.StringVar(&o.From, "from", "", "audit a snapshot written by nastune snapshot -o FILE")
	f.StringArrayVar(&o.Bench, "bench", nil, "compare a result saved by bench disk --save or bench share --save FILE with the ceilings (repeatable; /var/lib/nastune/bench/*.json are read anyway)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json, html (one self-contained page) or prom (node_exporter textfile)")
	f.StringVar(&o.FailOn, "fail-on", "never", "exit 1 when a finding is at least this severe: info, warn, crit or never")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "explain why each finding matters, what values were computed from, references and sources not collected")
	f.StringVar(&o.Color, "color", "auto", "colour text output: auto, always or never (NO_COLOR is honoured)")
	f.StringVar(&o.RTT, "rtt", "500us", "round-trip time to size TCP buffers for (LAN 500us; a VPN or WAN peer: 20ms …)")
	f.StringSliceVar(&o.Only, "only", nil, "report only these rule IDs (comma-separated or repeated; nastune rules lists them)")
	f.StringSliceVar(&o.Skip, "skip", nil, "leave out these rule IDs (comma-separated or repeated)")
}

func newAuditCmd(env *Env) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Diagnose this machine (or a captured tree) read-only",
		Long: "audit reads /proc, /sys and /etc, runs every rule and prints a verdict first (data safety, the\n" +
			"layer that limits file service, at most three things to do with their commands), then the\n" +
			"findings worst first, grouped by area.\n" +
			"It never changes anything. With --root DIR it reads a captured tree instead and runs no\n" +
			"command. Each finding names its evidence (file and value), the reason it matters and a\n" +
			"recommendation computed from this machine's facts.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAudit(cmd.Context(), o, env)
		},
	}
	addAuditFlags(cmd, o)
	return cmd
}

func runAudit(ctx context.Context, o *auditOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "prom", "html"); err != nil {
		return err
	}
	failOn, failNever, err := parseFailOn(o.FailOn)
	if err != nil {
		return err
	}
	color, err := useColor(o.Color, env)
	if err != nil {
		return err
	}
	rtt, err := parseRTTFlag(o.RTT)
	if err != nil {
		return err
	}
	if err := checkRuleIDs("--only", o.Only); err != nil {
		return err
	}
	if err := checkRuleIDs("--skip", o.Skip); err != nil {
		return err
	}
	h, captured, err := collect(ctx, o.Root, o.From)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // interrupted: never a report from partial facts
	}
	env.complete = true
	for _, f := range o.Bench {
		b, err := hostfs.ReadRegular(f, hostfs.MaxFileSize)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--bench: %w", err), Hint: "give a file saved with nastune bench disk --save FILE or bench share --save FILE"}
		}
		m, sm, err := probe.ParseBenchResult(f, b)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--bench %s: %w", f, err), Hint: "give a file saved with nastune bench disk --save FILE or bench share --save FILE"}
		}
		h.Bench = append(h.Bench, m...)
		h.ShareBench = append(h.ShareBench, sm...)
	}
	rep := audit.FromFacts(h, audit.Options{RTT: rtt})
	rep.Findings = filterFindings(rep.Findings, o.Only, o.Skip)
	if o.Root == "/" && o.From == "" {
		rep.ExpiredRuns = expiredRuns(apply.Options{})
	}
	rep.Captured = captured
	rep.Summarize()
	switch o.Output {
	case "json":
		err = render.JSON(env.Stdout, rep)
	case "prom":
		err = render.Prom(env.Stdout, rep, render.PromOptions{Now: time.Now(), Version: Version})
	case "html":
		err = render.HTMLAudit(env.Stdout, rep, render.HTMLOptions{Now: time.Now(), Version: Version})
	default:
		err = render.Text(env.Stdout, rep, render.Options{Color: color, Verbose: o.Verbose})
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if worst, any := rep.Worst(); any && !failNever && worst >= failOn {
		return errFindings
	}
	return nil
}

func parseFailOn(s string) (rule.Severity, bool, error) {
	if s == "never" || s == "" {
		return 0, true, nil
	}
	v, err := rule.ParseSeverity(s)
	if err != nil {
		return 0, false, &UsageError{Err: fmt.Errorf("--fail-on: %w", err), Hint: "use --fail-on info, warn, crit or never"}
	}
	return v, false, nil
}

// expiredRuns reads the journal (read-only: audit never reverts) for runs
// applied with --confirm whose deadline passed with nothing reverting
// them. Unreadable (not root, no journal): none.
func expiredRuns(o apply.Options) []audit.ExpiredRun {
	sts, err := apply.Statuses(o)
	if err != nil {
		return nil
	}
	var out []audit.ExpiredRun
	for _, cs := range sts {
		if cs.State != apply.ConfirmExpired {
			continue
		}
		msg := strings.TrimSuffix(cs.Describe(), ": `nastune undo --expired` reverts it")
		out = append(out, audit.ExpiredRun{ID: cs.ID, Deadline: cs.Deadline, Message: msg,
			Fix: "`sudo nastune undo --expired` reverts it (so does any nastune apply, undo, confirm or tune run as root, first)"})
	}
	return out
}
