package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/render"
)

type planOptions struct {
	Root   string
	Output string
	Only   []string
	RTT    string
}

func newPlanCmd(env *Env) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show the changes that would fix the audit's findings (read-only)",
		Long: "plan audits this machine (or --root DIR) and lists, for each finding nastune can fix, the runtime\n" +
			"value it would write and how it would persist: /etc/sysctl.d/90-nastune.conf, udev rules in\n" +
			"/etc/udev/rules.d/90-nastune.rules matched by serial, WWN or MAC, or a minimal edit of a config\n" +
			"file. -o diff shows a unified diff of every file that would change. Nothing is written.\n\n" + exitHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Root, "root", "/", "plan for a captured tree (apply refuses it)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or diff")
	f.StringArrayVar(&o.Only, "only", nil, "only changes for this finding ID (repeatable)")
	f.StringVar(&o.RTT, "rtt", "500us", "round-trip time to size TCP buffers for")
	return cmd
}

// makePlan audits a root and plans the fixes, filtered by --only.
func makePlan(ctx context.Context, rootDir, rtt string, only []string) (plan.Plan, error) {
	d, err := parseRTTFlag(rtt)
	if err != nil {
		return plan.Plan{}, err
	}
	root, err := openRoot(rootDir)
	if err != nil {
		return plan.Plan{}, err
	}
	defer root.Close()
	rep := audit.Run(ctx, root, audit.Options{RTT: d})
	if err := ctx.Err(); err != nil {
		return plan.Plan{}, err // interrupted: never plan from partial facts
	}
	p := plan.Make(rep.Facts, rep.Findings)
	if len(only) > 0 {
		var keep []plan.Change
		for _, c := range p.Changes {
			if slices.Contains(only, c.Finding) {
				keep = append(keep, c)
			}
		}
		p.Changes = keep
		var man []plan.Manual
		for _, m := range p.Manual {
			if slices.Contains(only, m.Finding) {
				man = append(man, m)
			}
		}
		p.Manual = man
	}
	if p.Changes == nil {
		p.Changes = []plan.Change{}
	}
	if p.Manual == nil {
		p.Manual = []plan.Manual{}
	}
	return p, nil
}

func runPlan(ctx context.Context, o *planOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "diff"); err != nil {
		return err
	}
	p, err := makePlan(ctx, o.Root, o.RTT, o.Only)
	if err != nil {
		return err
	}
	switch o.Output {
	case "json":
		return render.JSON(env.Stdout, p)
	case "diff":
		vals, files, err := safePreview(p, o.Root)
		if err != nil {
			return err
		}
		for _, v := range vals {
			fmt.Fprintf(env.Stdout, "# runtime %s: %s -> %s\n", v.Path, v.From, v.To)
		}
		for _, f := range files {
			old := "a" + f.Path
			if !f.OldExisted {
				old = "/dev/null"
			}
			fmt.Fprint(env.Stdout, unifiedDiff(old, "b"+f.Path, string(f.Old), string(f.New)))
		}
		return nil
	}
	printPlan(env.Stdout, p)
	return nil
}

func printPlan(w io.Writer, p plan.Plan) {
	fmt.Fprintf(w, "nastune plan: %d change(s); runtime now, persistent across reboots\n", len(p.Changes))
	for i, c := range p.Changes {
		fmt.Fprintf(w, "\n  %d. %s %s: %s → %s   [%s]\n", i+1, c.Kind, c.Target, orDash(c.From), c.To, c.Finding)
		if c.Runtime != "" && c.Kind != "sysctl" && c.Runtime != c.Target {
			fmt.Fprintf(w, "     runtime: %s\n", c.Runtime)
		}
		if ps := c.Persist; ps != nil {
			if ps.Line != "" {
				fmt.Fprintf(w, "     persist: %s: %s\n", ps.File, ps.Line)
			} else if ps.Edit != nil {
				fmt.Fprintf(w, "     persist: edit %s [%s] %s = %s\n", ps.File, ps.Edit.Section, ps.Edit.Key, ps.Edit.Value)
			}
		}
		for _, n := range c.Needs {
			fmt.Fprintf(w, "     then: %s\n", n)
		}
	}
	if len(p.Manual) > 0 {
		fmt.Fprintf(w, "\nNot changed by apply (do by hand):\n")
		for _, m := range p.Manual {
			fmt.Fprintf(w, "  - %s %s: %s\n", m.Finding, m.Subject, m.Action)
		}
	}
	if len(p.Notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n")
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// unifiedDiff is a one-hunk unified diff: the changed region between the
// common head and tail (nastune's edits touch one region per file).
func unifiedDiff(a, b, old, cur string) string {
	ol, nl := splitLines(old), splitLines(cur)
	head := 0
	for head < len(ol) && head < len(nl) && ol[head] == nl[head] {
		head++
	}
	tail := 0
	for tail < len(ol)-head && tail < len(nl)-head && ol[len(ol)-1-tail] == nl[len(nl)-1-tail] {
		tail++
	}
	const ctx = 3
	s := max(0, head-ctx)
	oe, ne := min(len(ol), len(ol)-tail+ctx), min(len(nl), len(nl)-tail+ctx)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n@@ -%d,%d +%d,%d @@\n", a, b, s+1, oe-s, s+1, ne-s)
	for _, l := range ol[s:head] {
		sb.WriteString(" " + l + "\n")
	}
	for _, l := range ol[head : len(ol)-tail] {
		sb.WriteString("-" + l + "\n")
	}
	for _, l := range nl[head : len(nl)-tail] {
		sb.WriteString("+" + l + "\n")
	}
	for _, l := range ol[len(ol)-tail : oe] {
		sb.WriteString(" " + l + "\n")
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
