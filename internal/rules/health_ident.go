package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
)

// Naming a disk so the right one gets pulled, and saying how to take it
// out of what uses it: the identity the health findings print.

// diskIdent names a disk so the right one gets pulled: model, serial,
// /dev/disk/by-id and by-path names.
func diskIdent(d facts.BlockDevice) string {
	var parts []string
	model, serial := d.Model, d.Serial
	if s := health.SMART(d); s != nil {
		model, serial = firstNonEmptyStr(s.Model, model), firstNonEmptyStr(s.Serial, serial)
	}
	if model != "" {
		parts = append(parts, model)
	}
	if serial != "" {
		parts = append(parts, "serial "+serial)
	}
	if id := bestByID(d.ByID); id != "" {
		parts = append(parts, "/dev/disk/by-id/"+id)
	}
	if d.Health != nil && d.Health.ByPath != "" {
		parts = append(parts, "/dev/disk/by-path/"+d.Health.ByPath)
	}
	if len(parts) == 0 {
		return d.Name
	}
	return d.Name + " (" + strings.Join(parts, ", ") + ")"
}

func bestByID(ids []string) string {
	best := ""
	for _, id := range ids {
		if strings.HasPrefix(id, "wwn-") || strings.HasPrefix(id, "nvme-eui.") {
			if best == "" {
				best = id
			}
			continue
		}
		return id
	}
	return best
}

func firstNonEmptyStr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// replaceAdvice says how to swap the disk out of what uses it.
func replaceAdvice(h *facts.Host, d facts.BlockDevice) string {
	var steps []string
	for _, a := range h.MD {
		for _, m := range a.Members {
			if m.Disk == d.Name {
				steps = append(steps, fmt.Sprintf("mdadm /dev/%s --add /dev/NEW && mdadm /dev/%s --replace /dev/%s --with /dev/NEW", a.Name, a.Name, m.Device))
			}
		}
	}
	if h.ZFS != nil {
		for _, p := range h.ZFS.Pools {
			for _, v := range p.Vdevs {
				for _, dev := range v.Devices {
					if diskForPath(h, dev) == d.Name {
						steps = append(steps, fmt.Sprintf("zpool replace %s %s /dev/disk/by-id/NEW", p.Name, dev))
					}
				}
			}
		}
	}
	if len(steps) == 0 {
		return "back up what is on it now, then replace it"
	}
	return "replace it while the array still has redundancy: " + strings.Join(steps, "; ")
}
