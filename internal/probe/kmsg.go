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

// liveLog is what the live kernel log gave: its storage events (lines
// copied out of the log), the log's storage lines when the run records a
// snapshot, or why it could not be read.
type liveLog struct {
	events  []facts.KernelEvent
	storage []byte
	err     error
}

// readLiveLogAhead starts reading, redacting and parsing the live kernel
// log on another goroutine and returns the function that waits for it.
// Collect starts it first: it is the costliest source of a live audit
// (about a fifth of its CPU time: /dev/kmsg returns one record per
// read(2), ~2,000 records on a day-old box, and the kernel formats each
// one; syslog(2)'s READ_ALL formats the same records and was measured no
// faster) and it depends on nothing another probe reads, so on two or
// more CPUs it is done by the time health asks for it instead of adding
// to the wall time. Only the disk names (from block) are mapped later, by
// kernelLog. With one CPU (GOMAXPROCS 1) there is nothing to overlap: the
// log is read when first asked for, on the asking goroutine, as before.
// Recording is asked here, before the goroutine starts; the storage lines
// are recorded by kernelLog, so the Root is used by one goroutine only.
func readLiveLogAhead(recording bool) func() liveLog {
	var r *liveLog
	if runtime.GOMAXPROCS(0) == 1 {
		return func() liveLog {
			if r == nil {
				v := readLiveLog(recording)
				r = &v
			}
			return *r
		}
	}
	done := make(chan liveLog, 1) // buffered: nobody may wait (no disks, interrupted)
	go func() {
		// Grown once at the start, the stack is not copied as the
		// parser's frames deepen: each copy reads the stack maps of
		// the frames on it, which costs resident pages of the binary
		// (startup's doc; 0.4 MiB of peak RSS measured here).
		startup.GrowStack()
		done <- readLiveLog(recording)
	}()
	return func() liveLog {
		if r == nil {
			v := <-done
			r = &v
		}
		return *r
	}
}

// readLiveLog reads the live kernel log, redacts it and parses its
// storage events (and keeps its storage lines for a snapshot).
func readLiveLog(recording bool) liveLog {
	var r liveLog
	log, release, err := readKmsgMapped(pathKmsg, kmsgMax)
	if err != nil {
		r.err = err
		return r
	}
	// Nothing kept here holds the log's bytes: the storage lines and the
	// events' lines are copies.
	defer release()
	// The one redaction layer, as Command applies it to a captured
	// dmesg: /dev/kmsg is read past Root's file reads (a device, not a
	// file), and the kernel command line it logs can hold passwords.
	b := hostfs.RedactCommand([]string{"dmesg"}, log)
	// A snapshot keeps only the storage lines (not the kernel command
	// line, addresses or other drivers' chatter); an audit that saves no
	// snapshot does not filter the log a second time for it.
	if recording {
		r.storage = kmsg.Storage(b)
	}
	r.events = kmsg.Parse(b)
	return r
}

// kernelLog takes the kernel log's storage events (live: /dev/kmsg read
// ahead by readLiveLogAhead through hostfs's one kernel-log reader,
// hostfs.KernelLog, without blocking; captured:
// .nastune/commands/dmesg.txt in dmesg's own format) and maps each to the
// disk it names.
func (p *prober) kernelLog(disks []*facts.BlockDevice) {
	var events []facts.KernelEvent
	var src string
	if p.root.IsLive() {
		if p.liveLog == nil { // a prober Collect did not make
			p.liveLog = readLiveLogAhead(p.root.Recording())
		}
		r := p.liveLog()
		if r.err != nil {
			p.fail(pathKmsg, r.err)
			return
		}
		src = pathKmsg
		if p.root.Recording() {
			p.root.RecordCommand([]string{"dmesg"}, r.storage)
		}
		events = r.events
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
