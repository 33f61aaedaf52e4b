package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/netns"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/units"
)

// DiskMeasurer measures the tests on one test file, kept between calls
// (bench.RemoveTestFile removes it at the end). One sample repeats each
// test until it has run for minTime and reports the total work over the
// total time: a short burst of other I/O weighs less than in one pass.
func DiskMeasurer(file string, size int64, tests []string, bs int, runtime, minTime time.Duration) Measurer {
	return func(ctx context.Context) (Sample, error) {
		type acc struct{ bytes, ios, secs float64 }
		sum := map[string]*acc{}
		for _, t := range tests {
			sum[t] = &acc{}
		}
		start := time.Now()
		for pass := 0; pass == 0 || time.Since(start) < minTime; pass++ {
			r, err := bench.RunDisk(ctx, bench.DiskOptions{File: file, Size: size, Tests: tests, Runtime: runtime, Keep: true, Repeat: 1, SeqBlock: bs})
			if err != nil {
				return nil, err
			}
			for _, t := range r.Tests {
				if t.Skipped != "" {
					return nil, fmt.Errorf("%s: %s", t.Name, t.Skipped)
				}
				a := sum[t.Name]
				a.bytes += float64(t.Bytes)
				a.ios += t.IOPS * t.Seconds
				a.secs += t.Seconds
			}
		}
		s := Sample{}
		for name, a := range sum {
			if a.secs <= 0 {
				return nil, fmt.Errorf("%s: no time measured", name)
			}
			if Unit(name) == "IOPS" {
				s[name] = a.ios / a.secs
			} else {
				s[name] = a.bytes / a.secs / 1e6
			}
		}
		return s, nil
	}
}

// Unit is the unit tune compares a test in: MB/s (10^6 B/s, units.MBsUnit)
// for sequential tests, IOPS for random ones.
func Unit(test string) string {
	if strings.HasPrefix(test, "rand") {
		return "IOPS"
	}
	return units.MBsUnit
}

// JournalApplier makes trials and the final run through internal/apply.
type JournalApplier struct {
	Opts apply.Options
	Sys  string // "/sys" (where udev matches are read)
	// UdevData is udev's database folder ("" = /run/udev/data).
	UdevData string
	Devs     []Device
	// Host (optional) is what the probe read: with it, a kept sysctl's
	// line is checked against the files applied after nastune's at boot
	// (plan.SysctlPersistence), as `nastune plan` does.
	Host *facts.Host
	// NetNS is whether tune runs in the host's initial network namespace
	// (netns.Self). Only there does a net.* line in /etc/sysctl.d set
	// what was measured: at boot systemd-sysctl applies it to the initial
	// namespace. Elsewhere (and Unknown, the zero value) a kept net.*
	// value stays runtime only, for this namespace (plan.NetRuntimeOnly).
	NetNS netns.State
}

// Trial implements Applier.
func (j *JournalApplier) Trial(path, value string) (string, error) {
	m, err := apply.Trial(path, value, j.Opts)
	if err != nil {
		if m != nil && m.ID != "" {
			// A failed trial was rolled back by apply; say which run.
			return "", fmt.Errorf("%w (run %s)", err, m.ID)
		}
		return "", err
	}
	return m.ID, nil
}

// Read implements Reader: the live value as apply reads it.
func (j *JournalApplier) Read(path string) (string, error) { return apply.ReadValue(j.Opts, path) }

// Revert implements Applier.
func (j *JournalApplier) Revert(id string) (string, error) { return apply.Revert(id, j.Opts) }

