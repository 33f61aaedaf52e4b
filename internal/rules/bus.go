package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Bus links and path ceilings (the bottlenecks issue; factors in
// internal/ceiling and docs/ceilings.md).
var busRules = []rule.Rule{
	{Meta: metaPCIeDegraded, Check: checkPCIeDegraded},
	{Meta: metaSATASlow, Check: checkSATASlow},
	{Meta: metaNetVsStorage, Check: checkNetVsStorage},
	{Meta: metaUSBSlowPath, Check: checkUSBSlowPath},
	{Meta: metaUSBBOT, Check: checkUSBBOT},
	{Meta: metaSharedLink, Check: checkSharedLink},
	{Meta: metaBenchVsCeiling, Check: checkBenchVsCeiling},
	{Meta: metaShareBelowCeilings, Check: checkShareBelowCeilings}, // share_bench.go
	{Meta: metaStorageVsNet, Check: checkStorageVsNet},
}

var metaPCIeDegraded = rule.Meta{
	ID: "bus-pcie-link-degraded", Family: "bus", Severity: rule.Warn, Since: "0.5.0",
	Title: "A storage controller or NIC runs its PCIe link narrower or slower than it supports",
	Doc: "current_link_width/speed below max_link_width/speed means the card sits in a slot with fewer " +
		"lanes (an x8 HBA in a slot wired x4 or x1), or trained down (riser, bad contact, BIOS setting). " +
		"The link then caps every disk or port behind it. Power-saving downtraining (ASPM) happens on " +
		"idle GPUs, rarely on HBAs and NICs; re-check under load.",
	Refs: []string{"https://docs.kernel.org/PCI/sysfs-pci.html", "https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci"},
}

func checkPCIeDegraded(in rule.Input) []rule.Finding {
	h := in.Host
	behind := map[string][]string{}
	for _, d := range h.Block {
		if len(d.PCIPath) > 0 {
			a := d.PCIPath[len(d.PCIPath)-1]
			behind[a] = append(behind[a], d.Name)
		}
	}
	for _, ifc := range h.Interfaces {
		if len(ifc.PCIPath) > 0 {
			a := ifc.PCIPath[len(ifc.PCIPath)-1]
			behind[a] = append(behind[a], ifc.Name)
		}
	}
	var out []rule.Finding
	for _, addr := range slices.Sorted(maps.Keys(behind)) {
		d, ok := h.PCI[addr]
		if !ok || d.CurWidth <= 0 || d.CurGTs <= 0 || d.MaxWidth <= 0 || d.MaxGTs <= 0 || (d.CurWidth >= d.MaxWidth && d.CurGTs >= d.MaxGTs) {
			continue
		}
		now, full := ceiling.PCIeMBs(d.CurWidth, d.CurGTs), ceiling.PCIeMBs(d.MaxWidth, d.MaxGTs)
		who := strings.Join(behind[addr], ", ")
		f := metaPCIeDegraded.New(addr, fmt.Sprintf("%s (%s, class %s) runs x%d at %.1f GT/s but supports x%d at %.1f GT/s: %s share about %s instead of %s.",
			addr, orNone(d.Driver), d.Class, d.CurWidth, d.CurGTs, d.MaxWidth, d.MaxGTs, who, units.MBs(now), units.MBs(full)),
			rule.Ev(pciDir(d)+"/current_link_width", fmt.Sprint(d.CurWidth)),
			rule.Ev(pciDir(d)+"/max_link_width", fmt.Sprint(d.MaxWidth)),
			rule.Ev(pciDir(d)+"/current_link_speed", fmt.Sprintf("%.1f GT/s", d.CurGTs)),
			rule.Ev(pciDir(d)+"/max_link_speed", fmt.Sprintf("%.1f GT/s", d.MaxGTs)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("move the card at %s to a slot wired x%d (check the board manual: many x16-size slots are x4 or x1 electrically), reseat it, check riser and BIOS link settings", addr, d.MaxWidth),
			Basis:  fmt.Sprintf("%s at x%d %.1f GT/s vs %s at x%d %.1f GT/s (lane MB/s × %.2f protocol efficiency)", units.MBs(now), d.CurWidth, d.CurGTs, units.MBs(full), d.MaxWidth, d.MaxGTs, ceiling.PCIeProtocol)}
		out = append(out, f)
	}
	return out
}

var metaSATASlow = rule.Meta{
	ID: "bus-sata-link-slow", Family: "bus", Severity: rule.Warn, Since: "0.5.0",
	Title: "A SATA link negotiated below what its port supports",
	Doc: "sata_spd is the speed the link trained to, hw_sata_spd_limit what the port can do. A drive " +
		"that also supports the higher speed points at the cable, the backplane or a libata.force= " +
		"limit; some drives (older disks, SSDs in power saving) cap it themselves. 3 Gbit/s (276 MB/s " +
		"usable) does not slow a hard disk; it halves a SATA SSD, and 1.5 Gbit/s slows both.",
	Refs: []string{"https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-ata", "https://docs.kernel.org/admin-guide/kernel-parameters.html"},
}

func checkSATASlow(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := d.SATA
		if s == nil || s.SpeedGbps <= 0 || s.LimitGbps <= s.SpeedGbps {
			continue
		}
		rotational := d.Rotational == nil || *d.Rotational
		if rotational && ceiling.SATAMBs(s.SpeedGbps) >= ceiling.HDDMBs {
			continue // a hard disk cannot fill even the slower link
		}
		f := metaSATASlow.New(d.Name, fmt.Sprintf("%s's SATA link runs at %s (about %s usable) on a %s port.", d.Name, units.LinkGbit(s.SpeedGbps), units.MBs(ceiling.SATAMBs(s.SpeedGbps)), units.LinkGbit(s.LimitGbps)),
			rule.Ev("/sys/class/ata_link/"+s.Link+"/sata_spd", fmt.Sprintf("%.1f Gbps", s.SpeedGbps)),          // units:input: the sysfs file's own form
			rule.Ev("/sys/class/ata_link/"+s.Link+"/hw_sata_spd_limit", fmt.Sprintf("%.1f Gbps", s.LimitGbps))) // units:input
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("check %s's drive datasheet for its SATA speed; if it supports %s, replace the cable (or try another port) and look for libata.force= on the kernel command line", d.Name, units.LinkGbit(s.LimitGbps)),
			Basis:  fmt.Sprintf("%s now vs %s at the port's limit; a %s", units.MBs(ceiling.SATAMBs(s.SpeedGbps)), units.MBs(ceiling.SATAMBs(s.LimitGbps)), map[bool]string{true: "hard disk", false: "SSD"}[rotational])}
		out = append(out, f)
	}
	return out
}

