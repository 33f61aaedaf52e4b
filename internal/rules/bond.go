package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Bonding: KNOWLEDGE §2. Facts from /proc/net/bonding/BOND.
var bondRules = []rule.Rule{
	{Meta: metaLACPDown, Check: checkLACPDown},
	{Meta: metaBondSlaveDown, Check: checkBondSlaveDown},
	{Meta: metaBondFlapping, Check: checkBondFlapping},
	{Meta: metaAggSplit, Check: checkAggSplit},
	{Meta: metaHashLayer2, Check: checkHashLayer2},
	{Meta: metaBondSingleStream, Check: checkBondSingleStream},
	{Meta: metaBondMTU, Check: checkBondMTU},
}

const refBonding = "https://docs.kernel.org/networking/bonding.html"

func bondSource(b facts.Interface) string { return "/proc/net/bonding/" + b.Name }

func bonds(h *facts.Host) []facts.Interface {
	var out []facts.Interface
	for _, i := range h.Interfaces {
		if i.Bond != nil {
			out = append(out, i)
		}
	}
	return out
}

var metaLACPDown = rule.Meta{
	ID: "bond-lacp-not-negotiated", Family: "bond", Severity: rule.Warn, Since: "0.2.0",
	Title: "802.3ad bond without an LACP partner",
	Doc: "An 802.3ad (LACP) bond forms aggregators with the switch by exchanging LACP frames. A " +
		"partner MAC of 00:00:00:00:00:00 in /proc/net/bonding means no LACP frame came back: the " +
		"switch ports are not configured as an LACP group (or as a static LAG, which needs " +
		"balance-xor instead). The bond then runs on one link at best. Since Linux 4.x the " +
		"Active Aggregator Info block is printed only to root (CAP_NET_ADMIN); read without it, " +
		"the partner is not collected and nothing is concluded.",
	Refs: []string{refBonding + "#802-3ad", refBonding},
}

func checkLACPDown(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		// Without the root-only partner block nothing is known
		// (probe records it as not collected).
		if b.Bond.Mode != "802.3ad" || !b.Bond.PartnerInfo || (b.Bond.PartnerMAC != "" && b.Bond.PartnerMAC != "00:00:00:00:00:00") {
			continue
		}
		if b.Bond.NoActiveAggregator && !anySlaveUp(b) {
			continue // no link at all: bond-slave-down says so
		}
		ev := rule.Ev(bondSource(b), "Partner Mac Address: "+orNone(b.Bond.PartnerMAC))
		if b.Bond.NoActiveAggregator {
			ev = rule.Ev(bondSource(b), "has no active aggregator")
		}
		f := metaLACPDown.New(b.Name, fmt.Sprintf(
			"%s runs 802.3ad but its active aggregator has no partner: the switch did not answer LACP, so the %d links do not form one aggregate.",
			b.Name, len(b.Bond.Slaves)), ev)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "configure the switch ports of " + slaveNames(b) + " as one LACP (802.3ad) group",
			Basis:  "partner MAC all zeros"}
		out = append(out, f)
	}
	return out
}

func anySlaveUp(b facts.Interface) bool {
	for _, s := range b.Bond.Slaves {
		if s.MIIStatus == "up" {
			return true
		}
	}
	return false
}

var metaBondSlaveDown = rule.Meta{
	ID: "bond-slave-down", Family: "bond", Severity: rule.Warn, Since: "0.6.0",
	Title: "Bond slave without link",
	Doc: "A slave whose MII Status is not up carries no traffic: an active-backup bond has no " +
		"backup left, a load-balancing bond less bandwidth. MII status is the carrier of that NIC " +
		"port: an unplugged or broken cable, a NIC port or a switch port that is down or disabled. " +
		"The file does not say which end; check the link LEDs, `ethtool IF` and the switch port.",
	Refs: []string{refBonding, refSysfsNet},
}

func checkBondSlaveDown(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		for _, s := range b.Bond.Slaves {
			if s.MIIStatus == "" || s.MIIStatus == "up" {
				continue
			}
			why := fmt.Sprintf("%s in %s has no link (MII Status: %s): the bond runs on %d of %d links",
				s.Name, b.Name, s.MIIStatus, upSlaves(b), len(b.Bond.Slaves))
			if b.Bond.Mode == "active-backup" {
				why += "; if the active link fails there is nothing to fail over to"
			}
			f := metaBondSlaveDown.New(s.Name, why+".",
				rule.Ev(bondSource(b), "Slave Interface: "+s.Name), rule.Ev(bondSource(b), "MII Status: "+s.MIIStatus))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("check the cable and both ends of %s's link (link LEDs, `ethtool %s`, the switch port's state)", s.Name, s.Name),
				Basis:  "slave MII Status " + s.MIIStatus}
			out = append(out, f)
		}
	}
	return out
}

