package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smart"
	"github.com/nastune/nastune/internal/rule"
)

// Disk health: SMART and the kernel log, the hardware before the knobs
// (KNOWLEDGE §17). A healthy disk gets no warning; old age alone is info.
var healthRules = []rule.Rule{
	{Meta: metaSMARTFailed, Check: checkSMARTFailed},
	{Meta: metaMedia, Check: checkMedia},
	{Meta: metaWear, Check: checkWear},
	{Meta: metaLink, Check: checkLink},
	{Meta: metaUSBResets, Check: checkUSBResets},
	{Meta: metaIOErrors, Check: checkIOErrors},
	{Meta: metaSMR, Check: checkSMR},
	{Meta: metaERC, Check: checkERC},
	{Meta: metaHot, Check: checkHot},
	{Meta: metaNoSelfTest, Check: checkNoSelfTest},
	{Meta: metaOldAge, Check: checkOldAge},
}

const (
	refSmartctl    = "https://www.smartmontools.org/browser/trunk/smartmontools/smartctl.8.in"
	refBackblaze   = "https://www.backblaze.com/blog/what-smart-stats-indicate-hard-drive-failures/"
	refGoogleFAST  = "https://research.google/pubs/failure-trends-in-a-large-disk-drive-population/"
	refLibataEH    = "https://archive.kernel.org/oldwiki/ata.wiki.kernel.org/index.php/Libata_error_messages.html"
	refNVMeSpec    = "https://nvmexpress.org/specifications/"
	refTimeoutMism = "https://raid.wiki.kernel.org/index.php/Timeout_Mismatch"
	refKernelParam = "https://docs.kernel.org/admin-guide/kernel-parameters.html"
	refSmartd      = "https://www.smartmontools.org/browser/trunk/smartmontools/smartd.conf.5.in"
	refWDSMR       = "https://blog.westerndigital.com/wd-red-nas-drives/"
	refZonedSysfs  = "https://docs.kernel.org/block/queue-sysfs.html"
)

// hdd reports whether d spins (SMART's protocol and rotation rate, else
// the queue; see facts.BlockDevice.Spins).
func hdd(d facts.BlockDevice) bool {
	r := d.Spins()
	return r != nil && *r
}

// smartOf returns the disk's SMART report when one was read and the disk
// was awake.
func smartOf(d facts.BlockDevice) *facts.SMART {
	if d.Health == nil || d.Health.SMART == nil || d.Health.SMART.Standby {
		return nil
	}
	return d.Health.SMART
}

// diskIdent names a disk so the right one gets pulled: model, serial,
// /dev/disk/by-id and by-path names.
func diskIdent(d facts.BlockDevice) string {
	var parts []string
	model, serial := d.Model, d.Serial
	if s := smartOf(d); s != nil {
		model, serial = firstNonEmptyStr(s.Model, model), firstNonEmptyStr(s.Serial, serial)
	}
	if model != "" {
		parts = append(parts, model)
	}
	if serial != "" {
		parts = append(parts, "serial "+serial)
	}
	if id := bestByID(d.ByID); id != "" {
		parts = append(parts, "/dev/disk/by-id/"+id)
	}
	if d.Health != nil && d.Health.ByPath != "" {
		parts = append(parts, "/dev/disk/by-path/"+d.Health.ByPath)
	}
	if len(parts) == 0 {
		return d.Name
	}
	return d.Name + " (" + strings.Join(parts, ", ") + ")"
}

func bestByID(ids []string) string {
	best := ""
	for _, id := range ids {
		if strings.HasPrefix(id, "wwn-") || strings.HasPrefix(id, "nvme-eui.") {
			if best == "" {
				best = id
			}
			continue
		}
		return id
	}
	return best
}

func firstNonEmptyStr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// smartSource is the evidence source of a disk's report.
func smartSource(d facts.BlockDevice) string {
	if d.Health != nil && d.Health.Source != "" {
		return d.Health.Source
	}
	return "smartctl -x /dev/" + d.Name
}

