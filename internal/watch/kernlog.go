package watch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
	"github.com/nastune/nastune/internal/units"
)

// KernelEvent is one storage error the kernel logged during an interval,
// mapped to the whole disk it names ("" when unknown).
type KernelEvent struct {
	Disk string `json:"disk,omitempty"`
	Kind string `json:"kind"` // as internal/parse/kmsg classifies it
	Line string `json:"line"`
}

// errorKinds are the events that mean requests failed or stalled (a link
// coming up, or a corrected md read, are not).
var errorKinds = map[string]bool{
	"link-reset": true, "link-crc": true, "media": true, "io-error": true, "ata-error": true,
	"uas-abort": true, "usb-reset": true, "nvme-timeout": true, "nvme-reset": true,
	"md-read-error": true, "md-failed": true,
}

// kmsgTail follows the kernel log from when the watch began: hostfs's
// kernel-log reader (the one the audit reads the whole log with, which
// refuses anything but a character device) positioned at the end, read
// until EAGAIN each interval, so a watch never blocks on the log and
// never re-reads what was there before it started.
type kmsgTail struct {
	log *hostfs.KernelLog
	// disks maps kernel-log names (ata3, 2:0:0:0, 2-1, nvme0, sdb1) to
	// whole disks: Options.KernelLogDisks, from probe.KernelLogDisks.
	disks map[string]string
	lines []byte // the interval's lines, reused
}

// pathKmsg is the kernel log device (a variable for tests).
var pathKmsg = hostfs.KmsgPath

// maxEventsPerSample bounds what one interval keeps of a flooding log.
const maxEventsPerSample = 64

// maxLogPerSample bounds what one interval reads of a flooding log.
const maxLogPerSample = 1 << 20

func openKmsgTail(name string) (*kmsgTail, error) {
	log, err := hostfs.OpenKernelLog(name)
	if err != nil {
		return nil, err
	}
	if err := log.SeekEnd(); err != nil {
		log.Close()
		return nil, err
	}
	return &kmsgTail{log: log}, nil
}

func (k *kmsgTail) Close() error { return k.log.Close() }

// read returns the storage error events logged since the last read;
// records user space wrote are no events (kmsg.AppendRecord drops them).
func (k *kmsgTail) read() []KernelEvent {
	k.lines, _ = k.log.Append(k.lines[:0], maxLogPerSample) // an unreadable log has no events this interval
	return classify(k.lines, k.disks)
}

// classify turns log lines into error events mapped to disks (disks as
// probe.KernelLogDisks returns them; nil maps none).
func classify(lines []byte, disks map[string]string) []KernelEvent {
	var out []KernelEvent
	for _, ev := range kmsg.Parse(lines) {
		if !errorKinds[ev.Kind] || len(out) == maxEventsPerSample {
			continue
		}
		out = append(out, KernelEvent{Disk: disks[ev.Key], Kind: ev.Kind, Line: ev.Line})
	}
	return out
}

// stallIntervals is how many intervals in a row a device must hold
// requests without completing any to count as stalled.
const stallIntervals = 2

