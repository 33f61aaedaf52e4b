package health

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Level is a disk's health. Its integer value is the nastune_disk_health
// gauge (docs/prometheus.md): -1 not collected, 0 no problem known, 1
// warning, 2 failing.
type Level int

const (
	// Unknown: no SMART report was read (or the disk slept) and the
	// kernel log names no problem; a quiet log is no proof of health.
	Unknown Level = -1
	// OK: SMART was read and no test found a problem.
	OK Level = 0
	// Warn: link, USB, I/O errors, heat or spent write endurance.
	Warn Level = 1
	// Failing: media errors or the drive's own verdict.
	Failing Level = 2
)

// String is the level's word: "unknown", "ok", "warn", "failing".
func (l Level) String() string {
	switch l {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Failing:
		return "failing"
	}
	return "unknown"
}

// MarshalText writes the level as its word in JSON.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's word.
func (l *Level) UnmarshalText(b []byte) error {
	for _, x := range []Level{Unknown, OK, Warn, Failing} {
		if string(b) == x.String() {
			*l = x
			return nil
		}
	}
	return fmt.Errorf("health level %q: want unknown, ok, warn or failing", b)
}

// Reason kinds: which test raised a disk's level. The health rules
// (internal/rules, family health) report each with its evidence.
const (
	ReasonSMARTFailed = "smart-failed" // health-smart-failed
	ReasonMedia       = "media"        // health-media-errors
	ReasonWear        = "wear"         // health-wear
	ReasonLink        = "link"         // health-link-errors
	ReasonUSB         = "usb"          // health-usb-resets
	ReasonIO          = "io"           // health-io-errors
	ReasonHot         = "hot"          // health-hot
)

// Reason is one test that raised a disk's level.
type Reason struct {
	Kind  string `json:"kind"`
	Level Level  `json:"level"`
	What  string `json:"what"`
}

// Verdict is one disk's health: its level and the reasons for it (none
// when OK or Unknown).
type Verdict struct {
	Disk    string   `json:"disk"`
	Level   Level    `json:"level"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// Assess judges one disk from its facts and the host's kernel log. It
// looks at the disk's state only: configuration (SMR in an array, SCT
// ERC), missing self-tests and age do not change the level.
func Assess(h *facts.Host, d facts.BlockDevice) Verdict {
	v := Verdict{Disk: d.Name, Level: Unknown}
	noSMART := d.Health == nil || d.Health.SMART == nil || d.Health.SMART.Standby
	if d.Health == nil || noSMART && !hasEvents(h, d.Name) {
		return v
	}
	v.Level = OK
	add := func(kind string, l Level, what string) {
		v.Reasons = append(v.Reasons, Reason{Kind: kind, Level: l, What: what})
		if l > v.Level {
			v.Level = l
		}
	}
	disk := d.Kind == "disk"
	if o := Failed(d); o.Hit {
		add(ReasonSMARTFailed, Failing, strings.Join(o.What, "; "))
	}
	var media, link Observation
	if disk {
		media, link = Media(h, d), Link(h, d)
	}
	if media.Hit {
		add(ReasonMedia, Failing, strings.Join(media.What, ", "))
	}
	if pct, ok := Wear(d); ok && pct >= WearWarn {
		add(ReasonWear, Warn, fmt.Sprintf("%d%% of its rated write endurance used", pct))
	}
	linkWarn := link.Hit && link.Severity >= rule.Warn
	if linkWarn {
		add(ReasonLink, Warn, strings.Join(link.What, "; "))
	}
	if disk {
		if aborts, resets := USB(h, d); len(aborts)+len(resets) > 0 {
			add(ReasonUSB, Warn, fmt.Sprintf("%d UAS aborts/resets, %d USB resets", len(aborts), len(resets)))
		}
		// I/O errors that media or link errors explain are said there.
		if io, nv, ata, hit := IO(h, d); hit && !media.Hit && !linkWarn {
			add(ReasonIO, Warn, fmt.Sprintf("%d I/O errors, %d NVMe timeouts/resets, %d libata exceptions", len(io), len(nv), len(ata)))
		}
	}
	if heat, ok := Hot(d); ok {
		add(ReasonHot, Warn, fmt.Sprintf("%d °C, above %s", heat.Temp, heat.By))
	}
	if v.Level == OK && noSMART {
		// Without SMART a quiet kernel log is no proof of health: the
		// disk's state is not collected, not "ok".
		v.Level = Unknown
	}
	return v
}

// Disks judges every whole disk of the host, in the order of h.Block.
func Disks(h *facts.Host) []Verdict {
	if h == nil {
		return nil
	}
	var out []Verdict
	for _, d := range h.Block {
		if d.Kind == "disk" {
			out = append(out, Assess(h, d))
		}
	}
	return out
}

// hasEvents tells whether the kernel log holds a problem event for disk;
// "link up" lines are logged at every boot and say nothing about health.
func hasEvents(h *facts.Host, disk string) bool {
	if h.KernelLog == nil {
		return false
	}
	for _, e := range h.KernelLog.Events {
		if e.Disk == disk && e.Kind != "link-up" {
			return true
		}
	}
	return false
}