// events returns the kernel-log events of one disk by kind.
func events(h *facts.Host, disk string, kinds ...string) []facts.KernelEvent {
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

// logEvidence cites the first and (when different) last line of events.
func logEvidence(h *facts.Host, evs []facts.KernelEvent, what string) []rule.Evidence {
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

// replaceAdvice says how to swap the disk out of what uses it.
func replaceAdvice(h *facts.Host, d facts.BlockDevice) string {
	var steps []string
	for _, a := range h.MD {
		for _, m := range a.Members {
			if m.Disk == d.Name {
				steps = append(steps, fmt.Sprintf("mdadm /dev/%s --add /dev/NEW && mdadm /dev/%s --replace /dev/%s --with /dev/NEW", a.Name, a.Name, m.Device))
			}
		}
	}
	if h.ZFS != nil {
		for _, p := range h.ZFS.Pools {
			for _, v := range p.Vdevs {
				for _, dev := range v.Devices {
					if diskForPath(h, dev) == d.Name {
						steps = append(steps, fmt.Sprintf("zpool replace %s %s /dev/disk/by-id/NEW", p.Name, dev))
					}
				}
			}
		}
	}
	if len(steps) == 0 {
		return "back up what is on it now, then replace it"
	}
	return "replace it while the array still has redundancy: " + strings.Join(steps, "; ")
}

const pointless = " Tuning this disk (read-ahead, scheduler, queue depth) is pointless until then."

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

// testFailed reads a self-test status: "Completed: read failure",
// "Fatal or unknown error", "Completed: servo/seek failure".
func testFailed(t facts.SelfTest) bool {
	s := strings.ToLower(t.Status)
	if strings.Contains(s, "without error") || strings.HasPrefix(s, "aborted") || strings.HasPrefix(s, "interrupted") ||
		strings.Contains(s, "in progress") {
		return false
	}
	return strings.Contains(s, "fail") || strings.Contains(s, "fatal") || strings.Contains(s, "damage") ||
		strings.Contains(s, "error")
}

func checkSMARTFailed(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := smartOf(d)
		if s == nil {
			continue
		}
		src := smartSource(d)
		var ev []rule.Evidence
		var what []string
		if s.Passed != nil && !*s.Passed {
			ev = append(ev, rule.Ev(src, "SMART overall-health self-assessment: FAILED"))
			what = append(what, "its overall health self-assessment is FAILED")
		}
		for _, a := range s.Attributes {
			if a.WhenFailed == "now" {
				ev = append(ev, rule.Ev(src, fmt.Sprintf("attribute %d %s: value %d ≤ threshold %d, failing now (raw %s)", a.ID, a.Name, a.Value, a.Thresh, a.Raw)))
				what = append(what, fmt.Sprintf("attribute %d %s is failing now", a.ID, a.Name))
			}
		}
		if len(s.SelfTests) > 0 && testFailed(s.SelfTests[0]) {
			t := s.SelfTests[0]
			ev = append(ev, rule.Ev(src, fmt.Sprintf("newest self-test: %s: %s at %d hours", t.Type, t.Status, t.Hours)))
			what = append(what, "its newest self-test failed ("+t.Status+")")
		}
		if len(ev) == 0 {
			continue
		}
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

// mediaState is what checkMedia found for one disk.
type mediaState struct {
	ev   []rule.Evidence
	what []string
	sev  rule.Severity
	hit  bool
}

func diskMedia(h *facts.Host, d facts.BlockDevice) mediaState {
	var m mediaState
	m.sev = rule.Warn
	add := func(sev rule.Severity, ev rule.Evidence, what string) {
		m.hit = true
		m.ev = append(m.ev, ev)
		m.what = append(m.what, what)
		if sev > m.sev {
			m.sev = sev
		}
	}
	if s := smartOf(d); s != nil {
		src := smartSource(d)
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
	if evs := events(h, d.Name, "media"); len(evs) > 0 {
		m.hit = true
		m.ev = append(m.ev, logEvidence(h, evs, "medium errors in the kernel log")...)
		m.what = append(m.what, fmt.Sprintf("%d medium errors in the kernel log", len(evs)))
		m.sev = rule.Crit
	}
	if evs := events(h, d.Name, "md-read-error"); len(evs) > 0 {
		m.hit = true
		m.ev = append(m.ev, logEvidence(h, evs, "md read errors not corrected")...)
		m.what = append(m.what, fmt.Sprintf("md could not correct %d read errors", len(evs)))
		m.sev = rule.Crit
	}
	// "Disk failure on X, disabling device" alone says md dropped the
	// member, not why: `mdadm --fail` by an admin prints the same line. It
	// supports media evidence found above but is none by itself (the md
	// rules report the failed member).
	if evs := events(h, d.Name, "md-failed"); len(evs) > 0 && m.hit {
		m.ev = append(m.ev, logEvidence(h, evs, "md failed the member")...)
	}
	if evs := events(h, d.Name, "md-corrected"); len(evs) > 0 && m.hit {
		m.ev = append(m.ev, logEvidence(h, evs, "read errors md corrected from redundancy")...)
	}
	return m
}

func checkMedia(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		m := diskMedia(in.Host, d)
		if !m.hit {
			continue
		}
		state := "its media has started to fail"
		if m.sev == rule.Crit {
			state = "its media is failing"
		}
		f := metaMedia.New(d.Name, fmt.Sprintf("%s has %s: %s; reads of bad areas are retried for seconds each.%s",
			diskIdent(d), strings.Join(m.what, ", "), state, pointless), m.ev...)
		f.Severity = m.sev
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
		s := smartOf(d)
		if s == nil || s.NVMe == nil || s.NVMe.PercentageUsed < 90 {
			continue
		}
		f := metaWear.New(d.Name, fmt.Sprintf("%s has used %d%% of its rated write endurance.", diskIdent(d), s.NVMe.PercentageUsed),
			rule.Ev(smartSource(d), fmt.Sprintf("Percentage Used: %d%%", s.NVMe.PercentageUsed)))
		if s.NVMe.PercentageUsed < 100 {
			f.Severity = rule.Info
		}
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("plan to replace %s; keep its data backed up", d.Name), Basis: "percentage used ≥ 90"}
		out = append(out, f)
	}
	return out
}

var metaLink = rule.Meta{
	ID: "health-link-errors", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "SATA link errors: cable, backplane, port or power, not the disk's media",
	Doc: "Transfer errors between disk and host: UDMA_CRC_Error_Count (199), the SATA Phy Event " +
		"Counters (CRC errors within FISes, ICRC command failures; reset at power-on, so non-zero means " +
		"recent), libata's SError BadCRC/10B8B/Handshk and ICRC in the kernel log, repeated link resets, " +
		"and a link that came up slower than both the disk and the port support (libata lowers the speed " +
		"after errors). These point at the SATA cable, connector, backplane, port or power supply, not at " +
		"the platters: replacing the disk does not help. 199 never resets; a non-zero count without other " +
		"evidence is only noted (info): watch that it stops growing.",
	Refs: []string{refLibataEH, refSmartctl, "https://docs.kernel.org/admin-guide/abi-testing.html#abi-sys-class-ata-link"},
}

// linkState collects link-error evidence for one disk.
func linkState(h *facts.Host, d facts.BlockDevice) (ev []rule.Evidence, what []string, sev rule.Severity, hit bool) {
	sev = rule.Info
	warn := func() { sev = rule.Warn }
	s := smartOf(d)
	if s != nil {
		src := smartSource(d)
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
	if evs := events(h, d.Name, "link-crc"); len(evs) > 0 {
		hit = true
		warn()
		ev = append(ev, logEvidence(h, evs, "CRC/8b10b errors on the link")...)
		what = append(what, fmt.Sprintf("%d link CRC errors in the kernel log", len(evs)))
	}
	if evs := events(h, d.Name, "link-reset"); len(evs) >= 2 {
		hit = true
		warn()
		ev = append(ev, logEvidence(h, evs, "link resets")...)
		what = append(what, fmt.Sprintf("%d link resets", len(evs)))
	}
	if evs := events(h, d.Name, "link-slow"); len(evs) > 0 {
		hit = true
		warn()
		ev = append(ev, logEvidence(h, evs, "link speed limitations after errors")...)
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
			ev = append(ev, rule.Ev(dir+"sata_spd", orStr(d.SATA.SpeedRaw, fmt.Sprintf("%.1f Gbps", d.SATA.SpeedGbps))+" (current link speed)"),
				rule.Ev(dir+"hw_sata_spd_limit", orStr(d.SATA.LimitRaw, fmt.Sprintf("%.1f Gbps", d.SATA.LimitGbps))+" (the port's limit)"),
				rule.Ev(smartSource(d), orStr(s.LinkQuote, fmt.Sprintf("%.1f Gb/s", diskMax))+" (the disk's maximum)"))
			what = append(what, fmt.Sprintf("its link runs at %.1f Gb/s where disk and port support %.1f", d.SATA.SpeedGbps, best))
		}
	}
	return ev, what, sev, hit
}

func checkLink(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		ev, what, sev, hit := linkState(in.Host, d)
		if !hit {
			continue
		}
		port := ""
		if d.Health != nil && d.Health.Port != "" {
			port = " (" + d.Health.Port + ")"
		}
		why := fmt.Sprintf("%s: %s. These are transfer errors between disk and host%s: the cable, backplane, port or power, not the disk's media.",
			diskIdent(d), strings.Join(what, "; "), port)
		target := fmt.Sprintf("reseat or replace the SATA cable of %s%s, try another port or backplane slot, check its power connector; then note the counters and confirm they stop growing", d.Name, port)
		if sev == rule.Info {
			why += " The count never resets: without errors in the kernel log or the Phy Event Counters it may be old."
			target = fmt.Sprintf("note %s's UDMA CRC count now and check it again later; if it grows, reseat or replace the cable", d.Name)
		}
		f := metaLink.New(d.Name, why, ev...)
		f.Severity = sev
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "CRC errors and resets are link faults"}
		out = append(out, f)
	}
	return out
}