var metaNetVsStorage = rule.Meta{
	ID: "bus-network-below-storage", Family: "bus", Severity: rule.Info, Since: "0.5.0",
	Title: "The network is the narrowest link for file service",
	Doc: "Clients read shares through the network: when the fastest wired link carries less TCP " +
		"payload than the array or disk behind the shares can deliver, disk tuning does not show up " +
		"on clients. A faster link (2.5/10 GbE), SMB3 multichannel over several links, or " +
		"link aggregation for many clients (not one stream) is what moves the ceiling. " +
		"`nastune watch` during a transfer shows whether the link is what is full.",
	Refs: []string{"https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html#SERVERMULTICHANNELSUPPORT", "https://docs.kernel.org/networking/bonding.html"},
}

func checkNetVsStorage(in rule.Input) []rule.Finding {
	paths, measured := measuredPaths(in)
	bestNet, bestStore := fastestPaths(paths)
	if bestNet == nil || bestStore == nil || bestStore.CeilingMBs < 1.5*bestNet.CeilingMBs {
		return nil
	}
	what, ev, basis := storageSpeed(bestStore, measured, "delivers up to about")
	f := metaNetVsStorage.New(bestNet.Name, fmt.Sprintf("%s %s, but the fastest wired link (%s) carries about %s of TCP payload.",
		bestStore.Name, what, bestNet.Name, units.MBs(bestNet.CeilingMBs)),
		ev, rule.Ev("network path "+bestNet.Name, fmt.Sprintf("%s, %s", units.MBs(bestNet.CeilingMBs), bestNet.Bottleneck)))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: bestNet.Move + " (see nastune inventory paths)", Basis: basis}
	return []rule.Finding{f}
}

