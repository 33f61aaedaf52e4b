package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// The drive failing or worn: its own verdict, media errors, spent
// endurance (health.Failed, health.Media, health.Wear).

var metaSMARTFailed = rule.Meta{
	ID: "health-smart-failed", Family: "health", Severity: rule.Crit, Since: "0.9.0",
	Title: "Disk says it is failing (SMART FAILED, attribute failing now, failed self-test)",
	Doc: "The drive's own verdict: the overall-health self-assessment returned FAILED, a normalized " +
		"attribute is at or below its threshold now (smartctl's WHEN_FAILED \"FAILING_NOW\"), or the " +
		"newest self-test ended in a read, servo or electrical failure. Vendors set thresholds so that " +
		"crossing one predicts failure within a short time. The finding names the disk's model, serial " +
		"number, /dev/disk/by-id and by-path names so the right disk is pulled.",
	Refs: []string{refSmartctl, refGoogleFAST},
}

func checkSMARTFailed(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		o := health.Failed(d)
		if !o.Hit {
			continue
		}
		ev, what := o.Evidence, o.What
		f := metaSMARTFailed.New(d.Name, fmt.Sprintf("%s: %s. The drive itself predicts its failure.%s",
			diskIdent(d), strings.Join(what, "; "), pointless), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("%s: %s", d.Name, replaceAdvice(in.Host, d)),
			Basis:  "smartctl's health verdict, attribute thresholds and self-test log"}
		out = append(out, f)
	}
	return out
}

var metaMedia = rule.Meta{
	ID: "health-media-errors", Family: "health", Severity: rule.Crit, Since: "0.9.0",
	Title: "Disk media errors (reallocated, pending, uncorrectable sectors, NVMe media errors)",
	Doc: "Counts the drive keeps of sectors it could not read: Reallocated_Sector_Ct (5), " +
		"Reported_Uncorrect (187), Current_Pending_Sector (197), Offline_Uncorrectable (198); a SAS " +
		"disk's grown defect list and uncorrected errors; an NVMe drive's media errors, critical warning " +
		"bits and spare capacity below its threshold; medium errors in the kernel log. Backblaze's " +
		"fleet data and Google's FAST'07 study found any non-zero count in these a strong predictor of " +
		"failure. Pending and offline-uncorrectable sectors are unreadable now: crit. A few reallocated " +
		"sectors are a warning; hundreds are crit. Every read of a bad area is retried for seconds, so " +
		"the disk is slow as well as unsafe; no tuning helps until it is replaced.",
	Refs: []string{refBackblaze, refGoogleFAST, refSmartctl, refNVMeSpec},
}

func checkMedia(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		m := health.Media(in.Host, d)
		if !m.Hit {
			continue
		}
		state := "its media has started to fail"
		if m.Severity == rule.Crit {
			state = "its media is failing"
		}
		f := metaMedia.New(d.Name, fmt.Sprintf("%s has %s: %s; reads of bad areas are retried for seconds each.%s",
			diskIdent(d), strings.Join(m.What, ", "), state, pointless), m.Evidence...)
		f.Severity = m.Severity
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("%s: %s; run a long self-test (smartctl -t long /dev/%s) to see how far it has gone", d.Name, replaceAdvice(in.Host, d), d.Name),
			Basis:  "non-zero media error counters (any is a failure predictor); crit when sectors are unreadable now"}
		out = append(out, f)
	}
	return out
}

var metaWear = rule.Meta{
	ID: "health-wear", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "SSD worn out (NVMe percentage used)",
	Doc: "An NVMe drive's Percentage Used is the vendor's estimate of how much of its rated write " +
		"endurance is used; it may exceed 100. At 100 the rated life is spent: the drive usually keeps " +
		"working, but its error rate and the chance of a sudden read-only switch grow. Info from 90, " +
		"warn from 100.",
	Refs: []string{refNVMeSpec, refSmartctl},
}

func checkWear(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		pct, ok := health.Wear(d)
		if !ok || pct < health.WearInfo {
			continue
		}
		f := metaWear.New(d.Name, fmt.Sprintf("%s has used %d%% of its rated write endurance.", diskIdent(d), pct),
			rule.Ev(health.Source(d), fmt.Sprintf("Percentage Used: %d%%", pct)))
		if pct < health.WearWarn {
			f.Severity = rule.Info
		}
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("plan to replace %s; keep its data backed up", d.Name), Basis: "percentage used ≥ 90"}
		out = append(out, f)
	}
	return out
}
