package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Disks: alignment, USB bridges, identity, APM: KNOWLEDGE §3.
var diskRules = []rule.Rule{
	{Meta: metaMisaligned, Check: checkMisaligned},
	{Meta: metaUSBDisk, Check: checkUSBDisk},
	{Meta: metaUSBMember, Check: checkUSBMember},
	{Meta: metaNoSerial, Check: checkNoSerial},
	{Meta: metaAPM, Check: checkAPM},
}

// memberDisks maps whole-disk name → the arrays and pools using it.
func memberDisks(h *facts.Host) map[string][]string {
	out := map[string][]string{}
	add := func(disk, owner string) {
		for _, o := range out[disk] {
			if o == owner {
				return
			}
		}
		out[disk] = append(out[disk], owner)
	}
	for _, a := range h.MD {
		for _, m := range a.Members {
			add(m.Disk, a.Name)
		}
	}
	if h.ZFS != nil {
		for _, p := range h.ZFS.Pools {
			for _, v := range p.Vdevs {
				for _, dev := range v.Devices {
					if d := diskForPath(h, dev); d != "" {
						add(d, "pool "+p.Name)
					}
				}
			}
		}
	}
	return out
}

// diskForPath resolves a pool device path (/dev/sdb1, by-id names) to a
// whole-disk name ("" when unknown).
func diskForPath(h *facts.Host, p string) string {
	if d := h.DiskForPath(p); d != nil {
		return d.Name
	}
	return ""
}

var metaMisaligned = rule.Meta{
	ID: "blk-partition-misaligned", Family: "block", Severity: rule.Warn, Since: "0.3.0",
	Title: "Partition does not start on a physical-sector boundary",
	Doc: "Disks with 4 KiB physical sectors (\"Advanced Format\", most drives since 2011) that " +
		"emulate 512-byte sectors must read-modify-write whenever a write does not cover whole " +
		"physical sectors. A partition starting at sector 63 (old DOS tools) misaligns every " +
		"filesystem block: writes slow down by tens of percent. Aligned means (start × 512 − " +
		"alignment_offset) is a multiple of max(physical_block_size, minimum_io_size). Fixing it " +
		"needs the partition re-created (data moved off and back); start partitions at 1 MiB.",
	Refs: []string{refQueueSys, "https://docs.kernel.org/admin-guide/abi-stable.html#abi-sys-block-disk-alignment-offset"},
}

func checkMisaligned(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.Kind != "disk" || max(d.PhysBlockSize, d.MinIOSize) <= 512 {
			continue
		}
		for _, p := range d.Partitions {
			if d.Aligned(p) {
				continue
			}
			unit := max(d.PhysBlockSize, d.MinIOSize)
			f := metaMisaligned.New(p.Name, fmt.Sprintf(
				"%s starts at sector %d (byte %d), not a multiple of %s's %d-byte physical sector: every write of a filesystem block touches two physical sectors.",
				p.Name, p.StartSector, p.StartSector*512, d.Name, unit),
				rule.Ev(blockSource(d, p.Name+"/start"), fmt.Sprint(p.StartSector)),
				rule.Ev(blockSource(d, "queue/physical_block_size"), itoa(int64(d.PhysBlockSize))))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("re-create %s starting at sector 2048 (1 MiB) after moving its data off (needs a rebuild)", p.Name),
				Basis:  fmt.Sprintf("start × 512 mod %d ≠ 0", unit)}
			out = append(out, f)
		}
	}
	return out
}

const refUSB = "https://docs.kernel.org/admin-guide/abi-stable.html#abi-sys-bus-usb-devices-usbx-speed"