// measuredPaths returns the modelled paths with each storage path's
// ceiling replaced by the speed a saved bench result measured on it, and
// those measurements by path name: measured facts beat models.
func measuredPaths(in rule.Input) ([]ceiling.Path, map[string]measuredPath) {
	paths := append([]ceiling.Path(nil), pathsOf(in)...)
	measured := map[string]measuredPath{}
	for i := range paths {
		if paths[i].Kind == "network" {
			continue
		}
		if m, ok := measuredSpeed(in.Host, paths[i]); ok {
			measured[paths[i].Name] = measuredPath{m, paths[i].CeilingMBs}
			paths[i].CeilingMBs = m.MBs
		}
	}
	return paths, measured
}

// measuredPath is a bench measurement with the ceiling it replaced.
type measuredPath struct {
	facts.BenchMeasure
	model float64
}

// storageSpeed words a storage path's speed, measured or modelled, with
// its evidence and basis.
func storageSpeed(p *ceiling.Path, measured map[string]measuredPath, modelVerb string) (string, rule.Evidence, string) {
	if m, ok := measured[p.Name]; ok {
		return fmt.Sprintf("read %s when measured (%s, %s; the model said %s)", units.MBs(m.MBs), m.Test, m.Source, units.MBs(m.model)),
			rule.Ev(m.Source, fmt.Sprintf("%s %s: %s", m.Device, m.Test, units.MBs(m.MBs))),
			"measured storage speed (saved bench result) against the network's modelled ceiling"
	}
	what := fmt.Sprintf("%s %s", modelVerb, units.MBs(p.CeilingMBs))
	if modelVerb == "delivers about" {
		what += " (bottleneck " + p.Bottleneck + ")"
	}
	return what,
		rule.Ev("storage path "+p.Name, fmt.Sprintf("%s, bottleneck %s", units.MBs(p.CeilingMBs), p.Bottleneck)),
		"ceilings from link speeds, media and RAID factors (docs/ceilings.md)"
}

var metaUSBSlowPath = rule.Meta{
	ID: "bus-usb3-bridge-on-usb2", Family: "bus", Severity: rule.Warn, Since: "0.5.0",
	Title: "A USB 3 disk bridge runs at USB 2 speed",
	Doc: "A SuperSpeed device that enumerates at high speed (480 Mbit/s) reports bcdUSB 2.10: the " +
		"bridge could do 5 Gbit/s or more, but the port, hub or cable on the way is USB 2 (black port, " +
		"old hub, a USB 2 extension cable). At USB 2 a disk moves ~35-40 MB/s instead of 375-440 MB/s.",
	Refs: []string{"https://docs.kernel.org/driver-api/usb/usb.html", "https://www.usb.org/document-library/usb-32-revision-11-june-2022"},
}

func checkUSBSlowPath(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		u := d.USB
		if u == nil || u.SpeedMbps != 480 || u.Version != "2.10" {
			continue
		}
		f := metaUSBSlowPath.New(d.Name, fmt.Sprintf("%s hangs from USB device %s, a USB 3 bridge (bcdUSB 2.10) linked at 480 Mbit/s: about %s instead of about %s.",
			d.Name, u.Device, units.MBs(ceiling.USBMBs(480, u.Driver == "uas")), units.MBs(ceiling.USBMBs(5000, u.Driver == "uas"))),
			rule.Ev(usbDir(u)+"/speed", "480"),
			rule.Ev(usbDir(u)+"/version", u.Version))
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("plug the bridge of %s into a USB 3 port (blue/teal, or marked SS) directly, without USB 2 hubs or extension cables", d.Name),
			Basis:  "bcdUSB 2.10 at high speed: a SuperSpeed device on a USB 2 path"}
		out = append(out, f)
	}
	return out
}