// withKernelErrors ties disk verdicts to the kernel log: a disk that is a
// bottleneck, or whose requests stalled (in flight, none completed, for
// stallIntervals intervals), while the log reports errors for it, is
// named with the log lines as evidence, and the advice is the hardware
// (cable, port, the health findings), not tuning. It is pure.
func withKernelErrors(out []Bottleneck, samples []Sample) []Bottleneck {
	errs := map[string][]KernelEvent{}
	for _, s := range samples {
		for _, e := range s.KernelEvents {
			if e.Disk != "" {
				errs[e.Disk] = append(errs[e.Disk], e)
			}
		}
	}
	if len(errs) == 0 {
		return out
	}
	done := map[string]bool{}
	for i := range out {
		b := &out[i]
		if b.Kind != "disk" {
			continue
		}
		for _, d := range append([]string{b.Subject}, b.Stack...) {
			if ev := errs[d]; len(ev) > 0 && !done[d] {
				done[d] = true
				b.Evidence = append(b.Evidence, logEvidence(d, ev)...)
				b.Why = fmt.Sprintf("the kernel logged %s for %s while it was the bottleneck: its requests are being retried, not served slowly. %s", kinds(ev), d, b.Why)
				b.Next = hardwareNext(d, ev)
				b.Score += 1000 // a failing disk binds before anything tuning can move
			}
		}
	}
	var disks []string
	for d := range errs {
		if !done[d] {
			disks = append(disks, d)
		}
	}
	sort.Strings(disks)
	for _, d := range disks {
		run, longest, inflight := 0, 0, uint64(0)
		for _, s := range samples {
			stalled := false
			for _, ds := range s.Disks {
				if ds.Name == d && ds.InFlight > 0 && ds.ReadIOPS+ds.WriteIOPS == 0 {
					stalled, inflight = true, max(inflight, ds.InFlight)
				}
			}
			if stalled {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
		if longest < stallIntervals {
			continue
		}
		ev := errs[d]
		b := Bottleneck{Kind: "disk", Subject: d, Unit: "requests",
			Evidence: append([]string{fmt.Sprintf("%s: %s in flight and none completed for %d intervals in a row", d, units.Count(int(inflight), "request", "requests"), longest)}, logEvidence(d, ev)...),
			Why: fmt.Sprintf("%s stopped completing requests while the kernel logged %s for it: the disk, its link or its bridge is failing the I/O and the kernel is retrying or resetting; no setting helps until that is fixed.",
				d, kinds(ev)),
			Next:  hardwareNext(d, ev),
			Score: 1000 + float64(longest),
		}
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// logEvidence cites up to three log lines and counts the rest.
func logEvidence(d string, ev []KernelEvent) []string {
	var out []string
	for i, e := range ev {
		if i == 3 {
			out = append(out, fmt.Sprintf("kernel log: %s for %s", units.Count(len(ev)-3, "more error line", "more error lines"), d))
			break
		}
		out = append(out, "kernel log: "+e.Line)
	}
	return out
}

func kinds(ev []KernelEvent) string {
	seen := map[string]bool{}
	var ks []string
	for _, e := range ev {
		if !seen[e.Kind] {
			seen[e.Kind] = true
			ks = append(ks, e.Kind)
		}
	}
	return fmt.Sprintf("%s (%s)", units.Count(len(ev), "error line", "error lines"), strings.Join(ks, ", "))
}

// hardwareNext: CRC errors, link resets and bridge resets point at the
// path (cable, port, backplane, power, USB bridge); media errors and
// timeouts at the disk. Either way the health findings say more.
func hardwareNext(d string, ev []KernelEvent) string {
	path, media := false, false
	for _, e := range ev {
		switch e.Kind {
		case "link-crc", "link-reset", "ata-error", "uas-abort", "usb-reset":
			path = true
		case "media", "md-read-error", "md-failed", "io-error", "nvme-timeout", "nvme-reset":
			media = true
		}
	}
	check := "nastune audit --only health-smart-failed,health-media-errors,health-link-errors,health-io-errors,health-usb-resets"
	switch {
	case path && !media:
		return fmt.Sprintf("check %s's cable, port, backplane and power (or its USB bridge) and run `%s`; not tuning", d, check)
	case media && !path:
		return fmt.Sprintf("look at %s's health (`%s`, smartctl -x) and back it up or replace it; not tuning", d, check)
	}
	return fmt.Sprintf("check %s's cable and port and its health (`%s`); not tuning", d, check)
}

// openKernelLog starts following /dev/kmsg; unreadable (not root,
// dmesg_restrict) it is listed as not collected.
func (s *Sampler) openKernelLog() {
	kl, err := openKmsgTail(pathKmsg)
	if err != nil {
		s.skip(pathKmsg, err)
		return
	}
	s.kl = kl
}
