package health

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smart"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// SMART returns the disk's SMART report when one was read and the disk
// was awake.
func SMART(d facts.BlockDevice) *facts.SMART {
	if d.Health == nil || d.Health.SMART == nil || d.Health.SMART.Standby {
		return nil
	}
	return d.Health.SMART
}

// Source is the evidence source of a disk's report.
func Source(d facts.BlockDevice) string {
	if d.Health != nil && d.Health.Source != "" {
		return d.Health.Source
	}
	return "smartctl -x /dev/" + d.Name
}

// Events returns the kernel-log events of one disk by kind.
func Events(h *facts.Host, disk string, kinds ...string) []facts.KernelEvent {
	if h.KernelLog == nil {
		return nil
	}
	var out []facts.KernelEvent
	for _, e := range h.KernelLog.Events {
		if e.Disk != disk {
			continue
		}
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// LogEvidence cites the first and (when different) last line of events.
func LogEvidence(h *facts.Host, evs []facts.KernelEvent, what string) []rule.Evidence {
	if len(evs) == 0 {
		return nil
	}
	src := h.KernelLog.Source
	v := fmt.Sprintf("%d %s; first: %s", len(evs), what, evs[0].Line)
	out := []rule.Evidence{rule.Ev(src, v)}
	if len(evs) > 1 && evs[len(evs)-1].Line != evs[0].Line {
		out = append(out, rule.Ev(src, "last: "+evs[len(evs)-1].Line))
	}
	return out
}

// SelfTestFailed reads a self-test status: "Completed: read failure",
// "Fatal or unknown error", "Completed: servo/seek failure".
func SelfTestFailed(t facts.SelfTest) bool {
	s := strings.ToLower(t.Status)
	if strings.Contains(s, "without error") || strings.HasPrefix(s, "aborted") || strings.HasPrefix(s, "interrupted") ||
		strings.Contains(s, "in progress") {
		return false
	}
	return strings.Contains(s, "fail") || strings.Contains(s, "fatal") || strings.Contains(s, "damage") ||
		strings.Contains(s, "error")
}

// nvmeWarnings decodes the NVMe critical warning byte (NVMe base spec,
// SMART / Health Information log page, byte 0).
func nvmeWarnings(cw int) []string {
	names := []string{"available spare below threshold", "temperature beyond a threshold",
		"reliability degraded by media or internal errors", "media placed in read-only mode",
		"volatile memory backup failed", "persistent memory region read-only"}
	var out []string
	for bit, n := range names {
		if cw&(1<<bit) != 0 {
			out = append(out, fmt.Sprintf("bit %d %s", bit, n))
		}
	}
	if cw&^0x3f != 0 {
		out = append(out, fmt.Sprintf("reserved bits 0x%02x", cw&^0x3f))
	}
	return out
}

// Observation is what one health test found on one disk: the evidence
// (each value cited from the file or command it was read from), the
// findings in words, and how bad they are. Hit is false when the test
// found nothing.
type Observation struct {
	Evidence []rule.Evidence
	What     []string
	Severity rule.Severity
	Hit      bool
}

// Media reads the drive's media-error counters (SMART 5/187/197/198, SCSI
// grown defects and uncorrected errors, NVMe media errors, critical
// warnings and spare) and medium errors in the kernel log. Severity is
// Crit when sectors are unreadable now or the counts are high, else Warn.
func Media(h *facts.Host, d facts.BlockDevice) Observation {
	var m Observation
	m.Severity = rule.Warn
	add := func(sev rule.Severity, ev rule.Evidence, what string) {
		m.Hit = true
		m.Evidence = append(m.Evidence, ev)
		m.What = append(m.What, what)
		if sev > m.Severity {
			m.Severity = sev
		}
	}
	if s := SMART(d); s != nil {
		src := Source(d)
		for _, id := range []int{5, 187, 197, 198} {
			a := smart.Attr(s, id)
			if a == nil || a.Count <= 0 {
				continue
			}
			sev := rule.Warn
			switch {
			case id == 197 || id == 198:
				sev = rule.Crit
			case a.Count >= 100:
				sev = rule.Crit
			case id == 187 && a.Count >= 10:
				sev = rule.Crit
			}
			add(sev, rule.Ev(src, fmt.Sprintf("%d %s raw %s", a.ID, a.Name, a.Raw)), fmt.Sprintf("%d %s", a.Count, strings.ReplaceAll(a.Name, "_", " ")))
		}
		if c := s.SCSI; c != nil {
			if c.GrownDefects != nil && *c.GrownDefects > 0 {
				sev := rule.Warn
				if *c.GrownDefects >= 100 {
					sev = rule.Crit
				}
				add(sev, rule.Ev(src, fmt.Sprintf("Elements in grown defect list: %d", *c.GrownDefects)), fmt.Sprintf("%d grown defects", *c.GrownDefects))
			}
			if c.Uncorrected != nil && *c.Uncorrected > 0 {
				add(rule.Crit, rule.Ev(src, scsiUncorrectedQuote(s.Format, c)), fmt.Sprintf("%d uncorrected read/write/verify errors", *c.Uncorrected))
			}
		}
		if n := s.NVMe; n != nil {
			if n.MediaErrors > 0 {
				add(rule.Crit, rule.Ev(src, fmt.Sprintf("Media and Data Integrity Errors: %d", n.MediaErrors)), fmt.Sprintf("%d media and data integrity errors", n.MediaErrors))
			}
			cw := n.CriticalWarning &^ 0x02 // bit 1 is temperature: health-hot
			if cw == 0x04 && n.PercentageUsed >= 100 && n.MediaErrors == 0 {
				cw = 0 // vendors raise "reliability degraded" at 100% used: health-wear says it
			}
			if w := nvmeWarnings(cw); len(w) > 0 {
				add(rule.Crit, rule.Ev(src, fmt.Sprintf("Critical Warning: 0x%02x (%s)", n.CriticalWarning, strings.Join(w, "; "))), "critical warning: "+strings.Join(w, "; "))
			}
			if n.SpareThreshold > 0 && n.AvailableSpare < n.SpareThreshold {
				add(rule.Crit, rule.Ev(src, fmt.Sprintf("Available Spare: %d%% (threshold %d%%)", n.AvailableSpare, n.SpareThreshold)), fmt.Sprintf("spare capacity %d%% below the %d%% threshold", n.AvailableSpare, n.SpareThreshold))
			}
		}
	}
	if evs := Events(h, d.Name, "media"); len(evs) > 0 {
		m.Hit = true
		m.Evidence = append(m.Evidence, LogEvidence(h, evs, "medium errors in the kernel log")...)
		m.What = append(m.What, fmt.Sprintf("%d medium errors in the kernel log", len(evs)))
		m.Severity = rule.Crit
	}
	if evs := Events(h, d.Name, "md-read-error"); len(evs) > 0 {
		m.Hit = true
		m.Evidence = append(m.Evidence, LogEvidence(h, evs, "md read errors not corrected")...)
		m.What = append(m.What, fmt.Sprintf("md could not correct %d read errors", len(evs)))
		m.Severity = rule.Crit
	}
	// "Disk failure on X, disabling device" alone says md dropped the
	// member, not why: `mdadm --fail` by an admin prints the same line. It
	// supports media evidence found above but is none by itself (the md
	// rules report the failed member).
	if evs := Events(h, d.Name, "md-failed"); len(evs) > 0 && m.Hit {
		m.Evidence = append(m.Evidence, LogEvidence(h, evs, "md failed the member")...)
	}
	if evs := Events(h, d.Name, "md-corrected"); len(evs) > 0 && m.Hit {
		m.Evidence = append(m.Evidence, LogEvidence(h, evs, "read errors md corrected from redundancy")...)
	}
	return m
}

// Link reads transfer errors between disk and host: SMART 199 (Info on
// its own: it never resets), SATA Phy Event CRC counters, libata CRC
// errors, repeated link resets and lowered speed in the kernel log, and a
// link slower than both disk and port support (each Warn).
func Link(h *facts.Host, d facts.BlockDevice) Observation {
	var ev []rule.Evidence
	var what []string
	var hit bool
	sev := rule.Info
	warn := func() { sev = rule.Warn }
	s := SMART(d)
	if s != nil {
		src := Source(d)
		if a := smart.Attr(s, 199); a != nil && a.Count > 0 {
			hit = true
			ev = append(ev, rule.Ev(src, fmt.Sprintf("199 %s raw %s", a.Name, a.Raw)))
			what = append(what, fmt.Sprintf("%d UDMA CRC errors over its life", a.Count))
		}
		for _, p := range s.PhyEvents {
			if p.Value > 0 && strings.Contains(p.Name, "CRC") {
				hit = true
				warn()
				ev = append(ev, rule.Ev(src, fmt.Sprintf("SATA Phy Event 0x%04x %s: %d", p.ID, p.Name, p.Value)))
				what = append(what, fmt.Sprintf("%d %s since power-on", p.Value, p.Name))
			}
		}
	}
	if evs := Events(h, d.Name, "link-crc"); len(evs) > 0 {
		hit = true
		warn()
		ev = append(ev, LogEvidence(h, evs, "CRC/8b10b errors on the link")...)
		what = append(what, fmt.Sprintf("%d link CRC errors in the kernel log", len(evs)))
	}
	if evs := Events(h, d.Name, "link-reset"); len(evs) >= 2 {
		hit = true
		warn()
		ev = append(ev, LogEvidence(h, evs, "link resets")...)
		what = append(what, fmt.Sprintf("%d link resets", len(evs)))
	}
	if evs := Events(h, d.Name, "link-slow"); len(evs) > 0 {
		hit = true
		warn()
		ev = append(ev, LogEvidence(h, evs, "link speed limitations after errors")...)
		what = append(what, "libata lowered the link speed after errors")
	}
	diskMax := 0.0
	if s != nil {
		diskMax = s.LinkMaxGbps
	}
	if d.SATA != nil && d.SATA.SpeedGbps > 0 && diskMax > 0 && d.SATA.LimitGbps > 0 {
		best := min(diskMax, d.SATA.LimitGbps)
		if d.SATA.SpeedGbps < best {
			hit = true
			warn()
			// Each value cited from the file it was read from.
			dir := "/sys/class/ata_link/" + d.SATA.Link + "/"
			ev = append(ev, rule.Ev(dir+"sata_spd", orStr(d.SATA.SpeedRaw, fmt.Sprintf("%.1f Gbps", d.SATA.SpeedGbps))+" (current link speed)"), // units:input: the sysfs file's own form
				rule.Ev(dir+"hw_sata_spd_limit", orStr(d.SATA.LimitRaw, fmt.Sprintf("%.1f Gbps", d.SATA.LimitGbps))+" (the port's limit)"), // units:input
				rule.Ev(Source(d), orStr(s.LinkQuote, fmt.Sprintf("%.1f Gb/s", diskMax))+" (the disk's maximum)"))                          // units:input: smartctl's form
			what = append(what, fmt.Sprintf("its link runs at %s where disk and port support %s", units.LinkGbit(d.SATA.SpeedGbps), units.LinkGbit(best)))
		}
	}
	return Observation{Evidence: ev, What: what, Severity: sev, Hit: hit}
}

// scsiUncorrectedQuote cites the SCSI error counter log's per-counter
// totals of uncorrected errors as smartctl prints them (JSON: the
// total_uncorrected_errors field of each counter; text: the last column
// of the read/write/verify rows), not their sum, which occurs nowhere.
func scsiUncorrectedQuote(format string, c *facts.SCSIHealth) string {
	if len(c.UncorrectedBy) == 0 {
		return fmt.Sprintf("error counter log: %d uncorrected errors", *c.Uncorrected)
	}
	json := format == "json"
	var parts []string
	for _, x := range c.UncorrectedBy {
		if json {
			parts = append(parts, fmt.Sprintf("%s.total_uncorrected_errors: %d", x.Op, x.Uncorrected))
		} else {
			parts = append(parts, fmt.Sprintf("%s: %d", x.Op, x.Uncorrected))
		}
	}
	if json {
		return "scsi_error_counter_log " + strings.Join(parts, ", ")
	}
	return "Error counter log, total uncorrected: " + strings.Join(parts, ", ")
}

func orStr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// Failed reads the drive's own verdict: the overall-health
// self-assessment FAILED, an attribute failing now (WHEN_FAILED
// "FAILING_NOW"), the newest self-test failed. Severity is Crit.
func Failed(d facts.BlockDevice) Observation {
	o := Observation{Severity: rule.Crit}
	s := SMART(d)
	if s == nil {
		return o
	}
	src := Source(d)
	if s.Passed != nil && !*s.Passed {
		o.Evidence = append(o.Evidence, rule.Ev(src, "SMART overall-health self-assessment: FAILED"))
		o.What = append(o.What, "its overall health self-assessment is FAILED")
	}
	for _, a := range s.Attributes {
		if a.WhenFailed == "now" {
			o.Evidence = append(o.Evidence, rule.Ev(src, fmt.Sprintf("attribute %d %s: value %d ≤ threshold %d, failing now (raw %s)", a.ID, a.Name, a.Value, a.Thresh, a.Raw)))
			o.What = append(o.What, fmt.Sprintf("attribute %d %s is failing now", a.ID, a.Name))
		}
	}
	if len(s.SelfTests) > 0 && SelfTestFailed(s.SelfTests[0]) {
		t := s.SelfTests[0]
		o.Evidence = append(o.Evidence, rule.Ev(src, fmt.Sprintf("newest self-test: %s: %s at %d hours", t.Type, t.Status, t.Hours)))
		o.What = append(o.What, "its newest self-test failed ("+t.Status+")")
	}
	o.Hit = len(o.Evidence) > 0
	return o
}

// WearInfo and WearWarn are the NVMe Percentage Used at which wear is
// noted and at which the rated write endurance is spent.
const (
	WearInfo = 90
	WearWarn = 100
)

// Wear returns an NVMe drive's Percentage Used (ok false for other drives
// and sleeping or unread ones).
func Wear(d facts.BlockDevice) (int, bool) {
	s := SMART(d)
	if s == nil || s.NVMe == nil {
		return 0, false
	}
	return s.NVMe.PercentageUsed, true
}

// minPlausibleLimit: drives report bogus limits (a Toshiba SSD's SCT
// "Specified Max Operating Temperature: 13 Celsius", smartmontools issue
// 154); no drive is specified to stop below 40 °C.
const minPlausibleLimit = 40

// Heat is a disk found above its limit.
type Heat struct {
	Temp  int    // °C as smartctl decodes it
	Limit int    // the limit crossed, 0 when only the drive's warning bit says so
	By    string // which limit, in words
}

// Hot reports a disk above the drive's own limit, or a hard disk above
// 50 °C, or an NVMe drive raising its temperature warning bit.
func Hot(d facts.BlockDevice) (Heat, bool) {
	s := SMART(d)
	if s == nil || s.Temp == nil || *s.Temp <= 0 || *s.Temp > 120 {
		return Heat{}, false
	}
	t := *s.Temp
	spins := d.Spins()
	switch {
	case s.TempLimit != nil && *s.TempLimit >= minPlausibleLimit && t > *s.TempLimit:
		return Heat{t, *s.TempLimit, "the drive's own limit"}, true
	case spins != nil && *spins && t > 50:
		return Heat{t, 50, "the 50 °C a hard disk should stay under"}, true
	case s.NVMe != nil && s.NVMe.CriticalWarning&0x02 != 0:
		return Heat{t, 0, "the threshold the drive reports crossed (critical warning bit 1)"}, true
	}
	return Heat{}, false
}

// USB returns a disk's UAS aborts/resets and USB device resets in the
// kernel log.
func USB(h *facts.Host, d facts.BlockDevice) (aborts, resets []facts.KernelEvent) {
	return Events(h, d.Name, "uas-abort", "uas-reset"), Events(h, d.Name, "usb-reset")
}

// IO returns a disk's block-layer I/O errors, NVMe timeouts and resets,
// and libata exceptions in the kernel log; hit when any I/O error or NVMe
// event, or at least two libata exceptions, were logged.
func IO(h *facts.Host, d facts.BlockDevice) (io, nvme, ata []facts.KernelEvent, hit bool) {
	io = Events(h, d.Name, "io-error")
	nvme = Events(h, d.Name, "nvme-timeout", "nvme-reset")
	ata = Events(h, d.Name, "ata-error")
	return io, nvme, ata, len(io) > 0 || len(nvme) > 0 || len(ata) >= 2
}
