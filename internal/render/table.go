package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/inventory"
)

// NetTable prints the interface inventory as an aligned table.
func NetTable(w io.Writer, n inventory.Net) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tSPEED\tDUPLEX\tMTU\tMAC\tADDRESSES\tDRIVER\tBUS\tOFFLOADS\tRING RX/TX (MAX)\tTXQ\tBOND")
	for _, r := range n.Interfaces {
		state := r.Operstate
		if r.Carrier != nil && !*r.Carrier && state == "up" {
			state = "up,no-carrier"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Name, dash(state), speed(r.SpeedMbps), dash(r.Duplex), intp(r.MTU), dash(r.MAC),
			dash(strings.Join(r.Addresses, ",")), dash(r.Driver), dash(r.BusInfo), offloads(r.Features),
			rings(r), intp(r.TxQueueLen), bond(r.Bond))
	}
	return tw.Flush()
}

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

func speed(p *int) string {
	switch {
	case p == nil:
		return "-"
	case *p >= 1000 && *p%1000 == 0:
		return fmt.Sprintf("%dG", *p/1000)
	case *p >= 1000:
		return fmt.Sprintf("%.1fG", float64(*p)/1000)
	}
	return fmt.Sprintf("%dM", *p)
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

// DiskTables prints the disk inventory: disks, then arrays, pools and
// filesystems when there are any.
func DiskTables(w io.Writer, d inventory.Disks) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DISK\tMODEL\tSERIAL\tSIZE\tSECTOR L/P\tTYPE\tBUS\tHEALTH\tTEMP\tPOWER-ON\tSCHED\tRA KB\tPARTITIONS\tUSE")
	for _, r := range d.Disks {
		kind := "-"
		if r.Rotational != nil {
			kind = map[bool]string{true: "hdd", false: "ssd"}[*r.Rotational]
		}
		bus := dash(r.Transport)
		if r.USBSpeedMbps > 0 {
			bus = fmt.Sprintf("usb %dM %s", r.USBSpeedMbps, r.USBDriver)
		}
		var parts []string
		for _, p := range r.Partitions {
			s := fmt.Sprintf("%s@%d", p.Name, p.StartSector)
			if !p.Aligned {
				s += "(misaligned)"
			}
			parts = append(parts, s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, dash(r.Model), dash(r.Serial), sizeText(r.SizeBytes),
			r.LogicalBlockSize, r.PhysicalBlockSize, kind, bus, dash(r.Health), tempText(r.TempC), hoursText(r.PowerOnHours), dash(r.Scheduler), intp(r.ReadAheadKB), dash(strings.Join(parts, " ")), dash(strings.Join(r.Use, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Arrays) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "ARRAY\tLEVEL\tSIZE\tCHUNK\tDISKS\tSTATUS\tSYNC\tSTRIPE CACHE\tMEMBERS")
		for _, a := range d.Arrays {
			var mem []string
			for _, m := range a.Members {
				s := m.Device
				if m.Role != "active" {
					s += "(" + m.Role + ")"
				}
				mem = append(mem, s)
			}
			sync := a.SyncAction
			if a.Progress > 0 {
				sync += fmt.Sprintf(" %.1f%% %dK/s", a.Progress, a.SyncSpeed)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%dK\t%d\t%s\t%s\t%d\t%s\n", a.Name, a.Level, sizeText(a.SizeBytes), a.ChunkBytes>>10, a.RaidDisks,
				dash(a.Status), dash(sync), a.StripeCacheSize, strings.Join(mem, " "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(d.Pools) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "POOL\tHEALTH\tSIZE\tVDEV\tTYPE\tASHIFT\tDEVICES")
		for _, p := range d.Pools {
			for _, v := range p.Vdevs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", p.Name, p.Health, sizeText(p.SizeBytes), v.Name, v.Type, v.Ashift, len(v.Devices))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(d.Filesystems) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "FILESYSTEM\tTYPE\tDEVICE\tON\tBLOCK\tSTRIPE (ext4 stride/width, xfs sunit/swidth)")
		for _, f := range d.Filesystems {
			geo := fmt.Sprintf("%d/%d", f.Stride, f.StripeWidth)
			if f.Type == "xfs" {
				geo = fmt.Sprintf("%d/%d", f.SUnit, f.SWidth)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", f.MountPoint, f.Type, f.Device, dash(f.Backing), f.BlockSize, geo)
		}
	}
	return tw.Flush()
}

func sizeText(b uint64) string {
	switch {
	case b == 0:
		return "-"
	case b >= 1e12:
		return fmt.Sprintf("%.1fT", float64(b)/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.0fG", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0fM", float64(b)/1e6)
}

// ServiceTables prints shares, NFS exports and VPN instances.
func ServiceTables(w io.Writer, s inventory.Services) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "SHARE\tPATH"
	for _, k := range inventory.ShareKeys {
		header += "\t" + strings.ToUpper(k.Name)
	}
	fmt.Fprintln(tw, header)
	for _, r := range s.Shares {
		line := r.Name + "\t" + dash(r.Path)
		for _, k := range inventory.ShareKeys {
			line += "\t" + dash(r.Options[k.Name])
		}
		fmt.Fprintln(tw, line)
	}
	if s.SambaFrom != "" {
		fmt.Fprintf(tw, "(values from %s)\n", s.SambaFrom)
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "EXPORT\tCLIENT\tOPTIONS\t(nfsd threads: %d)\n", s.NFSThreads)
	for _, e := range s.Exports {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Path, e.Client, dash(strings.Join(e.Options, ",")))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "VPN\tROLE\tPROTO\tPORT\tCIPHER\tSNDBUF\tRCVBUF\tTUN-MTU\tMSSFIX\tFRAGMENT\tCOMPRESSION\tVERSION")
	for _, v := range s.VPN {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.File, v.Role, v.Proto, v.Port, v.Cipher, dash(v.Sndbuf),
			dash(v.Rcvbuf), dash(v.TunMTU), dash(v.MSSFix), dash(v.Fragment), dash(v.Compression), dash(v.Version))
	}
	return tw.Flush()
}

// PathTable prints each data path with its ceiling, bottleneck and links.
func PathTable(w io.Writer, p inventory.Paths) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tKIND\tMEMBERS\tCEILING MB/s\tBOTTLENECK")
	for _, x := range p.Paths {
		members := strings.Join(x.Members, ",")
		if len(members) > 40 {
			members = fmt.Sprintf("%d members", len(x.Members))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\n", x.Name, x.Kind, members, x.CeilingMBs, x.Bottleneck)
	}
	if err := tw.Flush(); err != nil {
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
				extra += fmt.Sprintf(", %.0f MB/s at full link", l.FullMBs)
			}
			if l.Note != "" {
				extra += "; " + l.Note
			}
			fmt.Fprintf(w, "  %-8s %8.0f MB/s  %s%s\n", l.Kind, l.MBs, l.Name, extra)
		}
		if x.WriteMBs > 0 {
			fmt.Fprintf(w, "  full-stripe writes up to %.0f MB/s\n", x.WriteMBs)
		}
		if x.Move != "" {
			fmt.Fprintf(w, "  to raise it: %s\n", x.Move)
		}
	}
	return nil
}
