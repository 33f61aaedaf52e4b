package ceiling

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/units"
)

// Link is one hop of a path with what it can carry.
type Link struct {
	Name string `json:"name"`
	// Kind: media, sata, usb, usb-bus, pcie, raid, ethernet.
	Kind string  `json:"kind"`
	MBs  float64 `json:"mb_s"`
	// Shared is how many of the path's disks cross this link (their
	// share of it is MBs / Shared).
	Shared int `json:"shared,omitempty"`
	// Behind names the path's members that cross a shared link.
	Behind []string `json:"behind,omitempty"`
	Note   string   `json:"note,omitempty"`
	// Guess marks a speed the model cannot know from this machine (a
	// virtual disk: the host's storage): a figure, never a claim.
	Guess bool `json:"guess,omitempty"`
	// FullMBs is what the link would carry at its maximum width and
	// speed, when it runs below them.
	FullMBs float64 `json:"full_mb_s,omitempty"`
}

// Path is a data path and its ceiling.
type Path struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"` // array, disk, network
	Members    []string `json:"members"`
	Links      []Link   `json:"links"`
	CeilingMBs float64  `json:"ceiling_mb_s"`
	Bottleneck string   `json:"bottleneck"`
	// Move says what would raise the ceiling.
	Move string `json:"move,omitempty"`
	// Write is the full-stripe write ceiling of an array.
	WriteMBs float64 `json:"write_mb_s,omitempty"`
	// MemberMBs is each member's own ceiling (media, SATA or USB link).
	MemberMBs map[string]float64 `json:"member_mb_s,omitempty"`
}

// Paths computes the storage paths (md arrays and disks outside them) and
// network paths (physical NICs with a link) of a host.
func Paths(h *facts.Host) []Path {
	out := paths(h)
	for i := range out {
		out[i].Move = move(&out[i])
	}
	return out
}

// move names what would raise a path's ceiling, from its bottleneck link.
func move(p *Path) string {
	var b *Link
	for i := range p.Links {
		if strings.HasPrefix(p.Bottleneck, p.Links[i].Name) {
			b = &p.Links[i]
			break
		}
	}
	switch {
	case b == nil && strings.HasPrefix(p.Bottleneck, "pool "):
		return "more or wider vdevs (each raidz vdev reads at its data disks' pace), or faster disks"
	case b == nil:
		return ""
	}
	switch b.Kind {
	case "media":
		if p.Kind == "array" || p.Kind == "pool" {
			return "faster member disks or more data disks"
		}
		if b.Guess {
			return "faster storage on the host, or a disk passed through to the guest"
		}
		return "a faster disk (an SSD), or several disks in an array"
	case "sata":
		return "a link at the port's full speed (cable, port, libata.force), or a faster port"
	case "usb":
		return "a USB 3 port and a UAS-capable enclosure, or SATA"
	case "usb-bus":
		return "spread the disks over more USB root hubs (controllers), or move them to SATA"
	case "pcie":
		return "a slot with more lanes or a newer PCIe generation for " + b.Name
	case "ethernet":
		return "a faster link (2.5/10 GbE), or SMB3 multichannel over several links"
	}
	return ""
}

func paths(h *facts.Host) []Path {
	disks := map[string]*facts.BlockDevice{}
	for i := range h.Block {
		if h.Block[i].Kind == "disk" {
			disks[h.Block[i].Name] = &h.Block[i]
		}
	}
	var out []Path
	inArray := map[string]bool{}
	for _, a := range h.MD {
		var members []*facts.BlockDevice
		for _, m := range a.Members {
			d := disks[m.Disk]
			if d != nil {
				inArray[d.Name] = true // spares too: not a path of their own
			}
			if m.Role != "active" && m.Role != "in_sync" {
				continue
			}
			if d != nil {
				members = append(members, d)
				inArray[d.Name] = true
			}
		}
		if len(members) == 0 {
			continue
		}
		out = append(out, storagePath(h, a.Name, "array", members, mdArray(a.Name, a.Level, len(members))))
	}
	out = append(out, poolPaths(h, inArray)...)
	names := make([]string, 0, len(disks))
	for n := range disks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := disks[n]
		// Members of arrays and pools are part of those paths.
		if inArray[n] || d.Removable && d.SizeBytes == 0 || d.ZFSMember() {
			continue
		}
		out = append(out, storagePath(h, n, "disk", []*facts.BlockDevice{d}, single))
	}
	for _, ifc := range h.Interfaces {
		if !ifc.Physical || ifc.Wireless || ifc.SpeedMbps == nil || *ifc.SpeedMbps <= 0 || ifc.Operstate != "up" {
			continue
		}
		mtu := 1500
		if ifc.MTU != nil {
			mtu = *ifc.MTU
		}
		p := Path{Name: ifc.Name, Kind: "network", Members: []string{ifc.Name}}
		p.Links = append(p.Links, Link{Name: fmt.Sprintf("%s %s MTU %d", ifc.Name, units.LinkMbit(*ifc.SpeedMbps), mtu), Kind: "ethernet",
			MBs: EthernetTCPMBs(*ifc.SpeedMbps, mtu), Note: "TCP payload"})
		p.Links = append(p.Links, pcieLinks(h, ifc.PCIPath)...)
		finish(&p)
		out = append(out, p)
	}
	return out
}

