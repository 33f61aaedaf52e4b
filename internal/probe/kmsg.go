package probe

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
)

// kernelLog reads the kernel log (live: /dev/kmsg, without blocking;
// captured: .nastune/commands/dmesg.txt in dmesg's own format) and maps
// each storage line to the disk it names.
func (p *prober) kernelLog(disks []*facts.BlockDevice) {
	var b []byte
	var src string
	if p.root.IsLive() {
		var err error
		b, err = readKmsg(pathKmsg, kmsgMax)
		if err != nil {
			p.fail(pathKmsg, err)
			return
		}
		// The one redaction layer, as Command applies it to a captured
		// dmesg: /dev/kmsg is read past hostfs, and the kernel command
		// line it logs can hold passwords.
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
	for _, ev := range kmsg.Parse(b) {
		ev.Disk = mapEvent(p.h, disks, ev.Key)
		kl.Events = append(kl.Events, ev)
	}
	p.h.KernelLog = kl
}

// mapEvent finds the whole disk a kernel-log name refers to: sdb or sdb6
// directly, ataN through the port in the disk's sysfs path (unless several
// disks share it behind a port multiplier), H:C:T:L and hostN through the
// SCSI address, a USB device through the bridge's path, nvmeN through the
// controller's namespaces.
func mapEvent(h *facts.Host, disks []*facts.BlockDevice, key string) string {
	if d := h.Disk(key); d != nil && d.Kind == "disk" {
		return d.Name
	}
	var hit []string
	for _, d := range disks {
		dh := d.Health
		switch {
		case strings.HasPrefix(key, "ata") && dh != nil && dh.Port == key,
			scsiAddr.MatchString(key) && dh != nil && dh.SCSIAddr == key,
			strings.HasPrefix(key, "host") && dh != nil && strings.HasPrefix(dh.SCSIAddr, strings.TrimPrefix(key, "host")+":"),
			d.USB != nil && d.USB.Device == key,
			strings.HasPrefix(key, "nvme") && strings.HasPrefix(d.Name, key+"n"):
			hit = append(hit, d.Name)
		default:
			for _, pt := range d.Partitions {
				if pt.Name == key {
					hit = append(hit, d.Name)
				}
			}
		}
	}
	if len(hit) == 1 {
		return hit[0]
	}
	return ""
}
