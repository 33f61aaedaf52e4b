package probe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smart"
)

// runSmartctl runs smartctl through the read-only command runner (a
// variable so tests can replay real outputs).
var runSmartctl = cmdrun.Run

// SMARTBudget bounds all smartctl runs of one audit: a box with 24 disks
// answers in seconds, a wedged bridge must not hold the audit for minutes.
const SMARTBudget = 90 * time.Second

const hintSmartmontools = "smartctl not installed: install smartmontools (apt install smartmontools) to read SMART"

var scsiAddr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+:\d+:\d+:\d+$`) })

// health reads smartctl's report for each whole disk (its topology names
// were filled by block), then the kernel log, mapped to those names.
func (p *prober) health() {
	var disks []*facts.BlockDevice
	for i := range p.h.Block {
		if d := &p.h.Block[i]; d.Kind == "disk" && d.Health != nil {
			disks = append(disks, d)
		}
	}
	if len(disks) == 0 {
		return
	}
	p.smartAll(disks)
	p.kernelLog(disks)
}

// diskPort names the libata port ("ata3") and SCSI address of a disk
// from its resolved /sys/block folder.
func diskPort(dh *facts.DiskHealth, real string) {
	for _, c := range strings.Split(real, "/") {
		switch {
		case ataPort().MatchString(c): // the port sataLink reads the link of
			dh.Port = c
		case scsiAddr().MatchString(c):
			dh.SCSIAddr = c
		}
	}
}

// diskTopology reads what health findings name a disk by besides sdX:
// the USB bridge's VID:PID and the zoned model. (Port, SCSI address and
// by-path come from the folder and udev record block resolves anyway.)
func (p *prober) diskTopology(d *facts.BlockDevice, dir string) {
	dh := d.Health
	if d.USB != nil && d.USB.Device != "" {
		ud := "/sys/bus/usb/devices/" + d.USB.Device
		v, ok1 := p.optional(ud + "/idVendor")
		pr, ok2 := p.optional(ud + "/idProduct")
		if ok1 && ok2 {
			dh.USBID = v + ":" + pr
		}
	}
	dh.Zoned, _ = p.optional(dir + "/queue/zoned")
}

// smartAll reads smartctl's report for each disk: from a captured tree's
// files, or by running smartctl (root only) within SMARTBudget.
func (p *prober) smartAll(disks []*facts.BlockDevice) {
	if !p.root.IsLive() {
		missing := 0
		for _, d := range disks {
			if !p.smartCaptured(d) {
				missing++
			}
		}
		if missing == len(disks) {
			p.skip(CommandFile("smartctl", "-x", "-j", "/dev/NAME"), "not captured in this tree (nor the text of smartctl -x)")
		}
		return
	}
	switch {
	case os.Geteuid() != 0:
		p.skip("smartctl", "needs root: run nastune as root to read SMART")
		for _, d := range disks {
			d.Health.NotCollected = "needs root"
		}
		return
	case !cmdrun.Installed("smartctl"):
		p.skip("smartctl", hintSmartmontools)
		for _, d := range disks {
			d.Health.NotCollected = "smartctl not installed"
		}
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, SMARTBudget)
	defer cancel()
	for _, d := range disks {
		if paravirtual(d) {
			// virtio-blk and Xen block front ends pass no SMART (smartctl
			// answers "Unable to detect device type"): the host's disks
			// carry it. Not asked, so an audit in a VM starts no command.
			d.Health.NotCollected = "paravirtual disk (" + d.Name + "): no SMART inside the VM; read it on the host"
			continue
		}
		if ctx.Err() != nil {
			d.Health.NotCollected = "smartctl time budget (90 s) used up by the disks before it"
			continue
		}
		p.smartLive(ctx, d)
	}
}

// smartCaptured reads smartctl_-x_-j_%dev%NAME.txt, else the text form.
func (p *prober) smartCaptured(d *facts.BlockDevice) bool {
	dev := "/dev/" + d.Name
	for _, argv := range [][]string{{"smartctl", "-x", "-j", dev}, {"smartctl", "-x", dev}} {
		b, src, err := p.root.Command(p.ctx, argv...)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			p.fail(src, err)
			d.Health.NotCollected = WhyNotCollected(err)
			return true
		}
		s, perr := smart.Parse(b)
		p.smartReport(d, s, perr, src)
		return true
	}
	d.Health.NotCollected = "not captured in this tree"
	return false
}

// smartLive runs smartctl -x -j (text for 6.x), retrying -d sat behind a
// USB bridge smartctl does not know. A sleeping disk is not woken.
func (p *prober) smartLive(ctx context.Context, d *facts.BlockDevice) {
	dev := "/dev/" + d.Name
	nvme := strings.HasPrefix(d.Name, "nvme")
	run := func(json bool, sat bool) ([]byte, []string, error) {
		argv := []string{"smartctl", "-x"}
		if json {
			argv = append(argv, "-j")
		}
		if !nvme {
			argv = append(argv, "-n", "standby")
		}
		if sat {
			argv = append(argv, "-d", "sat")
		}
		argv = append(argv, dev)
		out, err := runSmartctl(ctx, argv...)
		return out, argv, err
	}
	out, argv, err := run(true, false)
	if len(out) > 0 && !isJSON(out) {
		// smartmontools 6.x: "UNRECOGNIZED OPTION: j"; ask for text.
		out, argv, err = run(false, false)
	}
	s, perr := smart.Parse(out)
	if perr == nil && s.NoAnswer != "" && d.Transport == "usb" {
		if o2, a2, e2 := run(isJSON(out), true); len(o2) > 0 {
			if s2, pe2 := smart.Parse(o2); pe2 == nil && s2.NoAnswer == "" {
				out, argv, err, s = o2, a2, e2, s2
			}
		}
	}
	src := strings.Join(argv, " ")
	if len(out) == 0 {
		if err != nil {
			p.fail(src, err)
			d.Health.NotCollected = WhyNotCollected(err)
		}
		return
	}
	// Record under the name a captured tree uses, without -n/-d.
	rec := []string{"smartctl", "-x", "-j", dev}
	if !isJSON(out) {
		rec = []string{"smartctl", "-x", dev}
	}
	p.root.RecordCommand(rec, out)
	p.smartReport(d, s, perr, src)
}

func isJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\n', '\t', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// smartReport keeps one parsed report (s, or the parse error err) and
// says what could not be had.
func (p *prober) smartReport(d *facts.BlockDevice, s *facts.SMART, err error, src string) {
	if err != nil {
		p.skip(src, err.Error())
		d.Health.NotCollected = "smartctl output unreadable"
		return
	}
	d.Health.Source = src
	switch {
	case s.Standby:
		d.Health.SMART = s // reported, not woken
	case s.NoAnswer != "" && d.Transport == "usb":
		d.Health.NotCollected = "the USB bridge passes no SMART (smartctl: " + s.NoAnswer + ")"
		p.skip(src, d.Health.NotCollected)
	case s.NoAnswer != "":
		d.Health.NotCollected = "smartctl got no answer: " + s.NoAnswer
		p.skip(src, d.Health.NotCollected)
	default:
		d.Health.SMART = s
	}
}

// paravirtual reports a virtio or Xen block front end (by driver, bus or
// name): a disk of a VM that passes no SMART. QEMU's emulated AHCI and
// NVMe disks do answer SMART, so vendor strings are not enough here.
func paravirtual(d *facts.BlockDevice) bool {
	switch d.Driver {
	case "virtio_blk", "vbd", "xen-blkfront", "xen_blkfront":
		return true
	}
	return d.Transport == "virtio" || strings.HasPrefix(d.Name, "vd") || strings.HasPrefix(d.Name, "xvd")
}