var metaUSBBOT = rule.Meta{
	ID: "bus-usb-storage-not-uas", Family: "bus", Severity: rule.Info, Since: "0.5.0",
	Title: "A disk on a USB 3 link uses usb-storage (Bulk-Only), not UAS",
	Doc: "usb-storage sends one command at a time and waits for its status; UAS queues commands " +
		"like SATA NCQ. On a 5 Gbit/s link that is ~375 vs ~440 MB/s sequential and far more for small " +
		"random I/O. Either the bridge has no UAS, or the kernel disabled it by a quirk (listed in " +
		"drivers/usb/storage/unusual_uas.h or usb-storage.quirks=VID:PID:u) because that bridge " +
		"misbehaves with UAS; only then is usb-storage the right choice.",
	Refs: []string{"https://docs.kernel.org/admin-guide/kernel-parameters.html", "https://github.com/torvalds/linux/blob/master/drivers/usb/storage/unusual_uas.h"},
}

func checkUSBBOT(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		u := d.USB
		if u == nil || u.SpeedMbps < 5000 || u.Driver != "usb-storage" {
			continue
		}
		f := metaUSBBOT.New(d.Name, fmt.Sprintf("%s uses usb-storage on a %s link (about %s; UAS about %s).",
			d.Name, units.LinkMbit(u.SpeedMbps), units.MBs(ceiling.USBMBs(u.SpeedMbps, false)), units.MBs(ceiling.USBMBs(u.SpeedMbps, true))),
			rule.Ev(usbDir(u)+"/speed", fmt.Sprint(u.SpeedMbps)),
			rule.Ev("driver of "+u.Device+"'s interface", u.Driver))
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "check `lsusb -t` for Driver=uas on another enclosure; keep usb-storage if the kernel quirked UAS off for this bridge (dmesg says so)",
			Basis:  "BOT vs UAS factors in docs/ceilings.md"}
		out = append(out, f)
	}
	return out
}

var metaSharedLink = rule.Meta{
	ID: "bus-shared-link-oversubscribed", Family: "bus", Severity: rule.Info, Since: "0.5.0",
	Title: "Disks behind one link can deliver more than the link carries",
	Doc: "Several disks behind one PCIe card, bridge or USB root hub share its bandwidth. When their " +
		"combined sequential speed exceeds it, array scrubs, rebuilds and large reads run at the link's " +
		"pace, whatever the disks and sysctls do. Spreading the disks over controllers or ports, or a " +
		"wider or faster link, moves the ceiling.",
	Refs: []string{"https://docs.kernel.org/PCI/sysfs-pci.html", "https://docs.kernel.org/driver-api/usb/usb.html"},
}

func checkSharedLink(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, p := range pathsOf(in) {
		if p.Kind != "array" {
			continue
		}
		for _, l := range p.Links {
			if l.Shared < 2 || (l.Kind != "pcie" && l.Kind != "usb-bus") {
				continue
			}
			// What the members behind it could deliver on their own.
			demand := 0.0
			for _, m := range l.Behind {
				demand += p.MemberMBs[m]
			}
			if demand <= l.MBs*1.1 {
				continue
			}
			f := metaSharedLink.New(p.Name+" "+l.Name, fmt.Sprintf("%d members of %s share %s (about %s) but could deliver about %s together.",
				l.Shared, p.Name, l.Name, units.MBs(l.MBs), units.MBs(demand)),
				rule.Ev("path "+p.Name, fmt.Sprintf("ceiling %s, bottleneck %s", units.MBs(p.CeilingMBs), p.Bottleneck)))
			f.Device = p.Name
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: "spread the members over more controllers or ports, or use a wider/faster link; see nastune inventory paths",
				Basis:  fmt.Sprintf("sum of the %d members' own ceilings (%s) vs %s for the link", l.Shared, strings.Join(l.Behind, ", "), units.MBs(l.MBs))}
			out = append(out, f)
		}
	}
	return out
}

var metaBenchVsCeiling = rule.Meta{
	ID: "bus-bench-vs-ceiling", Family: "bus", Severity: rule.Info, Since: "0.5.0",
	Title: "Measured sequential read compared with the path's ceiling",
	Doc: "A saved `nastune bench disk` result (in /var/lib/nastune/bench or given with audit --bench) is " +
		"set against the ceiling of the device's path. Near the ceiling, only a faster medium or link " +
		"helps (the bottleneck is named). Far below it, the throughput is lost above the links: " +
		"read-ahead, scheduler, stripe cache, filesystem geometry, CPU (crypto, parity) — the other " +
		"findings of this audit are where to look, and a bench after each change shows what helped. " +
		"While a slow transfer runs, `nastune watch` names what holds it back (a CPU thread, a disk, a link " +
		"or shaper, memory).",
	Refs: []string{"https://docs.kernel.org/block/index.html", "https://fio.readthedocs.io/en/latest/fio_doc.html"},
}

