//go:build linux

package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

type rulesOptions struct {
	Output string
}

func newRulesCmd(env *Env) *cobra.Command {
	o := &rulesOptions{}
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List every rule, or explain one",
		Long:  "rules lists every check nastune runs with its stable ID, or with an ID prints its documentation\nand primary references.\n\n" + exitHelp,
		Args:  argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			return runRules(o, args, env)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

func runRules(o *rulesOptions, args []string, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	all := rules.All()
	metas := make([]rule.Meta, 0, len(all))
	for _, r := range all {
		metas = append(metas, r.Meta)
	}
	if len(args) == 1 {
		r, ok := rules.ByID(args[0])
		if !ok {
			return checkRuleIDs("rules", args)
		}
		if o.Output == "json" {
			return render.JSON(env.Stdout, r.Meta)
		}
		m := r.Meta
		fmt.Fprintf(env.Stdout, "%s (%s, %s, since %s)\n%s\n\n%s\n\nReferences:\n", m.ID, m.Family, m.Severity, m.Since, m.Title, wrap(m.Doc, 78))
		for _, ref := range m.Refs {
			fmt.Fprintf(env.Stdout, "  %s\n", ref)
		}
		return nil
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, metas)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFAMILY\tSEVERITY\tTITLE")
	for _, m := range metas {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Family, m.Severity, m.Title)
	}
	return tw.Flush()
}
