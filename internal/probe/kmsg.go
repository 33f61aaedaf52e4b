package probe

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
)

// kernelLog reads the kernel log (live: /dev/kmsg through hostfs's one
// kernel-log reader, hostfs.KernelLog, without blocking; captured:
// .nastune/commands/dmesg.txt in dmesg's own format) and maps each
// storage line to the disk it names.
func (p *prober) kernelLog(disks []*facts.BlockDevice) {
	var b []byte
	var src string
	if p.root.IsLive() {
		log, release, err := readKmsgMapped(pathKmsg, kmsgMax)
		if err != nil {
			p.fail(pathKmsg, err)
			return
		}
		// Nothing below keeps the log's bytes: the snapshot gets a copy
		// of its storage lines, the facts copies of the events' lines.
		defer release()
		b = log
		// The one redaction layer, as Command applies it to a captured
		// dmesg: /dev/kmsg is read past Root's file reads (a device,
		// not a file), and the kernel command line it logs can hold
		// passwords.
		b = hostfs.RedactCommand([]string{"dmesg"}, b)
		src = pathKmsg
		// A snapshot keeps only the storage lines (not the kernel command
		// line, addresses or other drivers' chatter); an audit that saves
		// no snapshot does not filter the log a second time for it.
		if p.root.Recording() {
			p.root.RecordCommand([]string{"dmesg"}, kmsg.Storage(b))
		}
	} else {
		var err error
		b, src, err = p.root.Command(p.ctx, "dmesg")
		if errors.Is(err, fs.ErrNotExist) {
			p.skip(src, "not captured in this tree")
			return
		}
		if err != nil {
			p.fail(src, err)
			return
		}
	}
	kl := &facts.KernelLog{Source: src}
	names := KernelLogDisks(p.h)
	for _, ev := range kmsg.Parse(b) {
		ev.Disk = names[ev.Key]
		kl.Events = append(kl.Events, ev)
	}
	p.h.KernelLog = kl
}

// KernelLogDisks maps each name the kernel log calls a whole disk by to
// that disk: the disk (sdb) and its partitions (sdb6), its libata port
// (ata3, from the disk's sysfs path), its SCSI address (2:0:0:0) and
// host (host2), its USB device (2-1.2, the bridge's), its NVMe
// controller (nvme0 for nvme0n1). A name two disks share (a port
// multiplier's ataN, a SCSI host or USB hub with several disks, an NVMe
// controller with several namespaces) is left out: a line naming it
// cannot say which disk it is about. md, dm, loop and other virtual
// devices are not disks and map to nothing.
//
// It is the one kernel-log → disk mapper: the probe maps the log it
// reads with it, and watch maps the lines it tails with it.
func KernelLogDisks(h *facts.Host) map[string]string {
	owner := map[string]string{}
	shared := map[string]bool{}
	add := func(name, disk string) {
		if name == "" {
			return
		}
		if o, ok := owner[name]; ok && o != disk {
			shared[name] = true
		}
		owner[name] = disk
	}
	for _, d := range h.Block {
		if d.Kind != "disk" {
			continue
		}
		add(d.Name, d.Name)
		for _, pt := range d.Partitions {
			add(pt.Name, d.Name)
		}
		if dh := d.Health; dh != nil {
			add(dh.Port, d.Name)
			add(dh.SCSIAddr, d.Name)
			if host, _, ok := strings.Cut(dh.SCSIAddr, ":"); ok {
				add("host"+host, d.Name)
			}
		}
		if d.USB != nil {
			add(d.USB.Device, d.Name)
		}
		if m := nvmeNamespace().FindStringSubmatch(d.Name); m != nil {
			add(m[1], d.Name)
		}
	}
	for name := range shared {
		delete(owner, name)
	}
	return owner
}

// nvmeNamespace names the controller of an NVMe namespace block device.
var nvmeNamespace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(nvme\d+)n\d+$`) })
