package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// What an unprivileged reader of /proc/net/bonding still learns about an
// 802.3ad bond. drivers/net/bonding/bond_procfs.c prints the "Active
// Aggregator Info" block and the per-slave actor/partner LACPDU details
// only to CAP_NET_ADMIN, but every slave's "Aggregator ID" and "Actor/
// Partner Churn State" to anyone. Slaves in different aggregators, or a
// partner churn state of "churned" (802.1AX churn detection: the partner
// did not reach sync within the churn detection time), mean the switch is
// not running LACP with this bond as one group: only one aggregator carries
// traffic and the other links sit idle.

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
	ids := make([]int, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var parts []string
	for _, id := range ids {
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

var metaBondChurned = rule.Meta{
	ID: "bond-partner-churned", Family: "bond", Severity: rule.Warn, Since: "0.9.0",
	Title: "802.3ad partner in churned state",
	Doc: "Every slave of an 802.3ad bond runs LACP churn detection (IEEE 802.1AX): when the partner " +
		"does not reach the in-sync state within the churn detection time (60 s), the slave's " +
		"Partner Churn State becomes `churned`. The switch port then does not take part in LACP " +
		"with this bond (not configured as an LACP group, a static LAG, or a different group), and " +
		"the link carries no aggregated traffic. bond_procfs.c prints the churn states and the " +
		"per-slave Aggregator ID to any user, so this is known without root.",
	Refs: []string{refBonding + "#802-3ad", "https://github.com/torvalds/linux/blob/master/drivers/net/bonding/bond_procfs.c"},
}

// checkBondChurned reports churned partners that no other bond finding
// already explains: with root and an all-zero partner MAC,
// bond-lacp-not-negotiated says it; with split aggregators (readable
// without root), bond-aggregator-split carries the churn evidence.
func checkBondChurned(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		if b.Bond.Mode != "802.3ad" {
			continue
		}
		churned := bondChurned(b)
		if len(churned) == 0 {
			continue
		}
		if b.Bond.PartnerInfo && (b.Bond.NoActiveAggregator || b.Bond.PartnerMAC == "" || b.Bond.PartnerMAC == "00:00:00:00:00:00") {
			continue
		}
		if !b.Bond.PartnerInfo && len(aggSplitUnprivileged(b)) > 0 {
			continue
		}
		var names []string
		for _, s := range churned {
			names = append(names, s.Name)
		}
		f := metaBondChurned.New(b.Name, fmt.Sprintf(
			"%s (802.3ad): the LACP partner of %s is churned: the switch port did not reach LACP sync, so the link is not part of the aggregate.",
			b.Name, strings.Join(names, ", ")), bondChurnEvidence(b, churned)...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "configure the switch ports of " + slaveNames(b) + " as one LACP (802.3ad) group",
			Basis:  "Partner Churn State: churned"}
		out = append(out, f)
	}
	return out
}