// combine turns the members' own ceilings into a path's read and write
// ceilings, the link that shows how (nil for one disk) and the bottleneck
// named when no shared link is narrower.
type combine func(own map[string]float64, slowest Link) (read, write float64, how *Link, bottleneck string)

func single(_ map[string]float64, slowest Link) (float64, float64, *Link, string) {
	return slowest.MBs, 0, nil, slowest.Name
}

func mdArray(name, level string, n int) combine {
	return func(_ map[string]float64, slowest Link) (float64, float64, *Link, string) {
		f := RAIDRead(level, n)
		how := &Link{Name: fmt.Sprintf("%s %s of %d", name, level, n), Kind: "raid", MBs: f * slowest.MBs,
			Note: fmt.Sprintf("reads %.0f× the slowest member", f)}
		return f * slowest.MBs, RAIDWrite(level, n) * slowest.MBs, how,
			slowest.Name + " (× " + strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") + ")"
	}
}

// storagePath: each member's own ceiling (media, SATA or USB link), the
// links members share (USB root hubs, PCIe functions and bridges), and
// how the members combine (one disk, an md array, a pool).
func storagePath(h *facts.Host, name, kind string, members []*facts.BlockDevice, how combine) Path {
	p := Path{Name: name, Kind: kind, MemberMBs: map[string]float64{}}
	slowest := Link{MBs: math.Inf(1)}
	shared := map[string]*Link{}
	var sharedOrder []string
	share := func(key string, l Link, disk string) {
		if shared[key] == nil {
			shared[key] = &l
			sharedOrder = append(sharedOrder, key)
		}
		shared[key].Shared++
		shared[key].Behind = append(shared[key].Behind, disk)
	}
	for _, d := range members {
		p.Members = append(p.Members, d.Name)
		own := ownLink(h, d)
		if u := d.USB; u != nil && u.SpeedMbps > 0 {
			share("usb:"+u.Bus, Link{Name: "USB root hub " + u.Bus, Kind: "usb-bus", MBs: USBMBs(u.SpeedMbps, true)}, d.Name)
		}
		for _, l := range pcieLinks(h, d.PCIPath) {
			share("pci:"+l.Name, l, d.Name)
		}
		p.MemberMBs[d.Name] = own.MBs
		if own.MBs < slowest.MBs {
			slowest = own
		}
	}
	read, write, link, bottleneck := how(p.MemberMBs, slowest)
	p.Links = append(p.Links, slowest)
	if link != nil {
		p.Links = append(p.Links, *link)
	}
	// A link that k of the n members share carries k/n of the data, so
	// the path moves at most its capacity × n/k.
	p.CeilingMBs, p.WriteMBs, p.Bottleneck = read, write, bottleneck
	n := float64(len(members))
	for _, k := range sharedOrder {
		l := shared[k]
		p.Links = append(p.Links, *l)
		c := l.MBs * n / float64(l.Shared)
		if c < p.CeilingMBs {
			p.CeilingMBs, p.Bottleneck = c, l.Name
		}
		if write > 0 && c < p.WriteMBs {
			p.WriteMBs = c
		}
	}
	return p
}

// ownLink is the narrowest of a disk's own links: its medium, its SATA
// link, its USB link.
func ownLink(h *facts.Host, d *facts.BlockDevice) Link {
	own := mediaLink(h, d)
	if d.SATA != nil && d.SATA.SpeedGbps > 0 {
		l := Link{Name: d.Name + " SATA " + gbps(d.SATA.SpeedGbps), Kind: "sata", MBs: SATAMBs(d.SATA.SpeedGbps)}
		if d.SATA.LimitGbps > d.SATA.SpeedGbps {
			l.FullMBs = SATAMBs(d.SATA.LimitGbps)
			l.Note = "port supports " + gbps(d.SATA.LimitGbps)
		}
		if l.MBs < own.MBs {
			own = l
		}
	}
	if u := d.USB; u != nil && u.SpeedMbps > 0 {
		l := Link{Name: fmt.Sprintf("%s USB %s %s", d.Name, usbName(u.SpeedMbps), orDefault(u.Driver, "?")), Kind: "usb", MBs: USBMBs(u.SpeedMbps, u.Driver == "uas")}
		if l.MBs < own.MBs {
			own = l
		}
	}
	return own
}

