package probe

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/parse/storcmd"
)

const pathSysBlock = "/sys/block"

func (p *prober) block() {
	ents, err := p.root.ReadDir(pathSysBlock)
	if err != nil {
		p.fail(pathSysBlock, err)
		return
	}
	for _, e := range ents {
		if d, ok := p.blockDev(e.Name()); ok {
			p.h.Block = append(p.h.Block, d)
		}
	}
}

// transport reads the bus a disk hangs from off its sysfs device path.
// The first element that matches names the bus: a USB disk's path also
// holds SCSI host and target folders, and it is "usb", not "scsi".
func transport(real string) string {
	for _, t := range transports {
		if strings.Contains(real, t.elem) {
			return t.bus
		}
	}
	if strings.Contains(real, "/host") && strings.Contains(real, "/target") {
		return "scsi"
	}
	return ""
}

// transports are the sysfs device-path elements that name a disk's bus,
// in the order they are tried.
var transports = []struct{ elem, bus string }{
	{"/usb", "usb"},
	{"/nvme", "nvme"},
	{"/virtio", "virtio"},
	{"/mmc_host/", "mmc"},
	{"/ata", "sata"},
	{"/end_device-", "sas"},
}

var (
	pciAddr   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`) })
	usbDevice = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+-[\d.]+$`) })
	usbBus    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^usb\d+$`) })
)

// controller is the last PCI device on a disk's sysfs path (the HBA,
// AHCI or USB host controller), else the platform device before the
// ataN/hostN/usbN part (SoC SATA on ARM boards).
func controller(real string) string {
	parts := strings.Split(real, "/")
	last := ""
	for i, c := range parts {
		if pciAddr().MatchString(c) {
			last = c
		}
		if last == "" && i > 0 && (strings.HasPrefix(c, "ata") || strings.HasPrefix(c, "host") || usbBus().MatchString(c)) &&
			parts[i-1] != "platform" && parts[i-1] != "devices" {
			return parts[i-1]
		}
	}
	return last
}

// usbLink finds the USB bridge of a disk: its device folder (the last
// "BUS-PORT[.PORT]" component), link speed, the interface's driver (uas
// or usb-storage) and the root hub it shares.
func (p *prober) usbLink(real string) *facts.USBLink {
	parts := strings.Split(real, "/")
	var l facts.USBLink
	devIdx := -1
	for i, c := range parts {
		switch {
		case usbBus().MatchString(c):
			l.Bus = c
		case usbDevice().MatchString(c):
			l.Device, devIdx = c, i
		}
	}
	if devIdx < 0 {
		return nil
	}
	dir := strings.Join(parts[:devIdx+1], "/")
	if _, err := p.root.Lstat("/sys/bus/usb/devices/" + l.Device); err == nil {
		dir = "/sys/bus/usb/devices/" + l.Device // the stable name, when the tree has it
	}
	l.Dir = dir
	if v, ok := p.optInt(dir + "/speed"); ok {
		l.SpeedMbps = v
	}
	l.Version, _ = p.optional(dir + "/version")
	if devIdx+1 < len(parts) {
		if d, err := p.root.Readlink(dir + "/" + parts[devIdx+1] + "/driver"); err == nil {
			l.Driver = path.Base(d)
		}
	}
	return &l
}

func (p *prober) blockDev(name string) (facts.BlockDevice, bool) {
	dir := pathSysBlock + "/" + name
	sys := blockdev.New(p.root)
	d := facts.BlockDevice{Name: name, Kind: sys.Kind(name)}
	sectors, ok := p.optUint(dir + "/size")
	switch {
	case !ok:
		// Only a device that is gone vanished; any other failure (a link
		// loop in a captured tree) the read of size already named.
		if _, err := p.root.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			p.skip(dir, "vanished during the scan")
		}
		return d, false
	case sectors == 0:
		return d, false // empty loop device, card reader without card
	}
	d.SizeBytes = sectors * 512
	q := dir + "/queue/"
	if s, ok := p.optional(q + "scheduler"); ok {
		d.Scheduler, d.Schedulers = kernfmt.Choice(s)
		if len(d.Schedulers) == 1 && d.Schedulers[0] == "none" {
			d.Schedulers = nil // md, dm: no choice to make
		}
	}
	if v, ok := p.optInt(q + "rotational"); ok {
		d.Rotational = boolp(v == 1)
	}
	if v, ok := p.optInt(q + "read_ahead_kb"); ok {
		d.ReadAheadKB = intp(v)
	}
	d.LogicalBlockSize, _ = p.optInt(q + "logical_block_size")
	d.PhysBlockSize, _ = p.optInt(q + "physical_block_size")
	d.MinIOSize, _ = p.optInt(q + "minimum_io_size")
	d.OptIOSize, _ = p.optInt(q + "optimal_io_size")
	if v, ok := p.optInt(dir + "/removable"); ok {
		d.Removable = v == 1
	}
	d.Dev, _ = p.optional(dir + "/dev")
	if d.Kind == "disk" {
		d.Health = &facts.DiskHealth{}
	}
	if real, err := p.root.RealPath(dir); err == nil {
		d.Transport = transport(real)
		if d.Kind == "disk" {
			d.Controller = controller(real)
			d.PCIPath = p.pciPath(real)
			d.SATA = p.sataLink(real)
			if d.Transport == "usb" {
				d.USB = p.usbLink(real)
			}
			diskPort(d.Health, real)
		}
	}
	if d.Kind == "disk" {
		p.diskTopology(&d, dir)
		if l, err := p.root.Readlink(dir + "/device/driver"); err == nil {
			d.Driver = path.Base(l)
		}
		d.Vendor, _ = p.optional(dir + "/device/vendor")
		if m, ok := p.optional(dir + "/device/model"); ok {
			d.Model = m
		}
		if w, ok := p.optional(dir + "/device/wwid"); ok {
			d.WWN = w
		} else if w, ok := p.optional(dir + "/wwid"); ok {
			d.WWN = w
		}
		d.WriteCache, _ = p.optional(q + "write_cache")
		if b, _, ok := p.captured("hdparm", "-B", "/dev/"+name); ok {
			if lvl, ok := storcmd.HdparmAPM(b); ok {
				d.APM = intp(lvl)
			}
		}
	}
	d.AlignmentOffset, _ = p.optInt(dir + "/alignment_offset")
	if u, ok := p.udev(dir); ok {
		d.Udev = true
		d.FSType = u.Props["ID_FS_TYPE"]
		d.Serial = firstNonEmpty(u.Props["ID_SERIAL_SHORT"], u.Props["ID_SERIAL"])
		if u.Props["ID_BUS"] == "usb" {
			// usb-storage without ATA pass-through: the serial is the
			// bridge's, the same for every disk behind it.
			d.BridgeSerial, d.Serial = d.Serial, ""
		}
		if d.Model == "" {
			d.Model = strings.ReplaceAll(u.Props["ID_MODEL"], "_", " ")
		}
		if d.WWN == "" {
			d.WWN = u.Props["ID_WWN"]
		}
		if w, ss, s := u.DiskIDs(); d.Kind == "disk" && w+ss+s != "" {
			d.UdevID = &facts.UdevID{WWN: w, SerialShort: ss, Serial: s}
		}
		for _, l := range u.Links {
			switch {
			case strings.HasPrefix(l, "disk/by-id/"):
				d.ByID = append(d.ByID, strings.TrimPrefix(l, "disk/by-id/"))
			case strings.HasPrefix(l, "disk/by-path/") && d.Health != nil && d.Health.ByPath == "":
				d.Health.ByPath = strings.TrimPrefix(l, "disk/by-path/")
			}
		}
	}
	// Raw names (partitions too), read by blockdev, the folders' one reader.
	d.Slaves, _ = sys.Links(name, blockdev.Slaves)
	d.Holders, _ = sys.Links(name, blockdev.Holders)
	ents, err := p.root.ReadDir(dir)
	if err != nil {
		return d, true
	}
	for _, e := range ents {
		pn := e.Name()
		if !strings.HasPrefix(pn, name) || pn == name {
			continue
		}
		start, ok := p.optUint(dir + "/" + pn + "/start")
		if !ok {
			continue // not a partition (e.g. "slaves", "queue")
		}
		part := facts.Partition{Name: pn, StartSector: start}
		if sectors, ok := p.optUint(dir + "/" + pn + "/size"); ok {
			part.SizeBytes = sectors * 512
		}
		if u, ok := p.udev(dir + "/" + pn); ok {
			part.FSType = u.Props["ID_FS_TYPE"]
		}
		part.Dev, _ = p.optional(dir + "/" + pn + "/dev")
		part.AlignmentOffset, _ = p.optInt(dir + "/" + pn + "/alignment_offset")
		part.Holders, _ = sys.PartLinks(name, pn, blockdev.Holders)
		d.Partitions = append(d.Partitions, part)
		d.Holders = append(d.Holders, part.Holders...)
	}
	return d, true
}

// udev reads the udev database record of a block device folder (its "dev"
// attribute names the record). Hosts without udev have none: not an error.
func (p *prober) udev(sysdir string) (kernfmt.UdevRecord, bool) {
	dev, ok := p.optional(sysdir + "/dev")
	if !ok {
		return kernfmt.UdevRecord{}, false
	}
	data, err := p.root.ReadFile("/run/udev/data/b" + dev)
	if err != nil {
		return kernfmt.UdevRecord{}, false
	}
	return kernfmt.Udev(data), true
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
