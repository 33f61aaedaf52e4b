package probe

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
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
	if s, ok := p.optional(dir + "current_link_speed"); ok {
		d.CurGTs = parseGTs(s)
	}
	if s, ok := p.optional(dir + "max_link_speed"); ok {
		d.MaxGTs = parseGTs(s)
	}
	p.h.PCI[addr] = d
}

// parseGTs reads "8.0 GT/s PCIe", "5 GT/s", "2.5 GT/s" (0 for "Unknown").
func parseGTs(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || !strings.HasPrefix(f[1], "GT/s") {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

// parseGbps reads sata_spd values: "6.0 Gbps", "1.5 Gbps" (0 for
// "<unknown>").
func parseGbps(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "Gbps" { // units:input
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
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
		l := &facts.SATALink{Link: "link" + m[1], SpeedGbps: parseGbps(spd), SpeedRaw: strings.TrimSpace(spd)}
		if lim, ok := p.optional(dir + "hw_sata_spd_limit"); ok {
			l.LimitGbps = parseGbps(lim)
			l.LimitRaw = strings.TrimSpace(lim)
		}
		return l
	}
	return nil
}
