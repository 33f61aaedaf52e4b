package probe

import (
	"errors"
	"io/fs"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
	"github.com/nastune/nastune/internal/startup"
)

// rawLog is the live kernel log as read: its lines (dmesg's format) in a
// mapping that release unmaps, or why it could not be read.
type rawLog struct {
	b       []byte
	release func()
	err     error
}

// readLiveLog reads the live kernel log now (a variable so tests can count
// the reads).
var readLiveLog = func() rawLog {
	b, release, err := readKmsgMapped(pathKmsg, kmsgMax)
	return rawLog{b, release, err}
}

// readLiveLogAhead starts reading the live kernel log on another
// goroutine and returns the function that waits for it (once: its caller
// releases the mapping). Collect starts it first: reading the log is the
// costliest part of a live audit (/dev/kmsg returns one record per
// read(2), ~2,000 on a day-old box, and the kernel formats each one:
// ~0.75 ms here; syslog(2)'s READ_ALL formats the same records and was
// measured no faster), it is kernel time, and it depends on nothing
// another probe reads, so on two or more CPUs it is done by the time
// health asks for it instead of adding to the wall time. The goroutine
// only reads; redaction and parsing run on the caller's goroutine in
// kernelLog, as before, and the Root is used by one goroutine only. Its
// stack is grown once at the start (startup.GrowStack): copied as frames
// deepen, it would fault in the stack maps of each frame's function
// (0.4 MiB of peak RSS measured). With one CPU (GOMAXPROCS 1) there is
// nothing to overlap: it returns nil, and kernelLog reads the log when it
// is asked for (a run that never asks — no disks, interrupted — never
// reads it, as before the read ahead).
func readLiveLogAhead() func() rawLog {
	if runtime.GOMAXPROCS(0) == 1 {
		return nil
	}
	done := make(chan rawLog, 1) // buffered: nobody may wait (no disks, interrupted)
	go func() {
		startup.GrowStack()
		done <- readLiveLog()
	}()
	return func() rawLog { return <-done }
}

// dropLiveLog releases a kernel log read ahead that kernelLog never took
// (no disks, or an interrupted run): a command that collects facts more
// than once keeps no mapping from the runs before.
func (p *prober) dropLiveLog() {
	if p.liveLog == nil {
		return
	}
	if r := p.liveLog(); r.err == nil {
		r.release()
	}
	p.liveLog = nil
}

// kernelLog takes the kernel log's storage events (live: /dev/kmsg read
// ahead by readLiveLogAhead, or now when nothing read it ahead, through
// hostfs's one kernel-log reader, hostfs.KernelLog, without blocking;
// captured:
// .nastune/commands/dmesg.txt in dmesg's own format) and maps each to the
// disk it names.
func (p *prober) kernelLog(disks []*facts.BlockDevice) {
	var events []facts.KernelEvent
	var src string
	if p.root.IsLive() {
		var r rawLog
		if p.liveLog != nil {
			r = p.liveLog()
			p.liveLog = nil // taken: the mapping is released below
		} else { // one CPU, or a prober Collect did not make
			r = readLiveLog()
		}
		if r.err != nil {
			p.fail(pathKmsg, r.err)
			return
		}
		// Nothing below keeps the log's bytes: the snapshot gets a copy
		// of its storage lines, the facts copies of the events' lines.
		defer r.release()
		// The one redaction layer, as Command applies it to a captured
		// dmesg: /dev/kmsg is read past Root's file reads (a device,
		// not a file), and the kernel command line it logs can hold
		// passwords.
		b := hostfs.RedactCommand([]string{"dmesg"}, r.b)
		src = pathKmsg
		// A snapshot keeps only the storage lines (not the kernel command
		// line, addresses or other drivers' chatter); an audit that saves
		// no snapshot does not filter the log a second time for it.
		if p.root.Recording() {
			p.root.RecordCommand([]string{"dmesg"}, kmsg.Storage(b))
		}
		events = kmsg.Parse(b)
	} else {
		b, s, err := p.root.Command(p.ctx, "dmesg")
		src = s
		if errors.Is(err, fs.ErrNotExist) {
			p.skip(src, "not captured in this tree")
			return
		}
		if err != nil {
			p.fail(src, err)
			return
		}
		events = kmsg.Parse(b)
	}
	kl := &facts.KernelLog{Source: src}
	names := KernelLogDisks(p.h)
	for _, ev := range events {
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