var metaUSBResets = rule.Meta{
	ID: "health-usb-resets", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "USB bridge aborts or resets the disk",
	Doc: "uas_eh_abort_handler and uas_eh_device_reset_handler in the kernel log mean the bridge's UAS " +
		"firmware stopped answering queued commands and the kernel aborted them; \"reset SuperSpeed USB " +
		"device\" lines mean the whole bridge was reset. I/O stalls for the timeout each time and disks " +
		"drop out of arrays. Where the evidence is UAS aborts, the kernel's per-device quirk " +
		"usb-storage.quirks=VID:PID:u makes usb-storage (Bulk-Only) bind instead of uas: slower, but " +
		"stable. Resets without UAS aborts are more often power (an unpowered hub, a weak supply) or the " +
		"cable.",
	Refs: []string{refKernelParam, "https://docs.kernel.org/usb/usb-storage.html"},
}

func checkUSBResets(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		aborts := events(in.Host, d.Name, "uas-abort", "uas-reset")
		resets := events(in.Host, d.Name, "usb-reset")
		if len(aborts) == 0 && len(resets) == 0 {
			continue
		}
		var ev []rule.Evidence
		ev = append(ev, logEvidence(in.Host, aborts, "UAS aborts/resets")...)
		ev = append(ev, logEvidence(in.Host, resets, "USB device resets")...)
		bridge := "its USB bridge"
		id := ""
		if d.Health != nil && d.Health.USBID != "" {
			id = d.Health.USBID
			bridge = "its USB bridge " + id
		}
		why := fmt.Sprintf("%s: %s was aborted or reset %d times (%d UAS aborts/resets, %d USB resets); each stalls I/O for the command timeout.",
			diskIdent(d), bridge, len(aborts)+len(resets), len(aborts), len(resets))
		rec := &rule.Recommendation{Kind: rule.KindAdvice, Basis: "kernel log"}
		switch {
		case len(aborts) > 0 && id != "" && (d.USB == nil || d.USB.Driver == "" || d.USB.Driver == "uas"):
			rec.Target = fmt.Sprintf("add usb-storage.quirks=%s:u to the kernel command line (IGNORE_UAS for this bridge only), reboot, and confirm %s uses usb-storage; it costs queued-command throughput", id, d.Name)
			rec.Basis = "UAS aborts from bridge " + id
		case len(aborts) > 0:
			rec.Target = fmt.Sprintf("find the bridge's VID:PID (lsusb) and add usb-storage.quirks=VID:PID:u to the kernel command line for %s", d.Name)
		default:
			rec.Target = fmt.Sprintf("give %s's enclosure its own power (a powered hub or supply), try another cable and port", d.Name)
		}
		f := metaUSBResets.New(d.Name, why, ev...)
		f.Recommendation = rec
		out = append(out, f)
	}
	return out
}

