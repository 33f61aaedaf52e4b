//go:build linux

package cli

// Rule IDs for --only/--skip of the Linux-only commands (audit, plan,
// apply, report), with their completion.

import (
	"fmt"
	"slices"

	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
	"github.com/spf13/cobra"
)

// ruleIDs are every rule ID, for validation and completion.
func ruleIDs() []string {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.Meta.ID)
	}
	return ids
}

// checkRuleIDs refuses IDs no rule has, naming the closest ones: a typo in
// --only must not give a silently empty result.
func checkRuleIDs(flag string, ids []string) error {
	if len(ids) == 0 {
		return nil // every audit without --only/--skip: no rule list to build
	}
	all := ruleIDs()
	for _, id := range ids {
		if slices.Contains(all, id) {
			continue
		}
		hint := "`nastune rules` lists the IDs"
		if near := closest(id, all, 3); len(near) > 0 {
			hint = "did you mean " + orList(near) + "? " + hint
		}
		return &UsageError{Err: fmt.Errorf("%s: no rule with ID %q", flag, id), Hint: hint}
	}
	return nil
}

// completeRuleIDs completes --only/--skip values, also after a comma
// (--only nic-half-duplex,mem-<TAB>).
func completeRuleIDs(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var ids, titles []string
	for _, r := range rules.All() {
		ids = append(ids, r.Meta.ID)
		titles = append(titles, r.Meta.Title)
	}
	return completeList(ids, titles, toComplete)
}

// filterFindings keeps the findings --only names (all without it) and
// drops those --skip names.
func filterFindings(fs []rule.Finding, only, skip []string) []rule.Finding {
	if len(only) == 0 && len(skip) == 0 {
		return fs
	}
	out := []rule.Finding{}
	for _, f := range fs {
		if (len(only) == 0 || slices.Contains(only, f.ID)) && !slices.Contains(skip, f.ID) {
			out = append(out, f)
		}
	}
	return out
}
