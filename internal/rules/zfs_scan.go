package rules

import (
	"fmt"

	"github.com/nastune/nastune/internal/rule"
)

// ZFS scans (KNOWLEDGE §6): a resilver in progress.
var zfsScanRules = []rule.Rule{
	{Meta: metaZFSResilver, Check: checkZFSResilver},
}

var metaZFSResilver = rule.Meta{
	ID: "zfs-resilvering", Family: "zfs", Severity: rule.Info, Since: "0.9.0",
	Title: "ZFS pool is resilvering",
	Doc: "A resilver copies data onto a device that was attached (zpool attach), replaced or " +
		"returned after an outage. Until it ends the new device does not hold a full copy: the " +
		"vdev has less redundancy than it shows, every member is busy and the pool is slower. " +
		"Let it finish (zpool status shows the progress); do not detach or replace other devices " +
		"of the same vdev meanwhile, and judge the pool's speed only afterwards.",
	Refs: []string{"https://openzfs.github.io/openzfs-docs/man/master/8/zpool-status.8.html",
		"https://openzfs.github.io/openzfs-docs/man/master/8/zpool-attach.8.html"},
}

func checkZFSResilver(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, p := range pools(in.Host) {
		sc := p.Scan
		if sc == nil || sc.Kind != "resilver" {
			continue
		}
		why := fmt.Sprintf("Pool %s is resilvering", p.Name)
		if sc.Since != "" {
			why += " since " + sc.Since
		}
		ev := []rule.Evidence{rule.Ev("zpool status -P", sc.Line)}
		if sc.DoneLine != "" {
			why += fmt.Sprintf(": %g%% done", sc.Percent)
			if sc.ToGo != "" {
				why += ", about " + sc.ToGo + " to go"
			}
			ev = append(ev, rule.Ev("zpool status -P", sc.DoneLine))
		}
		why += ". Until it ends the device being resilvered holds no full copy, and the pool is slower."
		f := metaZFSResilver.New(p.Name, why, ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("let it finish (zpool status %s); avoid heavy I/O and do not detach or replace other devices meanwhile; measure speeds afterwards", p.Name),
			Basis:  "scan: resilver in progress"}
		out = append(out, f)
	}
	return out
}