var metaIOErrors = rule.Meta{
	ID: "health-io-errors", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "I/O errors, timeouts or controller resets in the kernel log",
	Doc: "Block-layer I/O errors, libata exceptions, NVMe command timeouts and controller resets for " +
		"a disk whose SMART and link counters do not already explain them. Each is a request that " +
		"failed or stalled for the command timeout. NVMe controllers that drop off the bus (\"controller " +
		"is down\", CSTS=0xffffffff) are often power-state (APST) or PCIe link problems.",
	Refs: []string{refLibataEH, "https://docs.kernel.org/admin-guide/nvme-multipath.html"},
}

func checkIOErrors(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		if diskMedia(in.Host, d).hit {
			continue // said there
		}
		if _, _, sev, hit := linkState(in.Host, d); hit && sev == rule.Warn {
			continue
		}
		io := events(in.Host, d.Name, "io-error")
		nv := events(in.Host, d.Name, "nvme-timeout", "nvme-reset")
		ata := events(in.Host, d.Name, "ata-error")
		if len(io) == 0 && len(nv) == 0 && len(ata) < 2 {
			continue
		}
		var ev []rule.Evidence
		ev = append(ev, logEvidence(in.Host, io, "I/O errors")...)
		ev = append(ev, logEvidence(in.Host, nv, "NVMe timeouts or controller resets")...)
		if len(ata) >= 2 {
			ev = append(ev, logEvidence(in.Host, ata, "libata exceptions")...)
		}
		f := metaIOErrors.New(d.Name, fmt.Sprintf("%s: %d I/O errors, %d NVMe timeouts/resets and %d libata exceptions in the kernel log; requests failed or stalled.",
			diskIdent(d), len(io), len(nv), len(ata)), ev...)
		target := fmt.Sprintf("run a long self-test on %s (smartctl -t long) and read its error log (smartctl -x); check its cable and power", d.Name)
		if len(nv) > 0 {
			target = fmt.Sprintf("update %s's firmware; if the controller drops out, test nvme_core.default_ps_max_latency_us=0 (no deep power states) and check its slot and cooling", d.Name)
		}
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "kernel log"}
		out = append(out, f)
	}
	return out
}

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
	s := smartOf(d)
	if s == nil && d.Health != nil && d.Health.SMART != nil {
		s = d.Health.SMART // a sleeping disk's identity is still its identity
	}
	if s == nil {
		return rule.Evidence{}, "", false
	}
	if strings.Contains(s.Family, "(SMR)") {
		return rule.Ev(smartSource(d), "Model Family: "+s.Family), "is an SMR model (smartctl's drive database: " + s.Family + ")", true
	}
	if s.RotationRPM != nil && *s.RotationRPM > 0 && s.TRIM != nil && *s.TRIM && !strings.Contains(s.Family, "(CMR)") {
		return rule.Ev(smartSource(d), fmt.Sprintf("Rotation Rate: %d rpm, TRIM supported", *s.RotationRPM)), "spins and offers TRIM, the mark of a drive-managed SMR disk", true
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

var metaERC = rule.Meta{
	ID: "health-erc-off", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "Array member without error recovery control (SCT ERC)",
	Doc: "Hard disks only. A desktop drive without SCT ERC (WD TLER, Hitachi/Samsung CCTL) retries a bad sector for " +
		"two minutes or more; the kernel's SCSI command timer (30 s) gives up first, resets the link, and " +
		"md fails the whole member instead of rewriting one sector from redundancy (linux-raid wiki " +
		"\"Timeout Mismatch\"). Drives with ERC: set 7 s with smartctl -l scterc,70,70 at every boot (it " +
		"is volatile on most drives). Drives without: raise /sys/block/sdX/device/timeout to 180 s.",
	Refs: []string{refTimeoutMism, refSmartctl},
}

func checkERC(in rule.Input) []rule.Finding {
	members := memberDisks(in.Host)
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := smartOf(d)
		if s == nil || s.ERC == nil || len(members[d.Name]) == 0 || s.Protocol != "ATA" || !hdd(d) {
			continue
		}
		e := s.ERC
		if e.Supported && e.ReadDS > 0 && e.WriteDS > 0 && e.ReadDS <= 100 {
			continue
		}
		src := smartSource(d)
		f := metaERC.New(d.Name, "", rule.Ev(src, ercText(e)))
		f.Why = fmt.Sprintf("%s is a member of %s and %s: a bad sector can stall the array for minutes and get the disk kicked out.",
			diskIdent(d), strings.Join(members[d.Name], ", "), ercWhat(e))
		if e.Supported {
			f.Recommendation = ercRecommendation(d, e)
		} else {
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs,
				Target: "/sys/block/" + d.Name + "/device/timeout", Value: "180",
				Basis: "no SCT ERC: let the kernel wait out the drive's own recovery"}
		}
		out = append(out, f)
	}
	return out
}

