package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

var metaSMR = rule.Meta{
	ID: "health-smr-in-array", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "SMR disk in an md array or ZFS pool",
	Doc: "Drive-managed shingled (SMR) disks stage writes in a cache and rewrite whole zones behind " +
		"it; sustained writes, and above all an md rebuild or ZFS resilver, run many times slower and " +
		"can time out. Western Digital confirmed in 2020 that WD Red 2-6 TB EFAX models are SMR; " +
		"smartmontools' drive database names such families \"(SMR)\". Host-aware and host-managed " +
		"drives show queue/zoned. A spinning disk that offers TRIM is a drive-managed SMR hint. Use CMR " +
		"models in arrays.",
	Refs: []string{refWDSMR, refZonedSysfs, "https://www.smartmontools.org/wiki/FAQ"},
}

// smrEvidence says why d is (likely) SMR.
func smrEvidence(d facts.BlockDevice) (rule.Evidence, string, bool) {
	if d.Health != nil && (d.Health.Zoned == "host-aware" || d.Health.Zoned == "host-managed") {
		return rule.Ev("/sys/block/"+d.Name+"/queue/zoned", d.Health.Zoned), "is a zoned (" + d.Health.Zoned + ") SMR disk", true
	}
	s := health.SMART(d)
	if s == nil && d.Health != nil && d.Health.SMART != nil {
		s = d.Health.SMART // a sleeping disk's identity is still its identity
	}
	if s == nil {
		return rule.Evidence{}, "", false
	}
	if strings.Contains(s.Family, "(SMR)") {
		return rule.Ev(health.Source(d), "Model Family: "+s.Family), "is an SMR model (smartctl's drive database: " + s.Family + ")", true
	}
	if s.RotationRPM != nil && *s.RotationRPM > 0 && s.TRIM != nil && *s.TRIM && !strings.Contains(s.Family, "(CMR)") {
		return rule.Ev(health.Source(d), fmt.Sprintf("Rotation Rate: %d rpm, TRIM supported", *s.RotationRPM)), "spins and offers TRIM, the mark of a drive-managed SMR disk", true
	}
	return rule.Evidence{}, "", false
}

func checkSMR(in rule.Input) []rule.Finding {
	members := memberDisks(in.Host)
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if len(members[d.Name]) == 0 {
			continue
		}
		ev, what, ok := smrEvidence(d)
		if !ok {
			continue
		}
		f := metaSMR.New(d.Name, fmt.Sprintf("%s %s and is a member of %s: a rebuild or resilver onto or from it takes many times longer and can stall.",
			diskIdent(d), what, strings.Join(members[d.Name], ", ")), ev)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("replace %s with a CMR model when convenient (before the next rebuild)", d.Name),
			Basis:  "SMR in " + strings.Join(members[d.Name], ", ")}
		out = append(out, f)
	}
	return out
}