func checkBenchVsCeiling(in rule.Input) []rule.Finding {
	h := in.Host
	if len(h.Bench) == 0 {
		return nil
	}
	paths := map[string]ceiling.Path{}
	for _, p := range pathsOf(in) {
		paths[p.Name] = p
	}
	var out []rule.Finding
	for _, m := range h.Bench {
		p, ok := paths[m.Device]
		if !ok || p.CeilingMBs <= 0 || !m.Read() {
			continue
		}
		share := m.MBs / p.CeilingMBs
		var why, target string
		basis := "measured ÷ modelled ceiling (docs/ceilings.md)"
		switch {
		case share > ceiling.CacheFactor:
			why, target, basis = aboveCeiling(h, m, p)
		case share >= 0.85:
			pct := fmt.Sprintf("%.0f%% of its %s ceiling", share*100, units.MBs(p.CeilingMBs))
			if share > 1 {
				pct = fmt.Sprintf("at its %s ceiling", units.MBs(p.CeilingMBs))
			}
			why = fmt.Sprintf("%s reads %s (%s), %s: it runs at what %s allows.", m.Device, units.MBs(m.MBs), m.Test, pct, p.Bottleneck)
			target = "only a faster medium or link moves it: " + p.Bottleneck
		default:
			why = fmt.Sprintf("%s reads %s (%s), %.0f%% of its %s ceiling (bottleneck %s): %s are lost above the links.", m.Device, units.MBs(m.MBs), m.Test, share*100, units.MBs(p.CeilingMBs), p.Bottleneck, units.MBs(p.CeilingMBs-m.MBs))
			target = "work through this audit's block, md and fs findings for " + m.Device + ", then bench again and compare (nastune bench compare)"
		}
		f := metaBenchVsCeiling.New(m.Device+" "+m.Test, why,
			rule.Ev(m.Source, fmt.Sprintf("%s %s: %s", m.Device, m.Test, units.MBs(m.MBs))),
			rule.Ev("path "+p.Name, fmt.Sprintf("ceiling %s, bottleneck %s", units.MBs(p.CeilingMBs), p.Bottleneck)))
		f.Device = m.Device
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: basis}
		out = append(out, f)
	}
	return out
}

var metaStorageVsNet = rule.Meta{
	ID: "bus-storage-below-network", Family: "bus", Severity: rule.Info, Since: "0.5.0",
	Title: "The disks are the narrowest link for file service",
	Doc: "When every array and disk delivers less than two thirds of what the fastest wired link " +
		"carries, clients wait for the disks: larger socket buffers, jumbo frames or a faster network " +
		"will not show. The storage path's bottleneck (a USB 2 link, one slow disk, a narrow controller " +
		"slot) is what to change. `nastune watch` during a transfer shows which device is full.",
	Refs: []string{"https://docs.kernel.org/driver-api/usb/usb.html", "https://docs.kernel.org/networking/scaling.html"},
}

func checkStorageVsNet(in rule.Input) []rule.Finding {
	paths, measured := measuredPaths(in)
	bestNet, bestStore := fastestPaths(paths)
	if bestNet == nil || bestStore == nil || 1.5*bestStore.CeilingMBs > bestNet.CeilingMBs {
		return nil
	}
	what, ev, basis := storageSpeed(bestStore, measured, "delivers about")
	f := metaStorageVsNet.New(bestStore.Name, fmt.Sprintf("The fastest storage path, %s, %s; %s carries about %s.",
		bestStore.Name, what, bestNet.Name, units.MBs(bestNet.CeilingMBs)),
		ev, rule.Ev("network path "+bestNet.Name, units.MBs(bestNet.CeilingMBs)))
	f.Device = bestStore.Name
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: bestStore.Move, Basis: basis}
	return []rule.Finding{f}
}