func ercText(e *facts.ERC) string {
	if !e.Supported {
		return "SCT Error Recovery Control: not supported"
	}
	f := func(ds int) string {
		if ds == 0 {
			return "Disabled"
		}
		return fmt.Sprintf("%d (%.1f seconds)", ds, float64(ds)/10)
	}
	return "SCT Error Recovery Control: Read " + f(e.ReadDS) + ", Write " + f(e.WriteDS)
}

func ercWhat(e *facts.ERC) string {
	switch {
	case !e.Supported:
		return "does not support SCT ERC"
	case e.ReadDS == 0 || e.WriteDS == 0:
		return "has SCT ERC disabled"
	}
	return fmt.Sprintf("has SCT ERC set to %.1f s, longer than the kernel's 30 s timer allows for", float64(e.ReadDS)/10)
}

var metaHot = rule.Meta{
	ID: "health-hot", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "Disk runs hot",
	Doc: "Above the drive's own limit (the SCT \"Specified Max Operating Temperature\", an NVMe " +
		"drive's warning composite temperature threshold, a SAS drive's trip temperature) or, for hard " +
		"disks, above 50 °C. NVMe drives throttle when hot; hard disks age faster. Google's FAST'07 study " +
		"saw little effect below about 45 °C, so cooler readings are not flagged.",
	Refs: []string{refGoogleFAST, refSmartctl, refNVMeSpec},
}

