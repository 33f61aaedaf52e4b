package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/rule"
)

// Bus links and path ceilings (the bottlenecks issue; factors in
// internal/ceiling and docs/ceilings.md).
var busRules = []rule.Rule{
	{Meta: metaPCIeDegraded, Check: checkPCIeDegraded},
	{Meta: metaSATASlow, Check: checkSATASlow},
	{Meta: metaNetVsStorage, Check: checkNetVsStorage},
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
	for _, addr := range sortedKeys(behind) {
		d, ok := h.PCI[addr]
		if !ok || d.CurWidth <= 0 || d.CurGTs <= 0 || d.MaxWidth <= 0 || d.MaxGTs <= 0 || (d.CurWidth >= d.MaxWidth && d.CurGTs >= d.MaxGTs) {
			continue
		}
		now, full := ceiling.PCIeMBs(d.CurWidth, d.CurGTs), ceiling.PCIeMBs(d.MaxWidth, d.MaxGTs)
		who := strings.Join(behind[addr], ", ")
		f := metaPCIeDegraded.New(addr, fmt.Sprintf("%s (%s, class %s) runs x%d at %.1f GT/s but supports x%d at %.1f GT/s: %s share about %.0f MB/s instead of %.0f MB/s.",
			addr, orQ(d.Driver), d.Class, d.CurWidth, d.CurGTs, d.MaxWidth, d.MaxGTs, who, now, full),
			rule.Ev("/sys/bus/pci/devices/"+addr+"/current_link_width", fmt.Sprint(d.CurWidth)),
			rule.Ev("/sys/bus/pci/devices/"+addr+"/max_link_width", fmt.Sprint(d.MaxWidth)),
			rule.Ev("/sys/bus/pci/devices/"+addr+"/current_link_speed", fmt.Sprintf("%.1f GT/s", d.CurGTs)),
			rule.Ev("/sys/bus/pci/devices/"+addr+"/max_link_speed", fmt.Sprintf("%.1f GT/s", d.MaxGTs)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("move the card at %s to a slot wired x%d (check the board manual: many x16-size slots are x4 or x1 electrically), reseat it, check riser and BIOS link settings", addr, d.MaxWidth),
			Basis:  fmt.Sprintf("%.0f MB/s at x%d %.1f GT/s vs %.0f MB/s at x%d %.1f GT/s (lane MB/s × %.2f protocol efficiency)", now, d.CurWidth, d.CurGTs, full, d.MaxWidth, d.MaxGTs, ceiling.PCIeProtocol)}
		out = append(out, f)
	}
	return out
}

var metaSATASlow = rule.Meta{
	ID: "bus-sata-link-slow", Family: "bus", Severity: rule.Warn, Since: "0.5.0",
	Title: "A SATA link negotiated below what its port supports",
	Doc: "sata_spd is the speed the link trained to, hw_sata_spd_limit what the port can do. A drive " +
		"that also supports the higher speed points at the cable, the backplane or a libata.force= " +
		"limit; some drives (older disks, SSDs in power saving) cap it themselves. 3 Gbps (276 MB/s " +
		"usable) does not slow a hard disk; it halves a SATA SSD, and 1.5 Gbps slows both.",
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
		f := metaSATASlow.New(d.Name, fmt.Sprintf("%s's SATA link runs at %.1f Gbps (about %.0f MB/s usable) on a %.1f Gbps port.", d.Name, s.SpeedGbps, ceiling.SATAMBs(s.SpeedGbps), s.LimitGbps),
			rule.Ev("/sys/class/ata_link/"+s.Link+"/sata_spd", fmt.Sprintf("%.1f Gbps", s.SpeedGbps)),
			rule.Ev("/sys/class/ata_link/"+s.Link+"/hw_sata_spd_limit", fmt.Sprintf("%.1f Gbps", s.LimitGbps)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("check %s's drive datasheet for its SATA speed; if it supports %.1f Gbps, replace the cable (or try another port) and look for libata.force= on the kernel command line", d.Name, s.LimitGbps),
			Basis:  fmt.Sprintf("%.0f MB/s now vs %.0f MB/s at the port's limit; a %s", ceiling.SATAMBs(s.SpeedGbps), ceiling.SATAMBs(s.LimitGbps), map[bool]string{true: "hard disk", false: "SSD"}[rotational])}
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
		"link aggregation for many clients (not one stream) is what moves the ceiling.",
	Refs: []string{"https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html#SERVERMULTICHANNELSUPPORT", "https://docs.kernel.org/networking/bonding.html"},
}

func checkNetVsStorage(in rule.Input) []rule.Finding {
	paths := ceiling.Paths(in.Host)
	var bestNet, bestStore *ceiling.Path
	for i := range paths {
		p := &paths[i]
		switch p.Kind {
		case "network":
			if bestNet == nil || p.CeilingMBs > bestNet.CeilingMBs {
				bestNet = p
			}
		case "array", "disk":
			if bestStore == nil || p.CeilingMBs > bestStore.CeilingMBs {
				bestStore = p
			}
		}
	}
	if bestNet == nil || bestStore == nil || bestStore.CeilingMBs < 1.5*bestNet.CeilingMBs {
		return nil
	}
	f := metaNetVsStorage.New(bestNet.Name, fmt.Sprintf("%s delivers up to about %.0f MB/s, but the fastest wired link (%s) carries about %.0f MB/s of TCP payload.",
		bestStore.Name, bestStore.CeilingMBs, bestNet.Name, bestNet.CeilingMBs),
		rule.Ev("storage path "+bestStore.Name, fmt.Sprintf("%.0f MB/s, bottleneck %s", bestStore.CeilingMBs, bestStore.Bottleneck)),
		rule.Ev("network path "+bestNet.Name, fmt.Sprintf("%.0f MB/s, %s", bestNet.CeilingMBs, bestNet.Bottleneck)))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: "a faster link, or SMB3 multichannel over several NICs; see nastune inventory paths",
		Basis:  "ceilings from link speeds, media and RAID factors (docs/ceilings.md)"}
	return []rule.Finding{f}
}

func orQ(s string) string {
	if s == "" {
		return "no driver"
	}
	return s
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