func mediaLink(h *facts.Host, d *facts.BlockDevice) Link {
	switch {
	case d.Transport == "nvme":
		// An NVMe drive is bound by its own PCIe link (listed among the
		// shared links); 3500 MB/s, a Gen3 x4 drive's, when it is unknown.
		l := Link{Name: d.Name + " NVMe", Kind: "media", MBs: 3500, Note: "bound by its PCIe link"}
		if links := pcieLinks(h, d.PCIPath); len(links) > 0 {
			l.MBs = links[len(links)-1].MBs
		}
		return l
	case d.Transport == "mmc":
		return Link{Name: d.Name + " SD/eMMC", Kind: "media", MBs: 90, Note: "UHS-I/eMMC 5 class"}
	case d.Virtual():
		// The host's storage, which the guest cannot see: its rotational
		// flag (1 for virtio_blk) says nothing about it.
		return Link{Name: d.Name + " virtual disk", Kind: "media", MBs: HDDMBs, Note: "the host's storage, unseen from the guest: modelled as one rotating disk", Guess: true}
	case d.Rotational != nil && !*d.Rotational:
		return Link{Name: d.Name + " SSD", Kind: "media", MBs: SATASSDMBs}
	}
	return Link{Name: d.Name + " disk", Kind: "media", MBs: HDDMBs, Note: "outer tracks; inner ~half"}
}

// pcieLinks lists the PCIe links on a device path that report a width.
func pcieLinks(h *facts.Host, path []string) []Link {
	var out []Link
	for _, addr := range path {
		d, ok := h.PCI[addr]
		if !ok || d.CurWidth <= 0 || d.CurGTs <= 0 {
			continue
		}
		l := Link{Name: fmt.Sprintf("PCIe %s x%d %s", addr, d.CurWidth, gts(d.CurGTs)), Kind: "pcie", MBs: PCIeMBs(d.CurWidth, d.CurGTs)}
		if d.Driver != "" {
			l.Name += " (" + d.Driver + ")"
		}
		if (d.MaxWidth > d.CurWidth || d.MaxGTs > d.CurGTs) && d.MaxWidth > 0 && d.MaxGTs > 0 {
			l.FullMBs = PCIeMBs(max(d.MaxWidth, d.CurWidth), math.Max(d.MaxGTs, d.CurGTs))
			l.Note = fmt.Sprintf("device supports x%d %s", d.MaxWidth, gts(d.MaxGTs))
		}
		out = append(out, l)
	}
	return out
}

func finish(p *Path) {
	p.CeilingMBs = math.Inf(1)
	for _, l := range p.Links {
		if l.MBs < p.CeilingMBs {
			p.CeilingMBs, p.Bottleneck = l.MBs, l.Name
		}
	}
}

func gbps(v float64) string { return units.LinkGbit(v) }
func gts(v float64) string  { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " GT/s" }

func usbName(mbps int) string {
	switch {
	case mbps <= 12:
		return "1.1"
	case mbps <= 480:
		return "2.0"
	case mbps <= 5000:
		return "3.0"
	}
	return "3.1+"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// poolPaths models each ZFS pool: per data vdev, raidzN of k disks reads
// (k − N)× its slowest member, a mirror k× (ZFS balances reads over the
// sides), a single disk 1×; the pool sums its vdevs; shared links limit it
// as for arrays (capacity × n/k).
func poolPaths(h *facts.Host, taken map[string]bool) []Path {
	if h.ZFS == nil {
		return nil
	}
	var out []Path
	for _, pool := range h.ZFS.Pools {
		var members []*facts.BlockDevice
		type vdev struct {
			name    string
			factor  float64
			members []string
		}
		var vdevs []vdev
		for _, v := range pool.Vdevs {
			if v.Class != "" {
				continue // logs, cache, spares, special
			}
			vd := vdev{name: v.Name, factor: 1}
			for _, dev := range v.Devices {
				if d := h.DiskForPath(dev); d != nil && d.Kind == "disk" {
					vd.members = append(vd.members, d.Name)
					members = append(members, d)
					taken[d.Name] = true
				}
			}
			if len(vd.members) == 0 {
				continue
			}
			k := float64(len(vd.members))
			if v.Slots > 0 && v.Slots < len(vd.members) {
				// replacing-N / spare-N: old and new disk share a position.
				k = float64(v.Slots)
			}
			switch {
			case v.DRAID != nil && v.DRAID.Data > 0:
				// Data share of the non-spare children.
				d := v.DRAID
				vd.factor = float64(d.Children-d.Spares) * float64(d.Data) / float64(d.Data+d.Parity)
			case strings.HasPrefix(v.Type, "raidz"):
				parity := 1.0
				if n := strings.TrimPrefix(v.Type, "raidz"); n == "2" || n == "3" {
					parity = float64(n[0] - '0')
				}
				vd.factor = k - parity
			case v.Type == "mirror":
				vd.factor = k
			}
			vdevs = append(vdevs, vd)
		}
		if len(members) == 0 {
			continue
		}
		sum := func(own map[string]float64, _ Link) (float64, float64, *Link, string) {
			total := 0.0
			var notes []string
			for _, v := range vdevs {
				slow := math.Inf(1)
				for _, m := range v.members {
					slow = math.Min(slow, own[m])
				}
				total += v.factor * slow
				notes = append(notes, fmt.Sprintf("%s %.0f×%.0f", v.name, v.factor, slow))
			}
			how := &Link{Name: "pool " + pool.Name + ": " + strings.Join(notes, " + "), Kind: "raid", MBs: total, Note: "sum of data vdevs"}
			return total, 0, how, "pool " + pool.Name + " vdevs"
		}
		out = append(out, storagePath(h, pool.Name, "pool", members, sum))
	}
	return out
}
