//go:build !linux

package cli

import "github.com/spf13/cobra"

// Outside Linux no command takes rule IDs (--only, --skip): the audit's
// rules are not built in (help_rules.go).

func ruleIDs() []string { return nil }

func checkRuleIDs(string, []string) error { return nil }

func completeRuleIDs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}