// minPlausibleLimit: drives report bogus limits (a Toshiba SSD's SCT
// "Specified Max Operating Temperature: 13 Celsius", smartmontools issue
// 154); no drive is specified to stop below 40 °C.
const minPlausibleLimit = 40

func checkHot(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := smartOf(d)
		if s == nil || s.Temp == nil || *s.Temp <= 0 || *s.Temp > 120 {
			continue
		}
		t := *s.Temp
		limit, by := 0, ""
		switch {
		case s.TempLimit != nil && *s.TempLimit >= minPlausibleLimit && t > *s.TempLimit:
			limit, by = *s.TempLimit, "the drive's own limit"
		case hdd(d) && t > 50:
			limit, by = 50, "the 50 °C a hard disk should stay under"
		case s.NVMe != nil && s.NVMe.CriticalWarning&0x02 != 0:
			by = "the threshold the drive reports crossed (critical warning bit 1)"
		default:
			continue
		}
		ev := []rule.Evidence{rule.Ev(smartSource(d), fmt.Sprintf("temperature %d °C", t))}
		if s.TempLimit != nil {
			ev = append(ev, rule.Ev(smartSource(d), fmt.Sprintf("limit %d °C", *s.TempLimit)))
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
		s := smartOf(d)
		if s == nil || !s.SelfTestLog || len(s.SelfTests) > 0 {
			continue
		}
		name := "/dev/" + d.Name
		if id := bestByID(d.ByID); id != "" {
			name = "/dev/disk/by-id/" + id
		}
		f := metaNoSelfTest.New(d.Name, fmt.Sprintf("%s has an empty self-test log.", diskIdent(d)),
			rule.Ev(smartSource(d), selfTestLogQuote(s)))
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
		s := smartOf(d)
		if s == nil || s.PowerOnHours == nil || *s.PowerOnHours < 43800 {
			continue
		}
		h := *s.PowerOnHours
		f := metaOldAge.New(d.Name, fmt.Sprintf("%s has been powered on for %s.", diskIdent(d), humanHours(h, s.PowerOnMinutes)),
			rule.Ev(smartSource(d), fmt.Sprintf("power-on hours: %d", h)))
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

// HealthLevel is one disk's health for inventory and metrics: 0 no
// problem known, 1 warning (link, USB, I/O errors, hot, worn), 2 failing
// (media or the drive's own verdict); -1 nothing collected.
func HealthLevel(h *facts.Host, d facts.BlockDevice) int {
	if d.Health == nil || (d.Health.SMART == nil || d.Health.SMART.Standby) && !hasEvents(h, d.Name) {
		return -1
	}
	level := 0
	in := rule.Input{Host: &facts.Host{Block: []facts.BlockDevice{d}, MD: h.MD, ZFS: h.ZFS, KernelLog: h.KernelLog}}
	for _, r := range healthRules {
		switch r.ID {
		case metaSMR.ID, metaERC.ID, metaNoSelfTest.ID, metaOldAge.ID:
			continue // configuration and age, not the disk's state
		}
		for _, f := range r.Check(in) {
			switch {
			case f.ID == metaSMARTFailed.ID || f.ID == metaMedia.ID:
				level = 2
			case f.Severity >= rule.Warn && level < 1:
				level = 1
			}
		}
	}
	if level == 0 && (d.Health.SMART == nil || d.Health.SMART.Standby) {
		// Without SMART a quiet kernel log is no proof of health: the
		// disk's state is not collected, not "ok".
		return -1
	}
	return level
}

// hasEvents tells whether the kernel log holds a problem event for disk;
// "link up" lines are logged at every boot and say nothing about health.
func hasEvents(h *facts.Host, disk string) bool {
	if h.KernelLog == nil {
		return false
	}
	for _, e := range h.KernelLog.Events {
		if e.Disk == disk && e.Kind != "link-up" {
			return true
		}
	}
	return false
}

// annotateSick adds to tuning, ceiling and bench findings about a disk
// (or an array built on disks) with health problems what those are: a
// failing disk makes tuning pointless; link or I/O errors explain a disk
// far below its modelled speed better than any knob.
func annotateSick(h *facts.Host, fs []rule.Finding) []rule.Finding {
	if h == nil {
		return fs
	}
	level := map[string]int{}
	for _, d := range h.Block {
		if d.Kind == "disk" {
			if l := HealthLevel(h, d); l > 0 {
				level[d.Name] = l
			}
		}
	}
	if len(level) == 0 {
		return fs
	}
	note := func(failing, erring []string) string {
		var parts []string
		if len(failing) > 0 {
			sort.Strings(failing)
			verb, it := "is", "it is"
			if len(failing) > 1 {
				verb, it = "are", "they are"
			}
			parts = append(parts, fmt.Sprintf("%s %s failing (see health-media-errors / health-smart-failed): tuning is pointless until %s replaced.",
				strings.Join(failing, ", "), verb, it))
		}
		if len(erring) > 0 {
			sort.Strings(erring)
			verb := "has"
			if len(erring) > 1 {
				verb = "have"
			}
			parts = append(parts, fmt.Sprintf("%s %s link, USB, I/O or heat problems (see the health findings): fix those before judging speed or tuning.",
				strings.Join(erring, ", "), verb))
		}
		return " Note: " + strings.Join(parts, " ")
	}
	notes := map[string]string{}
	split := func(names []string) ([]string, []string) {
		var f, e []string
		for _, n := range names {
			switch level[n] {
			case 2:
				f = append(f, n)
			case 1:
				e = append(e, n)
			}
		}
		return f, e
	}
	for name := range level {
		notes[name] = note(split([]string{name}))
	}
	for _, a := range h.MD {
		var names []string
		for _, m := range a.Members {
			names = append(names, m.Disk)
		}
		if f, e := split(names); len(f)+len(e) > 0 {
			notes[a.Name] = note(f, e)
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Family == "health" {
			continue
		}
		subj := strings.Fields(f.Subject)
		if len(subj) == 0 {
			continue
		}
		if n, ok := notes[subj[0]]; ok {
			f.Why += n
		}
	}
	return fs
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
