package probe

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// Bus links on the way to disks and NICs: the PCI Express link of every
// PCI function on the path (current and maximum width and speed), and the
// SATA link of disks on libata ports. The ceilings model (internal/ceiling)
// turns them into MB/s.

var ataPort = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ata(\d+)$`) })

// pciPath returns the PCI addresses in a sysfs device path, root first,
// and reads each device once into p.h.PCI.
func (p *prober) pciPath(real string) []string {
	var out []string
	parts := strings.Split(real, "/")
	for i, c := range parts {
		if pciAddr().MatchString(c) {
			out = append(out, c)
			p.pciDevice(c, strings.Join(parts[:i+1], "/"))
		}
	}
	return out
}

// pciDevice reads the device folder met on the path (the same folder
// /sys/bus/pci/devices/ADDR links to).
func (p *prober) pciDevice(addr, devDir string) {
	if _, ok := p.h.PCI[addr]; ok {
		return
	}
	if p.h.PCI == nil {
		p.h.PCI = map[string]facts.PCIDevice{}
	}
	// Read through the stable name every kernel links, when the tree has
	// it, so evidence names the path users know.
	if _, err := p.root.Lstat("/sys/bus/pci/devices/" + addr); err == nil {
		devDir = "/sys/bus/pci/devices/" + addr
	}
	dir := devDir + "/"
	d := facts.PCIDevice{Addr: addr, Dir: devDir}
	d.Class, _ = p.optional(dir + "class")
	if l, err := p.root.Readlink(dir + "driver"); err == nil {
		d.Driver = path.Base(l)
	}
	d.CurWidth, _ = p.optInt(dir + "current_link_width")
	d.MaxWidth, _ = p.optInt(dir + "max_link_width")
	d.CurGTs = linkSpeed(p, dir+"current_link_speed", kernfmt.PCIeLinkSpeed)
	d.MaxGTs = linkSpeed(p, dir+"max_link_speed", kernfmt.PCIeLinkSpeed)
	p.h.PCI[addr] = d
}

// sataLink reads /sys/class/ata_link/linkN for the ataN port in a disk's
// device path (link N is port N's host link; port multipliers add
// linkN.M, not handled).
func (p *prober) sataLink(real string) *facts.SATALink {
	for _, c := range strings.Split(real, "/") {
		m := ataPort().FindStringSubmatch(c)
		if m == nil {
			continue
		}
		dir := "/sys/class/ata_link/link" + m[1] + "/"
		spd, ok := p.optional(dir + "sata_spd")
		if !ok {
			return nil
		}
		l := &facts.SATALink{Link: "link" + m[1], SpeedGbps: p.linkRate(dir+"sata_spd", spd, kernfmt.SATALinkSpeed), SpeedRaw: strings.TrimSpace(spd)}
		if lim, ok := p.optional(dir + "hw_sata_spd_limit"); ok {
			l.LimitGbps = p.linkRate(dir+"hw_sata_spd_limit", lim, kernfmt.SATALinkSpeed)
			l.LimitRaw = strings.TrimSpace(lim)
		}
		return l
	}
	return nil
}

// linkSpeed reads a link speed attribute with its kernfmt parser: 0 when
// it is missing.
func linkSpeed(p *prober, path string, parse func(string) (float64, error)) float64 {
	s, ok := p.optional(path)
	if !ok {
		return 0
	}
	return p.linkRate(path, s, parse)
}

// linkRate parses the link speed s read from path: 0 when the kernel does
// not know it; a malformed value is recorded as not collected.
func (p *prober) linkRate(path, s string, parse func(string) (float64, error)) float64 {
	v, err := parse(s)
	if err != nil {
		p.skip(path, err.Error())
	}
	return v
}
