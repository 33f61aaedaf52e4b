package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
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

// diskIdent names a disk so the right one gets pulled: model, serial,
// /dev/disk/by-id and by-path names.
func diskIdent(d facts.BlockDevice) string {
	var parts []string
	model, serial := d.Model, d.Serial
	if s := health.SMART(d); s != nil {
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

func checkLink(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" {
			continue
		}
		o := health.Link(in.Host, d)
		ev, what, sev := o.Evidence, o.What, o.Severity
		if !o.Hit {
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
		aborts, resets := health.USB(in.Host, d)
		if len(aborts) == 0 && len(resets) == 0 {
			continue
		}
		var ev []rule.Evidence
		ev = append(ev, health.LogEvidence(in.Host, aborts, "UAS aborts/resets")...)
		ev = append(ev, health.LogEvidence(in.Host, resets, "USB device resets")...)
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
		if health.Media(in.Host, d).Hit {
			continue // said there
		}
		if o := health.Link(in.Host, d); o.Hit && o.Severity == rule.Warn {
			continue
		}
		io, nv, ata, hit := health.IO(in.Host, d)
		if !hit {
			continue
		}
		var ev []rule.Evidence
		ev = append(ev, health.LogEvidence(in.Host, io, "I/O errors")...)
		ev = append(ev, health.LogEvidence(in.Host, nv, "NVMe timeouts or controller resets")...)
		if len(ata) >= 2 {
			ev = append(ev, health.LogEvidence(in.Host, ata, "libata exceptions")...)
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
		s := health.SMART(d)
		if s == nil || s.ERC == nil || len(members[d.Name]) == 0 || s.Protocol != "ATA" || !hdd(d) {
			continue
		}
		e := s.ERC
		if e.Supported && e.ReadDS > 0 && e.WriteDS > 0 && e.ReadDS <= 100 {
			continue
		}
		src := health.Source(d)
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

// annotateSick adds to tuning, ceiling and bench findings about a disk
// (or an array built on disks) with health problems what those are: a
// failing disk makes tuning pointless; link or I/O errors explain a disk
// far below its modelled speed better than any knob.
func annotateSick(h *facts.Host, fs []rule.Finding) []rule.Finding {
	if h == nil {
		return fs
	}
	level := map[string]health.Level{}
	for _, v := range health.Disks(h) {
		if v.Level > health.OK {
			level[v.Disk] = v.Level
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
			case health.Failing:
				f = append(f, n)
			case health.Warn:
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