var metaUSBDisk = rule.Meta{
	ID: "blk-usb-disk", Family: "block", Severity: rule.Info, Since: "0.3.0",
	Title: "Disk behind a USB bridge",
	Doc: "A disk behind a USB-SATA bridge shares the USB link and its controller with everything " +
		"else on that bus, depends on the bridge firmware (which may hide the disk's serial number " +
		"and SMART data, and resets under load), and runs at the negotiated USB speed: 480 Mbit/s " +
		"(about 35 MB/s) on USB 2, about 400 MB/s on USB 3. UAS (uas driver) queues commands; the " +
		"older usb-storage (Bulk-Only) does one at a time.",
	Refs: []string{refUSB, "https://docs.kernel.org/usb/index.html"},
}

func usbText(u *facts.USBLink) string {
	speed := "unknown speed"
	switch {
	case u.SpeedMbps == 480:
		speed = "USB 2 (480 Mbit/s)"
	case u.SpeedMbps >= 5000:
		speed = fmt.Sprintf("USB 3 (%s)", units.LinkMbit(u.SpeedMbps))
	case u.SpeedMbps > 0:
		speed = units.LinkMbit(u.SpeedMbps)
	}
	drv := ""
	if u.Driver != "" {
		drv = " with " + u.Driver
	}
	return fmt.Sprintf("USB device %s on %s, %s%s", u.Device, u.Bus, speed, drv)
}

func checkUSBDisk(in rule.Input) []rule.Finding {
	members := memberDisks(in.Host)
	var out []rule.Finding
	for _, d := range in.Host.Block {
		if d.USB == nil || len(members[d.Name]) > 0 {
			continue // array members get the stronger finding
		}
		f := metaUSBDisk.New(d.Name, fmt.Sprintf("%s is behind a USB bridge: %s.", d.Name, usbText(d.USB)),
			rule.Ev("/sys/block/"+d.Name+" (device path)", usbText(d.USB)))
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "fine for backups and cold storage; for an always-on data disk prefer SATA", Basis: "device path runs through USB"}
		out = append(out, f)
	}
	return out
}

var metaUSBMember = rule.Meta{
	ID: "blk-usb-array-member", Family: "block", Severity: rule.Warn, Since: "0.3.0",
	Title: "RAID or pool members behind USB bridges",
	Doc: "Array members on USB docks share the bus: several disks behind one host controller " +
		"split its bandwidth (rebuilds crawl at ~20 MB/s), and one bridge reset drops every disk " +
		"behind it at once, which md or ZFS then treats as several failed members. Bridges also " +
		"often hide serial numbers, so a failed disk cannot be told from its neighbours. Use a SATA " +
		"or SAS HBA for array members.",
	Refs: []string{refUSB, "https://raid.wiki.kernel.org/index.php/Timeout_Mismatch"},
}

func checkUSBMember(in rule.Input) []rule.Finding {
	h := in.Host
	members := memberDisks(h)
	type group struct {
		owner string
		disks []string
		buses map[string][]string
	}
	groups := map[string]*group{}
	for _, d := range h.Block {
		if d.USB == nil {
			continue
		}
		for _, owner := range members[d.Name] {
			g := groups[owner]
			if g == nil {
				g = &group{owner: owner, buses: map[string][]string{}}
				groups[owner] = g
			}
			g.disks = append(g.disks, d.Name)
			g.buses[d.USB.Bus] = append(g.buses[d.USB.Bus], d.Name)
		}
	}
	owners := make([]string, 0, len(groups))
	for o := range groups {
		owners = append(owners, o)
	}
	sort.Strings(owners)
	var out []rule.Finding
	for _, o := range owners {
		g := groups[o]
		var shared []string
		var ev []rule.Evidence
		for _, dn := range g.disks {
			for _, d := range h.Block {
				if d.Name == dn {
					ev = append(ev, rule.Ev("/sys/block/"+dn+" (device path)", usbText(d.USB)))
				}
			}
		}
		buses := make([]string, 0, len(g.buses))
		for b := range g.buses {
			buses = append(buses, b)
		}
		sort.Strings(buses)
		for _, b := range buses {
			if len(g.buses[b]) > 1 {
				shared = append(shared, fmt.Sprintf("%d on %s (%s)", len(g.buses[b]), b, strings.Join(g.buses[b], ", ")))
			}
		}
		why := fmt.Sprintf("%d members of %s are behind USB bridges", len(g.disks), o)
		if len(shared) > 0 {
			why += "; sharing one host controller: " + strings.Join(shared, "; ") + ". A reset of that bus drops them all at once"
		}
		f := metaUSBMember.New(o, why+".", ev...)
		f.Device = o
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "move the members of " + o + " to a SATA/SAS controller (an HBA), one bridge failure must not take several disks",
			Basis:  "member device paths run through USB"}
		out = append(out, f)
	}
	return out
}

