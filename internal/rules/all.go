// Package rules holds every check nastune runs, one file per family. A
// check is a pure function from facts to findings; all.go lists the
// families explicitly so the registry is greppable and ordered.
//
// To add a rule: write its Meta (a stable ID that is never reused, a doc
// paragraph, primary references) and its check in the family's file, add
// it to the family's list, and give a fixture host under testdata/hosts a
// reason to fire it. The registry test enforces all of that.
package rules

import (
	"sort"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/rule"
)

// Families in the order reports show them.
var Families = []string{"health", "nic", "bond", "netstack", "netsec", "block", "md", "fs", "zfs", "crypto", "bus", "samba", "nfs", "vpn", "memory", "sysctl"}

// All returns every rule, grouped by family.
func All() []rule.Rule {
	var out []rule.Rule
	for _, fam := range families() {
		out = append(out, fam...)
	}
	return out
}

// families lists the rule lists in report order. Run walks them in place
// (All's copy of some 150 rules was the audit's largest table
// allocation).
func families() [][]rule.Rule {
	return [][]rule.Rule{healthRules, nicRules, nicDeepRules, bondRules, netstackRules, netsecRules, blockRules, diskRules, mdRules, fsRules, zfsRules, zfsScanRules, cryptoRules, busRules, sambaRules, sambaAuthRules, nfsRules, vpnRules, memoryRules, sysctlRules}
}

// ByID finds one rule.
func ByID(id string) (rule.Rule, bool) {
	for _, r := range All() {
		if r.ID == id {
			return r, true
		}
	}
	return rule.Rule{}, false
}

// Run applies every rule and returns the findings ordered by family, then
// severity (worst first), then rule and subject, so output is stable.
func Run(in rule.Input) []rule.Finding {
	if in.Paths == nil && in.Host != nil {
		in.Paths = append([]ceiling.Path{}, ceiling.Paths(in.Host)...)
	}
	out := []rule.Finding{}
	for _, fam := range families() {
		for _, r := range fam {
			out = append(out, r.Check(in)...)
		}
	}
	out = noteSickDisks(in.Host, out)
	famIndex := map[string]int{}
	for i, f := range Families {
		famIndex[f] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Family != b.Family {
			return famIndex[a.Family] < famIndex[b.Family]
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Subject < b.Subject
	})
	return out
}