// Persist implements Applier: one run with each kept value and, where the
// device can be matched stably, its udev rule.
func (j *JournalApplier) Persist(kept []Kept) (string, error) {
	var p plan.Plan
	for i := range kept {
		c, err := j.change(i, &kept[i])
		if err != nil {
			return "", err
		}
		p.Changes = append(p.Changes, c)
	}
	if j.Host != nil {
		extra, _ := plan.SysctlPersistence(j.Host, p.Changes)
		for i, c := range p.Changes {
			if c.Persist != nil && c.Persist.Overridden != "" {
				kept[i].Persisted = "runtime only: " + c.Persist.Overridden + " sets it again after " + plan.SysctlFile + " at boot, and nastune does not edit that file"
				p.Changes[i].Persist = nil
			}
			for _, e := range extra {
				if e.Persist != nil && e.Persist.Edit != nil && e.Persist.Edit.Key == c.Target {
					kept[i].Persisted += "; " + e.Target + " set it again later at boot: its line is commented out (undo restores it)"
				}
			}
		}
		p.Changes = append(p.Changes, extra...)
	}
	m, err := apply.Apply(p, j.Opts)
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// change is the plan change of the i-th kept block attribute: its runtime
// value and, where the device can be matched stably, its udev rule (k's
// Persisted says which).
func (j *JournalApplier) change(i int, k *Kept) (plan.Change, error) {
	c := plan.Change{ID: fmt.Sprintf("tune-%d", i+1), Finding: "tune", Kind: "sysfs", Target: k.Knob, From: k.From, To: k.To, Runtime: k.Knob}
	if key, ok := strings.CutPrefix(k.Knob, "/proc/sys/"); ok {
		// A sysctl: the line in nastune's sysctl.d file, as plan
		// writes it (confsyntax refuses a value outside its safe set).
		c.Kind, c.Target = "sysctl", strings.ReplaceAll(key, "/", ".")
		line, err := confsyntax.SysctlLine(c.Target, k.To)
		if err != nil {
			return c, fmt.Errorf("%s: %w", c.Target, err)
		}
		if why := plan.NetRuntimeOnly(j.NetNS.Where(), c.Target, k.To, line); why != "" {
			k.Persisted = "runtime only: " + why
			return c, nil
		}
		c.Persist = &plan.Persist{File: plan.SysctlFile, Line: line}
		k.Persisted = plan.SysctlFile
		return c, nil
	}
	if line, why := j.udevLine(k.Knob, k.To); line != "" {
		c.Persist = &plan.Persist{File: plan.UdevFile, Line: line}
		k.Persisted = plan.UdevFile
	} else {
		k.Persisted = "runtime only: " + why
	}
	return c, nil
}

// udevLine is the rule that sets a block attribute again when the device
// appears: disks by udev's ID_WWN or serial (from the udev database), dm
// devices by DM_UUID, loop devices by backing file, md arrays by name.
// confsyntax writes it; a value outside its safe set leaves the knob
// runtime only, with the reason.
func (j *JournalApplier) udevLine(knob, value string) (string, string) {
	parts := strings.SplitN(strings.TrimPrefix(knob, "/sys/block/"), "/", 2)
	if len(parts) != 2 {
		return "", "not a block attribute"
	}
	name, attr := parts[0], parts[1]
	sys := j.Sys
	if sys == "" {
		sys = "/sys"
	}
	var dev confsyntax.Device
	var err error
	bd := blockdev.At(hostfs.Live(), sys)
	switch bd.Kind(name) {
	case "md":
		dev, err = confsyntax.MDArray(name)
	case "dm":
		uuid := strings.TrimSpace(readSmall(filepath.Join(sys, "block", name, "dm", "uuid")))
		if uuid == "" {
			return "", name + " has no dm UUID to match on"
		}
		dev, err = confsyntax.DMUUID(uuid)
	case "loop":
		l, ok := bd.Loop(name)
		if !ok || l.Deleted {
			return "", name + " has no backing file to match on"
		}
		dev, err = confsyntax.LoopBacking(l.File)
	case "disk":
		dev, err = confsyntax.Disk(j.udevRecord(sys, name).DiskIDs())
		if errors.Is(err, confsyntax.ErrNoID) {
			return "", name + " has no serial or WWN to match on"
		}
	default:
		return "", "no stable way to match " + name
	}
	if err != nil {
		return "", name + ": " + err.Error()
	}
	line, err := confsyntax.AttrRule(dev, attr, value)
	if err != nil {
		return "", err.Error()
	}
	return line, ""
}

// udevRecord reads the udev database entry of a block device
// (UdevData/bMAJ:MIN).
func (j *JournalApplier) udevRecord(sys, name string) kernfmt.UdevRecord {
	dev := strings.TrimSpace(readSmall(filepath.Join(sys, "block", name, "dev")))
	dir := j.UdevData
	if dir == "" {
		dir = "/run/udev/data"
	}
	b, err := os.ReadFile(filepath.Join(dir, "b"+dev))
	if dev == "" || err != nil {
		return kernfmt.UdevRecord{}
	}
	return kernfmt.Udev(b)
}

// FinishOrphans reverts the trials a killed tune left live. Whether a tune
// is running is the tune lock, never a pid: it takes the lock (and returns
// an error matching apply.ErrTuneRunning when a living tune holds it, whose
// trials are its own).
func FinishOrphans(o apply.Options) ([]string, error) {
	open, err := apply.OpenTrials(o)
	if err != nil || len(open) == 0 {
		return nil, err
	}
	unlock, err := apply.TuneLock(o)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return FinishOrphansLocked(o)
}

// FinishOrphansLocked reverts every live trial; the caller holds the tune
// lock (apply.TuneLock), so none of them belongs to a running tune. Each
// is tried: one that cannot be reverted does not keep the others live.
func FinishOrphansLocked(o apply.Options) ([]string, error) {
	open, err := apply.OpenTrials(o)
	if err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for i := len(open) - 1; i >= 0; i-- {
		id := open[i].ID
		if _, err := apply.Revert(id, o); err != nil && !errors.Is(err, apply.ErrBadRunID) {
			errs = append(errs, fmt.Errorf("reverting trial run %s left by a killed tune: %w", id, err))
			continue
		}
		done = append(done, id)
	}
	return done, errors.Join(errs...)
}

func readSmall(p string) string {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	return string(b[:n])
}
