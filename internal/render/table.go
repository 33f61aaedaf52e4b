package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/units"
)

// The inventory tables are built once as grids (a title, a header and rows
// of cells) and written either as aligned text or as HTML tables, so the
// HTML page shows what the text shows, in human units, with the raw number
// kept as each cell's sort key.

type grid struct {
	Title  string
	Header []string
	Rows   [][]cell
	// Notes are printed after the table (text) or under it (HTML).
	Notes []string
}

func txt(s string) cell { return cell{Text: dash(s), Sort: s} }

func num(text string, v float64) cell {
	return cell{Text: text, Sort: strconv.FormatFloat(v, 'f', -1, 64), Num: true}
}

// writeGrids writes grids as aligned text tables separated by blank lines.
func writeGrids(w io.Writer, gs ...grid) error {
	for i, g := range gs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(g.Rows) == 0 {
			// An empty table is one line, not a header over nothing.
			fmt.Fprintf(w, "%s: none\n", g.Title)
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(g.Header, "\t"))
		for _, r := range g.Rows {
			parts := make([]string, len(r))
			for j, c := range r {
				parts[j] = Cell(c.Text)
			}
			fmt.Fprintln(tw, strings.Join(parts, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, n := range g.Notes {
			fmt.Fprintln(w, n)
		}
	}
	return nil
}

func netGrid(n inventory.Net) grid {
	g := grid{Title: "interfaces", Header: []string{"NAME", "STATE", "SPEED", "DUPLEX", "MTU", "MAC", "ADDRESSES", "DRIVER", "BUS", "OFFLOADS", "RING RX/TX (MAX)", "TXQ", "BOND"}}
	for _, r := range n.Interfaces {
		state := r.Operstate
		if r.Carrier != nil && !*r.Carrier && state == "up" {
			state = "up,no-carrier"
		}
		sp := cell{Text: "-"}
		if r.SpeedMbps != nil {
			sp = num(speed(r.SpeedMbps), float64(*r.SpeedMbps))
		}
		g.Rows = append(g.Rows, []cell{txt(r.Name), txt(state), sp, txt(r.Duplex), intCell(r.MTU), txt(r.MAC),
			txt(strings.Join(r.Addresses, ",")), txt(r.Driver), txt(r.BusInfo), txt(offloads(r.Features)),
			txt(rings(r)), intCell(r.TxQueueLen), txt(bond(r.Bond))})
	}
	return g
}

func intCell(p *int) cell {
	if p == nil {
		return cell{Text: "-"}
	}
	return num(strconv.Itoa(*p), float64(*p))
}

// NetTable prints the interface inventory as an aligned table.
func NetTable(w io.Writer, n inventory.Net) error { return writeGrids(w, netGrid(n)) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func intp(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// speed is a link speed from sysfs (Mbit/s) in the unit iperf3 prints:
// 1 Gbit/s, 2.5 Gbit/s, 100 Mbit/s.
func speed(p *int) string {
	if p == nil {
		return "-"
	}
	return units.BitRate(float64(*p) * 1e6)
}

// offloads prints the key offloads that are on, by short name.
func offloads(f map[string]bool) string {
	if f == nil {
		return "-"
	}
	short := map[string]string{
		"rx-checksumming": "rxcsum", "tx-checksumming": "txcsum", "scatter-gather": "sg",
		"tcp-segmentation-offload": "tso", "generic-segmentation-offload": "gso",
		"generic-receive-offload": "gro", "large-receive-offload": "lro",
	}
	var on []string
	for _, k := range inventory.KeyFeatures {
		if f[k] {
			on = append(on, short[k])
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

func rings(r inventory.NetRow) string {
	if r.Rings == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%d/%d)", r.Rings.RX, r.Rings.TX, r.Rings.RXMax, r.Rings.TXMax)
}

func bond(b *inventory.BondRole) string {
	switch {
	case b == nil:
		return "-"
	case b.Role == "master":
		return fmt.Sprintf("master %s [%s]", b.Mode, strings.Join(b.Slaves, ","))
	}
	return "slave of " + b.Master
}

func sizeCell(b uint64) cell {
	if b == 0 {
		return cell{Text: "-"}
	}
	return num(sizeText(b), float64(b))
}

func diskGrids(d inventory.Disks) []grid {
	disks := grid{Title: "disks", Header: []string{"DISK", "MODEL", "SERIAL", "SIZE", "SECTOR L/P", "TYPE", "BUS", "HEALTH", "TEMP", "POWER-ON", "SCHED", "RA", "PARTITIONS", "USE"}}
	for _, r := range d.Disks {
		kind := "-"
		if r.Rotational != nil {
			kind = map[bool]string{true: "hdd", false: "ssd"}[*r.Rotational]
		}
		bus := dash(r.Transport)
		if r.USBSpeedMbps > 0 {
			bus = fmt.Sprintf("usb %s %s", units.LinkMbit(r.USBSpeedMbps), r.USBDriver)
		}
		var parts []string
		for _, p := range r.Partitions {
			s := fmt.Sprintf("%s@%d", p.Name, p.StartSector)
			if !p.Aligned {
				s += "(misaligned)"
			}
			parts = append(parts, s)
		}
		ra := cell{Text: "-"}
		if r.ReadAheadKB != nil {
			ra = num(units.Bytes(uint64(*r.ReadAheadKB)<<10), float64(*r.ReadAheadKB))
		}
		disks.Rows = append(disks.Rows, []cell{txt(r.Name), txt(r.Model), txt(r.Serial), sizeCell(r.SizeBytes),
			txt(fmt.Sprintf("%d/%d", r.LogicalBlockSize, r.PhysicalBlockSize)), txt(kind), txt(bus), txt(r.Health), tempCell(r.TempC), hoursCell(r.PowerOnHours), txt(r.Scheduler), ra,
			txt(strings.Join(parts, " ")), txt(strings.Join(r.Use, ", "))})
	}
	out := []grid{disks}
	if len(d.Arrays) > 0 {
		g := grid{Title: "md arrays", Header: []string{"ARRAY", "LEVEL", "SIZE", "CHUNK", "DISKS", "STATUS", "SYNC", "STRIPE CACHE", "MEMBERS"}}
		for _, a := range d.Arrays {
			var mem []string
			for _, m := range a.Members {
				mem = append(mem, m.Device+mdMemberRole(a, m))
			}
			sync := a.SyncAction
			if a.Progress > 0 {
				// /proc/mdstat's speed is in KiB/s (K/sec).
				sync += fmt.Sprintf(" %.1f%% %s", a.Progress, units.ByteRate(float64(a.SyncSpeed)*1024))
			}
			g.Rows = append(g.Rows, []cell{txt(a.Name), txt(mdLevel(a)), sizeCell(a.SizeBytes), sizeCell(uint64(a.ChunkBytes)),
				num(strconv.Itoa(a.RaidDisks), float64(a.RaidDisks)), txt(a.Status), txt(sync),
				stripeCacheCell(a.StripeCacheSize), txt(strings.Join(mem, " "))})
		}
		out = append(out, g)
	}
	if len(d.Pools) > 0 {
		g := grid{Title: "ZFS pools", Header: []string{"POOL", "HEALTH", "SIZE", "VDEV", "CLASS", "TYPE", "ASHIFT", "DEVICES"}}
		for _, p := range d.Pools {
			for _, v := range p.Vdevs {
				ashift := txt("pool default") // not read from zdb: the pool's setting (0 = detected per vdev)
				if v.Ashift > 0 {
					ashift = num(strconv.Itoa(v.Ashift), float64(v.Ashift))
				}
				g.Rows = append(g.Rows, []cell{txt(p.Name), txt(p.Health), sizeCell(p.SizeBytes), txt(v.Name), txt(vdevClass(v)), txt(v.Type),
					ashift, num(strconv.Itoa(v.Width()), float64(v.Width()))})
			}
		}
		out = append(out, g)
	}
	if len(d.Filesystems) > 0 {
		g := grid{Title: "filesystems", Header: []string{"FILESYSTEM", "TYPE", "DEVICE", "ON", "BLOCK", "STRIPE (ext4 stride/width, xfs sunit/swidth)"}}
		for _, f := range d.Filesystems {
			geo := fmt.Sprintf("%d/%d", f.Stride, f.StripeWidth)
			if f.Type == "xfs" {
				geo = fmt.Sprintf("%d/%d", f.SUnit, f.SWidth)
			}
			g.Rows = append(g.Rows, []cell{txt(f.MountPoint), txt(f.Type), txt(f.Device), txt(f.Backing), sizeCell(uint64(f.BlockSize)), txt(geo)})
		}
		out = append(out, g)
	}
	return out
}

// DiskTables prints the disk inventory: disks, then arrays, pools and
// filesystems when there are any.
func DiskTables(w io.Writer, d inventory.Disks) error { return writeGrids(w, diskGrids(d)...) }

// sizeText is a byte count in binary units, as lsblk and the kernel show
// sizes: 4 TB disks are 3.64 TiB.
func sizeText(b uint64) string {
	if b == 0 {
		return "-"
	}
	return units.Bytes(b)
}

func serviceGrids(s inventory.Services) []grid {
	shares := grid{Title: "Samba shares", Header: []string{"SHARE", "PATH"}}
	for _, k := range inventory.ShareKeys {
		shares.Header = append(shares.Header, strings.ToUpper(k.Name))
	}
	for _, r := range s.Shares {
		row := []cell{txt(r.Name), txt(r.Path)}
		for _, k := range inventory.ShareKeys {
			row = append(row, txt(r.Options[k.Name]))
		}
		shares.Rows = append(shares.Rows, row)
	}
	if s.SambaFrom != "" {
		shares.Notes = append(shares.Notes, fmt.Sprintf("(values from %s)", s.SambaFrom))
	}
	exports := grid{Title: "NFS exports", Header: []string{"EXPORT", "CLIENT", "OPTIONS", fmt.Sprintf("(nfsd threads: %d)", s.NFSThreads)}}
	for _, e := range s.Exports {
		exports.Rows = append(exports.Rows, []cell{txt(e.Path), txt(e.Client), txt(strings.Join(e.Options, ","))})
	}
	vpn := grid{Title: "OpenVPN", Header: []string{"VPN", "ROLE", "PROTO", "PORT", "CIPHER", "SNDBUF", "RCVBUF", "TUN-MTU", "MSSFIX", "FRAGMENT", "COMPRESSION", "VERSION"}}
	for _, v := range s.VPN {
		vpn.Rows = append(vpn.Rows, []cell{txt(v.File), txt(v.Role), txt(v.Proto), num(strconv.Itoa(v.Port), float64(v.Port)), txt(v.Cipher),
			bufCell(v.Sndbuf), bufCell(v.Rcvbuf), txt(v.TunMTU), txt(v.MSSFix), txt(v.Fragment), txt(v.Compression), txt(v.Version)})
	}
	return []grid{shares, exports, vpn}
}

// bufCell is a socket buffer size from a config: the number as written and
// its binary size beside it ("524288 (512 KiB)").
func bufCell(s string) cell {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < 1024 {
		return txt(s)
	}
	return num(units.BytesWithRaw(n), float64(n))
}

// ServiceTables prints shares, NFS exports and VPN instances.
func ServiceTables(w io.Writer, s inventory.Services) error { return writeGrids(w, serviceGrids(s)...) }

func pathGrid(p inventory.Paths) grid {
	g := grid{Title: "data paths", Header: []string{"PATH", "KIND", "MEMBERS", "CEILING " + units.MBsHeader, "BOTTLENECK"}}
	for _, x := range p.Paths {
		members := strings.Join(x.Members, ",")
		if len(members) > 40 {
			members = fmt.Sprintf("%d members", len(x.Members))
		}
		g.Rows = append(g.Rows, []cell{txt(x.Name), txt(x.Kind), txt(members), num(units.MBsNum(x.CeilingMBs), x.CeilingMBs), txt(x.Bottleneck)})
	}
	return g
}

func pathLinks(p inventory.Paths) grid {
	g := grid{Title: "links per path", Header: []string{"PATH", "LINK", units.MBsHeader, "NAME", "NOTE"}}
	for _, x := range p.Paths {
		for _, l := range x.Links {
			var extra []string
			if l.Shared > 1 {
				extra = append(extra, fmt.Sprintf("shared by %d", l.Shared))
			}
			if l.FullMBs > 0 {
				extra = append(extra, units.MBs(l.FullMBs)+" at full link")
			}
			if l.Note != "" {
				extra = append(extra, l.Note)
			}
			g.Rows = append(g.Rows, []cell{txt(x.Name), txt(l.Kind), num(fmt.Sprintf("%.0f", l.MBs), l.MBs), txt(l.Name), txt(strings.Join(extra, "; "))})
		}
	}
	return g
}

// PathTable prints each data path with its ceiling, bottleneck and links.
func PathTable(w io.Writer, p inventory.Paths) error {
	if err := writeGrids(w, pathGrid(p)); err != nil {
		return err
	}
	for _, x := range p.Paths {
		fmt.Fprintf(w, "\n%s:\n", x.Name)
		for _, l := range x.Links {
			extra := ""
			if l.Shared > 1 {
				extra = fmt.Sprintf(", shared by %d", l.Shared)
			}
			if l.FullMBs > 0 {
				extra += ", " + units.MBs(l.FullMBs) + " at full link"
			}
			if l.Note != "" {
				extra += "; " + l.Note
			}
			fmt.Fprintf(w, "  %-8s %13s  %s%s\n", l.Kind, units.MBs(l.MBs), l.Name, extra)
		}
		if x.WriteMBs > 0 {
			fmt.Fprintf(w, "  full-stripe writes up to %s\n", units.MBs(x.WriteMBs))
		}
		if x.Move != "" {
			fmt.Fprintf(w, "  to raise it: %s\n", x.Move)
		}
	}
	return nil
}

// inventoryGrids are the grids of a known inventory table, for HTML.
func inventoryGrids(v any) ([]grid, bool) {
	switch t := v.(type) {
	case inventory.Net:
		return []grid{netGrid(t)}, true
	case inventory.Disks:
		return diskGrids(t), true
	case inventory.Services:
		return serviceGrids(t), true
	case inventory.Paths:
		return []grid{pathGrid(t), pathLinks(t)}, true
	case inventory.All:
		return allGrids(t), true
	}
	return nil, false
}

// stripeCacheCell shows md's stripe_cache_size, or "-" when it was not read:
// raid0/1/10 have no stripe cache, and a tree without sys/block/mdX/md/ has
// none collected. The kernel never reports 0 (its minimum is 17), so 0 means
// "no value", not a cache of zero entries.
func stripeCacheCell(n int) cell {
	if n <= 0 {
		return txt("-")
	}
	return num(strconv.Itoa(n), float64(n))
}

// Cell is s as one cell of a tab-aligned text table: one line, no tab (a
// newline or tab in a device's model, a share's name or a fleet host's
// name would forge a row or shift the columns), and terminal-safe.
func Cell(s string) string {
	return strings.ReplaceAll(CleanLine(s), "\t", `\x09`)
}
