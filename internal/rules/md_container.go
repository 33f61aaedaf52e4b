package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// External-metadata (IMSM, DDF) containers and their volumes: see
// facts.MDArray.IsContainer and ContainerOf.

// mdVolumes lists the arrays whose metadata names container c.
func mdVolumes(all []facts.MDArray, c string) []facts.MDArray {
	var out []facts.MDArray
	for _, a := range all {
		if a.ContainerOf() == c {
			out = append(out, a)
		}
	}
	return out
}

var metaMDContainerUnused = rule.Meta{
	ID: "md-container-unused", Family: "md", Severity: rule.Info, Since: "0.7.0",
	Title: "md metadata container without a running volume",
	Doc: "Firmware RAID formats (Intel IMSM/RST, DDF) keep their metadata in a container array " +
		"that /proc/mdstat always lists as `inactive … super external:imsm`: the container is " +
		"never started, that is its normal state. The data lives in its volumes " +
		"(`super external:/md0/0`). A container none of whose volumes runs holds disks whose " +
		"volumes were not assembled (mdadm --assemble --scan, or mdmon not running), or disks " +
		"that carry stale firmware-RAID metadata. Do not stop a container whose volumes run.",
	Refs: []string{refMD, "https://man7.org/linux/man-pages/man8/mdadm.8.html"},
}

// checkMDContainerUnused reports a container none of whose volumes runs;
// containers with a running volume give no finding (md-inactive skips
// every container).
func checkMDContainerUnused(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, a := range in.Host.MD {
		if !a.IsContainer() {
			continue
		}
		vols := mdVolumes(in.Host.MD, a.Name)
		running := false
		var names []string
		for _, v := range vols {
			names = append(names, v.Name)
			if !v.Inactive {
				running = true
			}
		}
		if running {
			continue
		}
		var devs []string
		for _, m := range a.Members {
			devs = append(devs, mdDev(m.Device))
		}
		format := strings.TrimPrefix(a.Metadata, "external:")
		why := fmt.Sprintf("%s is an external-metadata (%s) container (containers are always listed inactive)", mdDev(a.Name), format)
		if len(names) == 0 {
			why += "; no volume of it is assembled"
		} else {
			if len(names) == 1 {
				why += "; its volume " + names[0] + " is not running"
			} else {
				why += "; its volumes " + strings.Join(names, ", ") + " are not running"
			}
		}
		if len(devs) > 0 {
			why += "; it holds " + strings.Join(devs, ", ")
		}
		f := metaMDContainerUnused.New(a.Name, why+".", rule.Ev("/proc/mdstat", "super "+a.Metadata))
		f.Device = a.Name
		target := fmt.Sprintf("if these disks should carry a firmware-RAID volume: mdadm --detail %s, then mdadm --assemble --scan (mdmon must run for IMSM/DDF); if they should not, leave it alone until you have read mdadm(8) on --zero-superblock",
			mdDev(a.Name))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target,
			Basis: "container (super " + a.Metadata + ") with no running volume"}
		out = append(out, f)
	}
	return out
}

// mdSparesCover tells whether the spares attached to a degraded array are
// enough to replace every missing member: md rebuilds onto them by itself,
// so no disk needs adding.
func mdSparesCover(a facts.MDArray, missing int) ([]facts.MDMember, bool) {
	spares := mdMembers(a, "spare")
	return spares, missing > 0 && len(spares) >= missing
}

// mdSpareTarget is the advice for a degraded array whose attached spares
// cover the missing members.
func mdSpareTarget(a facts.MDArray, spares []facts.MDMember) (why, target string) {
	var names []string
	for _, m := range spares {
		names = append(names, m.Device)
	}
	isAre, spareList := "are", "spares "+strings.Join(names, ", ")
	if len(names) == 1 {
		isAre, spareList = "is", "spare "+names[0]
	}
	why = fmt.Sprintf("; %s %s attached (%s), enough for the missing members", units.Count(len(spares), "spare", "spares"), isAre, strings.Join(names, ", "))
	switch {
	case a.SyncAction == "reshape":
		target = fmt.Sprintf("no disk to add: md uses the attached %s for recovery once the reshape of %s finishes; let it finish (cat /proc/mdstat) and avoid heavy I/O meanwhile",
			spareList, mdDev(a.Name))
	case a.ReadOnly:
		target = fmt.Sprintf("no disk to add: recovery onto %s starts when %s becomes writable (mdadm --readwrite %s)",
			strings.Join(names, ", "), mdDev(a.Name), mdDev(a.Name))
	default:
		target = fmt.Sprintf("no disk to add: md rebuilds onto the attached %s by itself; if no recovery shows in /proc/mdstat, check mdadm --detail %s",
			spareList, mdDev(a.Name))
	}
	return why, target
}
