package render

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/parse/smart"
)

// promHealth writes the disk-health gauges (docs/prometheus.md): one
// nastune_disk_health per whole disk, and SMART values only where smartctl
// answered, decoded as smartctl decodes them.
func promHealth(p *promWriter, h *facts.Host) {
	if h == nil {
		return
	}
	var disks []facts.BlockDevice
	for _, d := range h.Block {
		if d.Kind == "disk" {
			disks = append(disks, d)
		}
	}
	if len(disks) == 0 {
		return
	}
	p.family("nastune_disk_health", "gauge", "Disk health: 0 no problem known, 1 warning (link, USB, I/O errors, heat, wear), 2 failing (media errors or SMART's own verdict), -1 not collected.")
	for _, d := range disks {
		p.sample("nastune_disk_health", float64(health.Assess(h, d).Level), "disk", d.Name, "model", d.Model, "serial", d.Serial)
	}
	type val struct {
		disk string
		v    float64
	}
	var passed, standby, temp, poh, crc []val
	type media struct {
		disk, kind string
		v          float64
	}
	var med []media
	for _, d := range disks {
		if d.Health == nil || d.Health.SMART == nil {
			continue
		}
		s := d.Health.SMART
		if s.Standby {
			standby = append(standby, val{d.Name, 1})
			continue
		}
		standby = append(standby, val{d.Name, 0})
		if s.Passed != nil {
			v := 0.0
			if *s.Passed {
				v = 1
			}
			passed = append(passed, val{d.Name, v})
		}
		if s.Temp != nil {
			temp = append(temp, val{d.Name, float64(*s.Temp)})
		}
		if s.PowerOnHours != nil {
			poh = append(poh, val{d.Name, float64(*s.PowerOnHours)*3600 + float64(s.PowerOnMinutes)*60})
		}
		if a := smart.Attr(s, 199); a != nil {
			crc = append(crc, val{d.Name, float64(a.Count)})
		}
		for _, m := range []struct {
			id   int
			kind string
		}{{5, "reallocated"}, {187, "reported_uncorrect"}, {197, "pending"}, {198, "offline_uncorrectable"}} {
			if a := smart.Attr(s, m.id); a != nil {
				med = append(med, media{d.Name, m.kind, float64(a.Count)})
			}
		}
		if s.SCSI != nil && s.SCSI.GrownDefects != nil {
			med = append(med, media{d.Name, "grown_defects", float64(*s.SCSI.GrownDefects)})
		}
		if s.NVMe != nil {
			med = append(med, media{d.Name, "nvme_media_errors", float64(s.NVMe.MediaErrors)})
		}
	}
	write := func(name, help string, vs []val) {
		if len(vs) == 0 {
			return
		}
		p.family(name, "gauge", help)
		for _, v := range vs {
			p.sample(name, v.v, "disk", v.disk)
		}
	}
	write("nastune_disk_smart_passed", "SMART overall-health self-assessment: 1 passed, 0 failed.", passed)
	write("nastune_disk_standby", "1 when smartctl -n standby found the disk spun down and did not wake it.", standby)
	write("nastune_disk_temperature_celsius", "Drive temperature as smartctl decodes it.", temp)
	write("nastune_disk_power_on_seconds", "Power-on time as smartctl decodes it (hours and minutes), in seconds.", poh)
	write("nastune_disk_udma_crc_errors", "SMART 199 UDMA_CRC_Error_Count: link (cable, port, power) errors over the disk's life.", crc)
	if len(med) > 0 {
		p.family("nastune_disk_media_errors", "gauge", "Media error counters by kind (SMART 5/187/197/198, SCSI grown defects, NVMe media errors).")
		for _, m := range med {
			p.sample("nastune_disk_media_errors", m.v, "disk", m.disk, "kind", m.kind)
		}
	}
	if h.KernelLog != nil && len(h.KernelLog.Events) > 0 {
		type k struct{ disk, kind string }
		n := map[k]int{}
		var order []k
		for _, e := range h.KernelLog.Events {
			if e.Disk == "" || e.Kind == "link-up" {
				continue
			}
			key := k{e.Disk, e.Kind}
			if n[key] == 0 {
				order = append(order, key)
			}
			n[key]++
		}
		if len(order) > 0 {
			p.family("nastune_disk_kernel_log_events", "gauge", "Storage lines of the kernel log per disk and kind (link-crc, link-reset, media, io-error, uas-abort, usb-reset, nvme-timeout, md-read-error…).")
			for _, key := range order {
				p.sample("nastune_disk_kernel_log_events", float64(n[key]), "disk", key.disk, "kind", key.kind)
			}
		}
	}
}
