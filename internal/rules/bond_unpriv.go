package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// What an unprivileged reader of /proc/net/bonding still learns about an
// 802.3ad bond. drivers/net/bonding/bond_procfs.c prints the "Active
// Aggregator Info" block and the per-slave actor/partner LACPDU details
// only to CAP_NET_ADMIN, but every slave's "Aggregator ID" and "Actor/
// Partner Churn State" to anyone. Slaves in different aggregators mean the
// switch is not running LACP with this bond as one group: only one
// aggregator carries traffic and the other links sit idle. A partner churn
// state of "churned" (802.1AX churn detection: the partner did not reach
// sync in time) supports that, but alone it proves nothing now: the
// churn machine of bond_3ad.c keeps AD_CHURN until the port is
// re-initialised, and real files show "churned" on a slave whose partner
// is in sync inside a 2-port active aggregator. So churn is evidence that
// goes with split aggregators, never a finding of its own.

// bondUpSlaves are the slaves whose MII status is not "down".
func bondUpSlaves(b facts.Interface) []facts.BondSlave {
	var out []facts.BondSlave
	for _, s := range b.Bond.Slaves {
		if s.MIIStatus != "down" {
			out = append(out, s)
		}
	}
	return out
}

// bondChurned lists the up slaves whose partner churn state is churned.
func bondChurned(b facts.Interface) []facts.BondSlave {
	var out []facts.BondSlave
	for _, s := range bondUpSlaves(b) {
		if strings.EqualFold(s.PartnerChurn, "churned") {
			out = append(out, s)
		}
	}
	return out
}

func bondChurnEvidence(b facts.Interface, ss []facts.BondSlave) []rule.Evidence {
	var ev []rule.Evidence
	for _, s := range ss {
		ev = append(ev, rule.Ev(bondSource(b), fmt.Sprintf("%s Partner Churn State: %s", s.Name, s.PartnerChurn)))
	}
	return ev
}

// aggSplitUnprivileged is bond-aggregator-split for a file read without
// the active aggregator block: the up slaves' Aggregator IDs differ.
func aggSplitUnprivileged(b facts.Interface) []rule.Finding {
	groups := map[int][]string{}
	var ev []rule.Evidence
	for _, s := range bondUpSlaves(b) {
		if s.AggregatorID == 0 {
			continue
		}
		groups[s.AggregatorID] = append(groups[s.AggregatorID], s.Name)
		ev = append(ev, rule.Ev(bondSource(b), fmt.Sprintf("%s Aggregator ID: %d", s.Name, s.AggregatorID)))
	}
	if len(groups) < 2 {
		return nil
	}
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		parts = append(parts, fmt.Sprintf("%s in aggregator %d", strings.Join(groups[id], ", "), id))
	}
	why := fmt.Sprintf("The slaves of %s sit in %d different aggregators (%s): 802.3ad sends traffic over one aggregator only, so the links of the others are idle; the switch is not running LACP with these ports as one group.",
		b.Name, len(groups), strings.Join(parts, "; "))
	churned := bondChurned(b)
	if len(churned) > 0 {
		why += fmt.Sprintf(" The partner churn state is churned on %d of them (the switch never reached LACP sync).", len(churned))
		ev = append(ev, bondChurnEvidence(b, churned)...)
	}
	why += " Which aggregator is active is shown only to root."
	f := metaAggSplit.New(b.Name, why, ev...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: "put the switch ports of " + slaveNames(b) + " in one LACP (802.3ad) group with equal speed and duplex",
		Basis:  "per-slave aggregator IDs differ (readable without root)"}
	return []rule.Finding{f}
}
