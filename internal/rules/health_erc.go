package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// ercRecommendation: a drive with SCT ERC gets 7 s set by nastune apply
// (smartctl now, a udev rule at boot), the disk named by its stable
// /dev/disk/by-id name; without one it is advice to do by hand.
func ercRecommendation(d facts.BlockDevice, e *facts.ERC) *rule.Recommendation {
	cur := fmt.Sprintf("%d,%d", e.ReadDS, e.WriteDS)
	if id := stableID(d); id != "" {
		return &rule.Recommendation{Kind: rule.KindERC, Target: "/dev/disk/by-id/" + id,
			Current: cur, Value: "70,70", Basis: "md/ZFS member; SCT ERC supported (" + ercText(e) + "); 70 = 7.0 s"}
	}
	return &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("smartctl -l scterc,70,70 /dev/%s now, and at every boot with a udev rule "+
			"ACTION==\"add\", SUBSYSTEM==\"block\", KERNEL==\"sd*[!0-9]\", ENV{ID_SERIAL}==\"…\", RUN+=\"/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%%k\" "+
			"(%s has no /dev/disk/by-id name for nastune apply to use)", d.Name, d.Name),
		Current: ercText(e), Value: "70,70 (7.0 s)", Basis: "md/ZFS member; SCT ERC supported"}
}

// stableID picks the disk's by-id name: the ata- one (its udev ID_SERIAL),
// else any but the wwn- one, else the wwn- one.
func stableID(d facts.BlockDevice) string {
	best := ""
	for _, id := range d.ByID {
		switch {
		case strings.Contains(id, "-part"):
			continue
		case strings.HasPrefix(id, "ata-"):
			return id
		case best == "" || strings.HasPrefix(best, "wwn-"):
			best = id
		}
	}
	return best
}

var metaERC = rule.Meta{
	ID: "health-erc-off", Family: "health", Severity: rule.Warn, Since: "0.9.0",
	Title: "Array member without error recovery control (SCT ERC)",
	Doc: "Hard disks only. A desktop drive without SCT ERC (WD TLER, Hitachi/Samsung CCTL) retries a bad sector for " +
		"two minutes or more; the kernel's SCSI command timer (30 s) gives up first, resets the link, and " +
		"md fails the whole member instead of rewriting one sector from redundancy (linux-raid wiki " +
		"\"Timeout Mismatch\"). Drives with ERC: set 7 s with smartctl -l scterc,70,70 at every boot (it " +
		"is volatile on most drives). Drives without: raise /sys/block/sdX/device/timeout to 180 s.",
	Refs: []string{refTimeoutMism, refSmartctl},
}

func checkERC(in rule.Input) []rule.Finding {
	members := memberDisks(in.Host)
	var out []rule.Finding
	for _, d := range in.Host.Block {
		s := health.SMART(d)
		if s == nil || s.ERC == nil || len(members[d.Name]) == 0 || s.Protocol != "ATA" || !hdd(d) {
			continue
		}
		e := s.ERC
		if e.Supported && e.ReadDS > 0 && e.WriteDS > 0 && e.ReadDS <= 100 {
			continue
		}
		src := health.Source(d)
		f := metaERC.New(d.Name, "", rule.Ev(src, ercText(e)))
		f.Why = fmt.Sprintf("%s is a member of %s and %s: a bad sector can stall the array for minutes and get the disk kicked out.",
			diskIdent(d), strings.Join(members[d.Name], ", "), ercWhat(e))
		if e.Supported {
			f.Recommendation = ercRecommendation(d, e)
		} else {
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs,
				Target: "/sys/block/" + d.Name + "/device/timeout", Value: "180",
				Basis: "no SCT ERC: let the kernel wait out the drive's own recovery"}
		}
		out = append(out, f)
	}
	return out
}

func ercText(e *facts.ERC) string {
	if !e.Supported {
		return "SCT Error Recovery Control: not supported"
	}
	f := func(ds int) string {
		if ds == 0 {
			return "Disabled"
		}
		return fmt.Sprintf("%d (%.1f seconds)", ds, float64(ds)/10)
	}
	return "SCT Error Recovery Control: Read " + f(e.ReadDS) + ", Write " + f(e.WriteDS)
}

func ercWhat(e *facts.ERC) string {
	switch {
	case !e.Supported:
		return "does not support SCT ERC"
	case e.ReadDS == 0 || e.WriteDS == 0:
		return "has SCT ERC disabled"
	}
	return fmt.Sprintf("has SCT ERC set to %.1f s, longer than the kernel's 30 s timer allows for", float64(e.ReadDS)/10)
}