var metaNoSerial = rule.Meta{
	ID: "blk-member-no-serial", Family: "block", Severity: rule.Warn, Since: "0.3.0",
	Title: "Array member without a serial number",
	Doc: "When a member fails, the kernel names it sdX, and sdX names move between boots. The " +
		"check needs udev's database (absent on some vendor firmware: then nothing is said). " +
		"serial number (or WWN) printed on the label is how the right disk gets pulled. USB bridges " +
		"and some controllers hide it; then write down which bay holds which disk now, or label " +
		"them by /dev/disk/by-path.",
	Refs: []string{"https://docs.kernel.org/admin-guide/devices.html", "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

func checkNoSerial(in rule.Input) []rule.Finding {
	h := in.Host
	members := memberDisks(h)
	var out []rule.Finding
	for _, d := range h.Block {
		owners := members[d.Name]
		if len(owners) == 0 || d.Serial != "" || d.WWN != "" || !d.Udev {
			continue
		}
		why := fmt.Sprintf("%s (member of %s) reports no serial number or WWN: when it fails, nothing tells which physical disk to pull.",
			d.Name, strings.Join(owners, ", "))
		ev := rule.Ev("/run/udev/data/b"+d.Dev, "no ID_SERIAL_SHORT, no ID_WWN")
		if d.BridgeSerial != "" {
			why = fmt.Sprintf("%s (member of %s) shows only its USB bridge's serial (%s), not the disk's: when it fails, nothing tells which physical disk to pull.",
				d.Name, strings.Join(owners, ", "), d.BridgeSerial)
			ev = rule.Ev("/run/udev/data/b"+d.Dev, "ID_BUS=usb, ID_SERIAL="+d.BridgeSerial)
		}
		f := metaNoSerial.New(d.Name, why, ev)
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "record which bay or dock holds " + d.Name + " (ls -l /dev/disk/by-path) and label it",
			Basis:  "no serial in udev or sysfs"}
		out = append(out, f)
	}
	return out
}

var metaAPM = rule.Meta{
	ID: "blk-apm-spindown", Family: "block", Severity: rule.Info, Since: "0.3.0",
	Title: "Array member allows aggressive power management",
	Doc: "hdparm -B levels 1-127 let a drive spin down and park heads on its own. In an array " +
		"every member then wakes in turn (seconds of stall per access) and racks up load cycles. " +
		"254 keeps performance (255 turns APM off where supported). AAM (hdparm -M) is obsolete and " +
		"absent on most drives.",
	Refs: []string{"https://man7.org/linux/man-pages/man8/hdparm.8.html"},
}

func checkAPM(in rule.Input) []rule.Finding {
	h := in.Host
	members := memberDisks(h)
	var out []rule.Finding
	for _, d := range h.Block {
		if d.APM == nil || *d.APM >= 128 || len(members[d.Name]) == 0 {
			continue
		}
		f := metaAPM.New(d.Name, fmt.Sprintf("%s (member of %s) runs APM level %d: it may spin down between accesses.",
			d.Name, strings.Join(members[d.Name], ", "), *d.APM),
			rule.Ev("hdparm -B /dev/"+d.Name, fmt.Sprintf("APM_level = %d", *d.APM)))
		f.Device = d.Name
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "hdparm -B 254 /dev/disk/by-id/… (persist in /etc/hdparm.conf)", Basis: "254: maximum performance without spin-down"}
		out = append(out, f)
	}
	return out
}
