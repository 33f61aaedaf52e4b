package rules

import (
	"fmt"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// Operating conditions and upkeep: heat, self-tests never run, age.

var metaHot = rule.Meta{
	ID: "health-hot", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "Disk runs hot",
	Doc: "Above the drive's own limit (the SCT \"Specified Max Operating Temperature\", an NVMe " +
		"drive's warning composite temperature threshold, a SAS drive's trip temperature) or, for hard " +
		"disks, above 50 °C. NVMe drives throttle when hot; hard disks age faster. Google's FAST'07 study " +
		"saw little effect below about 45 °C, so cooler readings are not flagged.",
	Refs: []string{refGoogleFAST, refSmartctl, refNVMeSpec},
}

func checkHot(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		heat, ok := health.Hot(d)
		if !ok {
			continue
		}
		s, t, limit, by := health.SMART(d), heat.Temp, heat.Limit, heat.By
		ev := []rule.Evidence{rule.Ev(health.Source(d), fmt.Sprintf("temperature %d °C", t))}
		if s.TempLimit != nil {
			ev = append(ev, rule.Ev(health.Source(d), fmt.Sprintf("limit %d °C", *s.TempLimit)))
		}
		f := metaHot.New(d.Name, fmt.Sprintf("%s is at %d °C, above %s.", diskIdent(d), t, by), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("improve airflow over %s (fan, spacing, dust filters)", d.Name), Current: fmt.Sprintf("%d °C", t)}
		if limit > 0 {
			f.Recommendation.Value = fmt.Sprintf("below %d °C", limit)
		}
		out = append(out, f)
	}
	return out
}

var metaNoSelfTest = rule.Meta{
	ID: "health-no-selftest", Family: "health", Severity: rule.Info, Since: "0.9.0",
	Title: "No SMART self-test has ever run",
	Doc: "A long self-test reads the whole surface and finds pending sectors before a rebuild does; " +
		"smartd (smartmontools) runs them on a schedule and mails when attributes change. A disk whose " +
		"self-test log is empty has never been tested.",
	Refs: []string{refSmartd, refSmartctl},
}

func checkNoSelfTest(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := health.SMART(d)
		if s == nil || !s.SelfTestLog || len(s.SelfTests) > 0 {
			continue
		}
		name := "/dev/" + d.Name
		if id := bestByID(d.ByID); id != "" {
			name = "/dev/disk/by-id/" + id
		}
		f := metaNoSelfTest.New(d.Name, fmt.Sprintf("%s has an empty self-test log.", diskIdent(d)),
			rule.Ev(health.Source(d), selfTestLogQuote(s)))
		// smartctl's output was read, so smartmontools is there: the
		// advice is the schedule and one test now, not an install.
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("add to /etc/smartd.conf: %s -a -o on -S on -s (S/../.././02|L/../../6/03) -m root (then reload smartd); to test once now: smartctl -t long %s", name, name),
			Basis:  "short test daily at 02:00, long test Saturdays at 03:00"}
		out = append(out, f)
	}
	return out
}

var metaOldAge = rule.Meta{
	ID: "health-old-age", Family: "health", Severity: rule.Info, Since: "0.9.0",
	Title: "Disk in its sixth year of power-on time",
	Doc: "Power-on hours beyond five years (43,800 h). Age alone is not a fault: a disk with clean " +
		"media and link counters may run for years more, but fleet failure rates rise with age, so " +
		"keep backups current and spares at hand.",
	Refs: []string{refGoogleFAST, refBackblaze, refSmartctl},
}

func checkOldAge(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := health.SMART(d)
		if s == nil || s.PowerOnHours == nil || *s.PowerOnHours < 43800 {
			continue
		}
		h := *s.PowerOnHours
		f := metaOldAge.New(d.Name, fmt.Sprintf("%s has been powered on for %s.", diskIdent(d), humanHours(h, s.PowerOnMinutes)),
			rule.Ev(health.Source(d), fmt.Sprintf("power-on hours: %d", h)))
		out = append(out, f)
	}
	return out
}

// humanHours writes power-on time as years and days.
func humanHours(h int64, minutes int) string {
	days := h / 24
	y, d := days/365, days%365
	s := fmt.Sprintf("%d h", h)
	if minutes > 0 {
		s = fmt.Sprintf("%d h %d min", h, minutes)
	}
	if y > 0 {
		return fmt.Sprintf("%s (%d years %d days)", s, y, d)
	}
	return fmt.Sprintf("%s (%d days)", s, days)
}

// selfTestLogQuote is what the smartctl output itself says about an empty
// self-test log (the text line, or the JSON member and its count).
func selfTestLogQuote(s *facts.SMART) string {
	if s.SelfTestLogQuote != "" {
		return s.SelfTestLogQuote
	}
	return "self-test log read, no entries"
}