// aboveCeiling says why a read measured faster than its path's ceiling
// says nothing about the path: which cache served it, from what the
// result recorded (O_DIRECT or not, the test file's size against RAM)
// and what the disk is (a virtual disk's host caches even O_DIRECT reads
// of a file it holds under QEMU's default cache=writeback, and its rotational flag says nothing of the host's
// disks). Never a share above 100%.
func aboveCeiling(h *facts.Host, m facts.BenchMeasure, p ceiling.Path) (why, target, basis string) {
	direct := strings.HasSuffix(m.Test, "-direct")
	how := ""
	if direct {
		how = " with O_DIRECT"
	}
	why = fmt.Sprintf("%s read %s%s (%s), faster than the modelled ceiling of %s (bottleneck %s): ",
		m.Device, units.MBs(m.MBs), how, m.Test, units.MBs(p.CeilingMBs), p.Bottleneck)
	small := m.Size > 0 && h.Memory.TotalBytes > 0 && m.Size < h.Memory.TotalBytes
	var d *facts.BlockDevice
	for i := range h.Block {
		if h.Block[i].Name == m.Device {
			d = &h.Block[i]
		}
	}
	switch {
	case d != nil && d.Virtual():
		why += fmt.Sprintf("%s is a virtual disk: its host can serve what the guest reads from the host's page cache, O_DIRECT or not (QEMU's default cache=writeback, and writethrough, read through it), and the model cannot know its ceiling (its rotational flag says nothing of the host's disks).", m.Device)
		target = fmt.Sprintf("measure the host's storage on the host, or bench %s with --size larger than the host's RAM; the number says nothing about a disk", m.Device)
		basis = "measured speed of a virtual disk above the modelled ceiling"
		return why, target, basis
	case direct:
		why += "a cache O_DIRECT does not bypass served it (ZFS before OpenZFS 2.3 reads through the ARC; a controller or disk cache), or the path model is wrong."
		basis = "O_DIRECT measurement above the modelled ceiling"
	default:
		why += "a cache was measured (page cache, controller or disk cache) or the model is wrong. The number says nothing about the path."
		basis = "measured speed above the modelled ceiling"
	}
	if small {
		why += fmt.Sprintf(" Its %s test file is smaller than the %s of RAM.", units.Bytes(m.Size), units.Bytes(h.Memory.TotalBytes))
	}
	if direct {
		target = fmt.Sprintf("bench %s with --size larger than RAM plus any controller cache, which no cache can hold; if it still exceeds %s, report the path model", m.Device, units.MBs(p.CeilingMBs))
	} else {
		target = fmt.Sprintf("bench %s again with O_DIRECT over more data than any cache holds (nastune bench disk), and report the path model if it still exceeds %s", m.Device, units.MBs(p.CeilingMBs))
	}
	return why, target, basis
}

// measuredSpeed is the best sequential read a saved bench result measured
// on path p, when it can stand for the path: not above the modelled
// ceiling (then a cache was measured, see bus-bench-vs-ceiling).
func measuredSpeed(h *facts.Host, p ceiling.Path) (facts.BenchMeasure, bool) {
	m, ok, _ := ceiling.BestRead(h.Bench, p)
	return m, ok
}

// pathsOf returns the paths rules.Run modelled, or models them for a
// check called on its own.
func pathsOf(in rule.Input) []ceiling.Path {
	if in.Paths != nil {
		return in.Paths
	}
	return ceiling.Paths(in.Host)
}

// fastestPaths is ceiling.Fastest (the audit's verdict uses it too).
func fastestPaths(paths []ceiling.Path) (bestNet, bestStore *ceiling.Path) {
	return ceiling.Fastest(paths)
}

// pciDir is the folder a PCI device's attributes were read from.
func pciDir(d facts.PCIDevice) string {
	if d.Dir != "" {
		return d.Dir
	}
	return "/sys/bus/pci/devices/" + d.Addr
}

// usbDir is the folder a USB device's attributes were read from.
func usbDir(u *facts.USBLink) string {
	if u.Dir != "" {
		return u.Dir
	}
	return "/sys/bus/usb/devices/" + u.Device
}
