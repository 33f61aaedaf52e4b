package inventory

import (
	"sort"

	"github.com/nastune/nastune/internal/facts"
)

// Disks is `nastune inventory disks -o json`.
type Disks struct {
	Disks       []DiskRow          `json:"disks"`
	Arrays      []facts.MDArray    `json:"arrays"`
	Pools       []facts.Pool       `json:"pools"`
	Filesystems []facts.Filesystem `json:"filesystems"`
}

// DiskRow is one whole disk.
type DiskRow struct {
	Name              string    `json:"name"`
	Model             string    `json:"model,omitempty"`
	Serial            string    `json:"serial,omitempty"`
	WWN               string    `json:"wwn,omitempty"`
	ByID              []string  `json:"by_id"`
	SizeBytes         uint64    `json:"size_bytes"`
	LogicalBlockSize  int       `json:"logical_block_size"`
	PhysicalBlockSize int       `json:"physical_block_size"`
	Rotational        *bool     `json:"rotational"`
	Transport         string    `json:"transport,omitempty"`
	USBSpeedMbps      int       `json:"usb_speed_mbps,omitempty"`
	USBDriver         string    `json:"usb_driver,omitempty"`
	Controller        string    `json:"controller,omitempty"`
	Scheduler         string    `json:"scheduler,omitempty"`
	ReadAheadKB       *int      `json:"read_ahead_kb"`
	WriteCache        string    `json:"write_cache,omitempty"`
	Partitions        []PartRow `json:"partitions"`
	// Use names the arrays, pools and mounts that use the disk.
	Use []string `json:"use,omitempty"`
	// Health is "ok", "warn", "failing", "standby" or "" (not
	// collected); TempC and PowerOnHours as smartctl decodes them.
	Health       string `json:"health,omitempty"`
	TempC        *int   `json:"temp_c,omitempty"`
	PowerOnHours *int64 `json:"power_on_hours,omitempty"`
}

// PartRow is one partition.
type PartRow struct {
	Name        string `json:"name"`
	StartSector uint64 `json:"start_sector"`
	SizeBytes   uint64 `json:"size_bytes"`
	Aligned     bool   `json:"aligned"`
	FSType      string `json:"fs_type,omitempty"`
}

// DiskTable builds the disk inventory: whole disks (not md, dm, loop or
// zram), md arrays, pools and filesystems with their geometry.
func DiskTable(h *facts.Host) Disks {
	out := Disks{Disks: []DiskRow{}, Arrays: h.MD, Filesystems: h.Filesystems, Pools: []facts.Pool{}}
	if out.Arrays == nil {
		out.Arrays = []facts.MDArray{}
	}
	if out.Filesystems == nil {
		out.Filesystems = []facts.Filesystem{}
	}
	if h.ZFS != nil && h.ZFS.Pools != nil {
		out.Pools = h.ZFS.Pools
	}
	use := map[string][]string{}
	for _, a := range h.MD {
		for _, m := range a.Members {
			use[m.Disk] = append(use[m.Disk], a.Name+" ("+m.Role+")")
		}
	}
	for _, m := range h.Mounts {
		for _, d := range h.Block {
			for _, p := range d.Partitions {
				if m.Device == "/dev/"+p.Name {
					use[d.Name] = append(use[d.Name], m.MountPoint)
				}
			}
		}
	}
	for _, d := range h.Block {
		if d.Kind != "disk" {
			continue
		}
		r := DiskRow{
			Name: d.Name, Model: d.Model, Serial: d.Serial, WWN: d.WWN, ByID: d.ByID, SizeBytes: d.SizeBytes,
			LogicalBlockSize: d.LogicalBlockSize, PhysicalBlockSize: d.PhysBlockSize, Rotational: d.Spins(),
			Transport: d.Transport, Controller: d.Controller, Scheduler: d.Scheduler, ReadAheadKB: d.ReadAheadKB,
			WriteCache: d.WriteCache, Partitions: []PartRow{}, Use: use[d.Name],
		}
		if r.ByID == nil {
			r.ByID = []string{}
		}
		r.Health, r.TempC, r.PowerOnHours = diskHealth(h, d)
		if d.USB != nil {
			r.USBSpeedMbps, r.USBDriver = d.USB.SpeedMbps, d.USB.Driver
		}
		for _, p := range d.Partitions {
			r.Partitions = append(r.Partitions, PartRow{Name: p.Name, StartSector: p.StartSector, SizeBytes: p.SizeBytes,
				Aligned: d.Aligned(p), FSType: p.FSType})
		}
		out.Disks = append(out.Disks, r)
	}
	sort.Slice(out.Disks, func(a, b int) bool { return out.Disks[a].Name < out.Disks[b].Name })
	return out
}