func upSlaves(b facts.Interface) int {
	n := 0
	for _, s := range b.Bond.Slaves {
		if s.MIIStatus == "up" {
			n++
		}
	}
	return n
}

// flapCount is the Link Failure Count from which a link is called flapping:
// a handful are cable changes and switch reboots, tens are not.
const flapCount = 10

var metaBondFlapping = rule.Meta{
	ID: "bond-link-flapping", Family: "bond", Severity: rule.Warn, Since: "0.6.0",
	Title: "Bond slave lost its link many times",
	Doc: "Link Failure Count counts how often the bonding driver saw a slave's link go down " +
		"since the bond was created. A few are unplugged cables or switch reboots; tens or " +
		"thousands mean the link flaps: a bad cable or connector, a failing switch port or NIC " +
		"port, or autonegotiation fighting a forced speed. Every flap drops or reorders traffic " +
		"on that link and, in active-backup, fails the bond over.",
	Refs: []string{refBonding, refEthtool},
}

func checkBondFlapping(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		for _, s := range b.Bond.Slaves {
			if s.LinkFailures < flapCount {
				continue
			}
			f := metaBondFlapping.New(s.Name, fmt.Sprintf(
				"%s in %s lost its link %d times since the bond came up: a flapping cable or switch port is likely.",
				s.Name, b.Name, s.LinkFailures),
				rule.Ev(bondSource(b), "Slave Interface: "+s.Name), rule.Ev(bondSource(b), fmt.Sprintf("Link Failure Count: %d", s.LinkFailures)))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("replace the cable of %s, try another switch port, and watch whether the count keeps growing (grep -A4 %s %s)", s.Name, s.Name, bondSource(b)),
				Basis:  fmt.Sprintf("Link Failure Count ≥ %d", flapCount)}
			out = append(out, f)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func slaveNames(b facts.Interface) string {
	var n []string
	for _, s := range b.Bond.Slaves {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

var metaAggSplit = rule.Meta{
	ID: "bond-aggregator-split", Family: "bond", Severity: rule.Warn, Since: "0.2.0",
	Title: "802.3ad bond slaves in different aggregators",
	Doc: "In 802.3ad mode only the active aggregator carries traffic. Slaves that show another " +
		"Aggregator ID are idle: their switch ports belong to a different group, or negotiated a " +
		"different speed or duplex. The bond has fewer links than it seems.",
	Refs: []string{refBonding + "#802-3ad"},
}

func checkAggSplit(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		if b.Bond.Mode == "802.3ad" && !b.Bond.PartnerInfo {
			out = append(out, aggSplitUnprivileged(b)...)
			continue
		}
		if b.Bond.Mode != "802.3ad" || b.Bond.AggregatorID == 0 {
			continue
		}
		var idle []string
		var ev []rule.Evidence
		for _, s := range b.Bond.Slaves {
			ev = append(ev, rule.Ev(bondSource(b), fmt.Sprintf("%s Aggregator ID: %d", s.Name, s.AggregatorID)))
			if s.AggregatorID != 0 && s.AggregatorID != b.Bond.AggregatorID && s.MIIStatus != "down" {
				idle = append(idle, s.Name)
			}
		}
		if len(idle) == 0 {
			continue
		}
		ev = append([]rule.Evidence{rule.Ev(bondSource(b), fmt.Sprintf("active Aggregator ID: %d", b.Bond.AggregatorID))}, ev...)
		f := metaAggSplit.New(b.Name, fmt.Sprintf("%s carries no traffic: it is outside %s's active aggregator %d.",
			strings.Join(idle, ", "), b.Name, b.Bond.AggregatorID), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "put the switch ports of " + slaveNames(b) + " in one LACP group with equal speed and duplex",
			Basis:  "aggregator IDs differ"}
		out = append(out, f)
	}
	return out
}

var metaHashLayer2 = rule.Meta{
	ID: "bond-hash-layer2", Family: "bond", Severity: rule.Info, Since: "0.2.0",
	Title: "Bond hashes flows by MAC address only",
	Doc: "balance-xor and 802.3ad pick a slave per flow with xmit_hash_policy. The default layer2 " +
		"hashes source and destination MAC: all traffic to one client, and all traffic through the " +
		"router, lands on one link. layer3+4 spreads different TCP connections over the links (it " +
		"is not fully 802.3ad-conformant for fragmented traffic, which a NAS rarely sends).",
	Refs: []string{refBonding + "#bonding-driver-options"},
}

func checkHashLayer2(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		if (b.Bond.Mode != "802.3ad" && b.Bond.Mode != "balance-xor") || b.Bond.HashPolicy != "layer2" {
			continue
		}
		target := "/sys/class/net/" + b.Name + "/bonding/xmit_hash_policy"
		f := metaHashLayer2.New(b.Name, fmt.Sprintf(
			"%s sends all traffic between the same two MAC addresses over one link; a few clients (or everything behind a router) use one link of %d.",
			b.Name, len(b.Bond.Slaves)), rule.Ev(bondSource(b), "Transmit Hash Policy: layer2"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: target, Current: "layer2", Value: "layer3+4",
			Basis: "spreads TCP connections by port"}
		out = append(out, f)
	}
	return out
}

var metaBondSingleStream = rule.Meta{
	ID: "bond-single-stream", Family: "bond", Severity: rule.Info, Since: "0.2.0",
	Title: "A bond does not speed up one transfer",
	Doc: "Only balance-rr (mode 0) stripes one TCP stream over several links, at the price of " +
		"packet reordering and a static LAG on the switch. 802.3ad, balance-xor, balance-tlb and " +
		"balance-alb put each flow on one link: many clients together get more bandwidth, one " +
		"copy never exceeds one link. For one client, SMB3 multichannel (Samba's default since " +
		"4.15) opens several connections and is the supported road.",
	Refs: []string{refBonding + "#bonding-driver-options", "https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html#SERVERMULTICHANNELSUPPORT"},
}

func checkBondSingleStream(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, b := range bonds(in.Host) {
		switch b.Bond.Mode {
		case "802.3ad", "balance-xor", "balance-tlb", "balance-alb":
		default:
			continue
		}
		if len(b.Bond.Slaves) < 2 {
			continue
		}
		speed := 0
		for _, s := range b.Bond.Slaves {
			speed = max(speed, s.SpeedMbps)
		}
		f := metaBondSingleStream.New(b.Name, fmt.Sprintf(
			"%s (%s, %d links) gives one client transfer at most one link's %s; it helps only when several clients transfer at once.",
			b.Name, b.Bond.Mode, len(b.Bond.Slaves), units.LinkMbit(speed)), rule.Ev(bondSource(b), "Bonding Mode: "+b.Bond.ModeText))
		target := "for single-client speed use a protocol that opens several connections, or one faster link"
		if sambaServer(in) != nil { // Samba advice only where smbd serves a configuration
			target = "for single-client speed use SMB3 multichannel (server multi channel support = yes) over the separate links"
		}
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target,
			Basis: "bonding hashes per flow in " + b.Bond.Mode}
		out = append(out, f)
	}
	return out
}

var metaBondMTU = rule.Meta{
	ID: "bond-mtu-mismatch", Family: "bond", Severity: rule.Warn, Since: "0.2.0",
	Title: "Bond slaves with an MTU different from the bond's",
	Doc: "A bond sets its slaves' MTU to its own when they are enslaved; a slave changed later (or " +
		"by a script for jumbo frames) sends frames the bond and its peers do not expect, and large " +
		"transfers stall on the links where sizes differ. Set the MTU on the bond only.",
	Refs: []string{refBonding, refIPLink},
}

func checkBondMTU(in rule.Input) []rule.Finding {
	h := in.Host
	byName := map[string]facts.Interface{}
	for _, i := range h.Interfaces {
		byName[i.Name] = i
	}
	var out []rule.Finding
	for _, b := range bonds(h) {
		if b.MTU == nil {
			continue
		}
		for _, s := range b.Bond.Slaves {
			si, ok := byName[s.Name]
			if !ok || si.MTU == nil || *si.MTU == *b.MTU {
				continue
			}
			f := metaBondMTU.New(s.Name, fmt.Sprintf("%s has MTU %d inside %s, whose MTU is %d.", s.Name, *si.MTU, b.Name, *b.MTU),
				rule.Ev(ifSource(si, "mtu"), itoa(int64(*si.MTU))), rule.Ev(ifSource(b, "mtu"), itoa(int64(*b.MTU))))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: ifSource(si, "mtu"),
				Current: itoa(int64(*si.MTU)), Value: itoa(int64(*b.MTU)), Basis: "the bond's MTU"}
			out = append(out, f)
		}
	}
	return out
}
