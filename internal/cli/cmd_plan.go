//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/netns"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/udiff"
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Root, "root", "/", "plan for a captured tree (apply refuses it)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or diff")
	f.StringArrayVar(&o.Only, "only", nil, "only changes for these rule IDs (comma-separated or repeated; nastune rules lists them)")
	f.StringVar(&o.RTT, "rtt", "500us", "round-trip time to size TCP buffers for")
	return cmd
}

// makePlan audits a root and plans the fixes, filtered by --only.
func makePlan(ctx context.Context, rootDir, rtt string, only []string) (plan.Plan, error) {
	d, err := parseRTTFlag(rtt)
	if err != nil {
		return plan.Plan{}, err
	}
	only = splitIDs(only)
	if err := checkRuleIDs("--only", only); err != nil {
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
	where := "" // a captured tree: its namespace is not this process's
	if root.IsLive() {
		ns, _ := netns.Self()
		where = ns.Where()
	}
	p := plan.MakeIn(rep.Facts, rep.Findings, where)
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
		// As diff(1): no file to change, no patch. The header alone
		// would make `patch -p1` fail ("Only garbage"), so it goes to
		// stderr then.
		// A patch stays byte-exact when it goes to a file or a pipe; on
		// a terminal it is filtered like every other output.
		// (IsTTY needs stdin on a terminal too: `plan -o diff </dev/null`
		// on a terminal must still be filtered.)
		out := env.Stdout
		if !env.IsTTY && !fileIsTerminal(render.RawWriter(env.Stdout)) {
			out = render.RawWriter(out)
		}
		if len(files) == 0 {
			out = env.Stderr
		}
		fmt.Fprint(out, planDiff(p, o.Root, vals, files))
		return nil
	}
	vals, files, err := safePreview(p, o.Root)
	if err != nil {
		return err
	}
	printPlan(env.Stdout, p)
	if len(p.Changes) > 0 {
		fmt.Fprintf(env.Stdout, "\n%s\n", stepCount(len(p.Changes), len(vals), len(files)))
	}
	return nil
}

// stepCount is the one sentence plan and apply both use to count: changes
// (what the findings ask for) and the steps carrying them out (runtime
// values written, files written; one file can hold several changes).
func stepCount(changes, values, files int) string {
	return fmt.Sprintf("%s: %s and %s.", plural(changes, "change", "changes"),
		plural(values, "runtime value", "runtime values"), plural(files, "file", "files"))
}

// planDiff is `plan -o diff`: a patch for `patch -p1` run from the root
// (/ or --root DIR). Runtime-only values cannot be patched; they are listed
// first as # comment lines, which patch skips as leading text.
func planDiff(p plan.Plan, root string, vals []apply.ValueChange, files []apply.FileChange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# nastune plan -o diff: %s\n", stepCount(len(p.Changes), len(vals), len(files)))
	if len(files) > 0 {
		fmt.Fprintf(&b, "# Apply the files with: patch -p1 -d %s < this-file (or nastune apply, which also\n", root)
		b.WriteString("# writes the runtime values below and keeps a journal for nastune undo).\n")
	}
	if len(vals) > 0 {
		b.WriteString("# Runtime values (not in the patch; nastune apply writes them):\n")
		for _, v := range vals {
			fmt.Fprintf(&b, "#   %s: %s -> %s\n", v.Path, orDash(strings.TrimSpace(v.From)), v.To)
		}
	}
	for _, f := range files {
		old := "a" + f.Path
		if !f.OldExisted {
			old = "/dev/null"
		}
		b.WriteString(udiff.Diff(udiff.File{OldName: old, NewName: "b" + f.Path, Old: f.Old, New: f.New}))
	}
	return b.String()
}
func printPlan(w io.Writer, p plan.Plan) {
	lost, runtimeOnly := 0, 0
	for _, c := range p.Changes {
		switch {
		case c.Persist == nil:
			runtimeOnly++
		case c.Persist.Overridden != "":
			lost++
		}
	}
	head := fmt.Sprintf("nastune plan: %s; runtime now, persistent across reboots", plural(len(p.Changes), "change", "changes"))
	if lost > 0 {
		head += fmt.Sprintf(" except %d that a later file overrides (marked NOT persistent)", lost)
	}
	if runtimeOnly > 0 {
		head += fmt.Sprintf(" (%d runtime only: see the notes)", runtimeOnly)
	}
	fmt.Fprintln(w, head)
	for i, c := range p.Changes {
		to := c.To
		if h := render.HumanSize(c.Target, c.To); h != "" {
			to += " (" + h + ")"
		}
		fmt.Fprintf(w, "\n  %d. %s %s: %s → %s   [%s]\n", i+1, c.Kind, c.Target, orDash(c.From), to, c.Finding)
		if c.Runtime != "" && c.Kind != "sysctl" && c.Runtime != c.Target {
			fmt.Fprintf(w, "     runtime: %s\n", c.Runtime)
		}
		if c.Persist == nil {
			fmt.Fprintf(w, "     persist: none, runtime only (see the notes)\n")
		}
		if ps := c.Persist; ps != nil {
			switch {
			case ps.Line != "" && ps.Overridden != "":
				fmt.Fprintf(w, "     persist: %s: %s — NOT persistent: %s is applied later at boot\n", ps.File, ps.Line, ps.Overridden)
			case ps.Line != "":
				fmt.Fprintf(w, "     persist: %s: %s\n", ps.File, ps.Line)
			case ps.Edit != nil && ps.Edit.Format == "sysctl":
				fmt.Fprintf(w, "     persist: comment out %s in %s (it would override %s at boot)\n", ps.Edit.Key, ps.File, plan.SysctlFile)
			case ps.Edit != nil:
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
