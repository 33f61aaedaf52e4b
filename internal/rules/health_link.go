package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// Transfer problems between disk and host: SATA link errors, USB bridge
// resets, I/O errors and timeouts in the kernel log (health.Link,
// health.USB, health.IO).

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
