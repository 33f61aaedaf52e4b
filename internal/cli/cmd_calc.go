package cli

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/units"
)

type calcTCPOptions struct {
	Bandwidth string
	RTT       string
	RAM       string
	Output    string
}

func newCalcCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calc",
		Short: "Calculators: TCP buffers from bandwidth × RTT, md RAID and ZFS capacity and geometry, OpenVPN MSS",
		Long:  "calc runs the arithmetic the rules use, for any numbers you give it. It reads nothing but\n/proc/meminfo (for the RAM share, unless --ram is given).\n\n" + exitHelp,
	}
	o := &calcTCPOptions{}
	tcp := &cobra.Command{
		Use:   "tcp",
		Short: "TCP buffer sizes (tcp_rmem/tcp_wmem) for a path's bandwidth and round-trip time",
		Long: "calc tcp computes the bandwidth-delay product (BDP = bandwidth × RTT) and the tcp_rmem/tcp_wmem\n" +
			"triples whose max is at least 2 × BDP, keeping the kernel defaults when they already cover it.\n\n" +
			"Units: --bandwidth as iperf3 -b: 1G, 1Gbit, 100Mbit/s are bits per second (decimal);\n" +
			"       125MB/s or 100MiB/s are bytes per second (125MB/s = 1 Gbit/s).\n" + // units:input: forms --bandwidth reads
			"       --rtt with us, ms or s, as ping prints it: 500us, 0.5ms, 20ms.\n" +
			"       --ram 4G, 512M (binary, as free and fio), 4GiB, or 16GB (decimal).",
		Args: noArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runCalcTCP(o, env) },
	}
	f := tcp.Flags()
	f.StringVar(&o.Bandwidth, "bandwidth", "", "link or path rate (required), e.g. 1G, 1Gbit or 125MB/s")
	f.StringVar(&o.RTT, "rtt", "", "round-trip time (required), e.g. 20ms")
	f.StringVar(&o.RAM, "ram", "", "memory of the machine, e.g. 4G (default: this machine's MemTotal)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	cmd.AddCommand(tcp, newCalcRAIDCmd(env), newCalcZFSCmd(env), newCalcVPNCmd(env))
	return cmd
}

func runCalcTCP(o *calcTCPOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	if o.Bandwidth == "" || o.RTT == "" {
		return usagef("e.g. nastune calc tcp --bandwidth 1Gbit --rtt 20ms", "--bandwidth and --rtt are required")
	}
	bps, err := calc.ParseBandwidth(o.Bandwidth)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--bandwidth: %w", err), Hint: "accepted: 1G, 1Gbit, 100Mbit/s, 10Gbps (bits) or 125MB/s (bytes per second)"} // units:input: forms --bandwidth reads
	}
	rtt, err := calc.ParseRTT(o.RTT)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--rtt: %w", err), Hint: "accepted: 500us, 0.5ms, 20ms, 1s"}
	}
	var ram uint64
	if o.RAM != "" {
		if ram, err = units.ParseSize(o.RAM); err != nil {
			return &UsageError{Err: fmt.Errorf("--ram: %w", err), Hint: "accepted: 128M, 4G, 4GiB, 16GB"}
		}
	} else if b, err := liveMeminfo(); err == nil {
		if m, err := kernfmt.Meminfo(b); err == nil {
			ram = m["MemTotal"]
		}
	}
	p := calc.PlanTCP(bps, rtt, ram)
	// tcp_rmem and tcp_wmem are C ints (proc_dointvec_minmax): a larger
	// max is refused by the kernel, and a BDP this large is a typo in
	// --bandwidth or --rtt, not a path. (9999999999999T once printed a
	// wrapped 8 EiB.)
	if bdp := bps / 8 * rtt.Seconds(); bdp*2 > math.MaxInt32 {
		return usagef("check --bandwidth and --rtt: a path's 2 × BDP must fit tcp_rmem's int (2 GiB)",
			"--bandwidth %s × --rtt %s needs %s of buffer per socket, beyond what the kernel accepts for tcp_rmem/tcp_wmem (%d bytes)",
			o.Bandwidth, o.RTT, units.Bytes(uint64(min(bdp*2, math.MaxUint64/2))), math.MaxInt32)
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, p)
	}
	w := env.Stdout
	fmt.Fprintf(w, "BDP       %s × %v = %s\n", units.BitRate(bps), rtt.Round(time.Microsecond), bytesText(p.BDPBytes))
	fmt.Fprintf(w, "need      2 × BDP = %s per socket\n", bytesText(p.NeedBytes))
	fmt.Fprintf(w, "tcp_rmem  %s\n", p.TCPRmem)
	fmt.Fprintf(w, "tcp_wmem  %s\n", p.TCPWmem)
	if p.RAMBytes > 0 {
		fmt.Fprintf(w, "RAM share %.3f%% of %s per socket at the max\n", p.RAMShare*100, units.Bytes(p.RAMBytes))
	}
	fmt.Fprintf(w, "\n%s\n", wrap(p.Why, 78))
	return nil
}

// bytesText is a byte count for text output: the exact number and, from
// 1 KiB on, the binary human form: "62500 bytes (61 KiB)".
func bytesText(n uint64) string {
	if n == 1 {
		return "1 byte"
	}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%s)", n, units.Bytes(n))
}

type calcRAIDOptions struct {
	Devices, Spares, StripeCache                  int
	Level, MemberSize, Chunk, AvgRequest, FSBlock string
	Output                                        string
}

func newCalcRAIDCmd(env *Env) *cobra.Command {
	o := &calcRAIDOptions{}
	cmd := &cobra.Command{
		Use:   "raid",
		Short: "md RAID capacity and geometry: usable size (as mdadm reports it), chunk, ext4/XFS stripe settings, stripe cache memory",
		Long: "calc raid computes what `mdadm --create` with metadata 1.2 would give for the members: the data\n" +
			"offset and used device size mdadm picks, the Array Size, data disks, ext4 stride/stripe_width\n" +
			"and XFS su/sw, a chunk from an average request size, and stripe_cache_size memory.\n\n" +
			"Levels as mdadm --level: raid6, RAID6 and 6 are the same; raid0/stripe, raid1/mirror, raid4,\n" +
			"raid5, raid10. mdadm's own flags work too: --level=raid6 --raid-devices=10 --spare-devices=1\n" +
			"--chunk=512K (-l, -n, -x, -c); --chunk=512 means KiB, as for mdadm.\n" +
			"Sizes: 4T, 512K (binary, as mdadm and fio), 4TiB, or 4TB (decimal, as on the disk label).",
		Args: noArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runCalcRAID(o, env) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.Level, "level", "l", "", "RAID level (required): raid0, raid1, raid4, raid5, raid6, raid10 (or 6, RAID6)")
	f.IntVar(&o.Devices, "devices", 0, "active member devices (required)")
	f.IntVarP(&o.Devices, "raid-devices", "n", 0, "same as --devices (mdadm's name)")
	f.StringVar(&o.MemberSize, "size", "", "size of the smallest member device (required), e.g. 4TB or 4T")
	f.StringVar(&o.MemberSize, "member-size", "", "same as --size")
	_ = f.MarkHidden("member-size")
	f.IntVar(&o.Spares, "spares", 0, "spare devices (add no capacity)")
	f.IntVarP(&o.Spares, "spare-devices", "x", 0, "same as --spares (mdadm's name)")
	f.StringVarP(&o.Chunk, "chunk", "c", "", "chunk size (default: mdadm's 512K; a bare number is KiB, as for mdadm)")
	f.StringVar(&o.AvgRequest, "avg-request", "", "observed average request size, for a chunk recommendation")
	f.StringVar(&o.FSBlock, "fs-block", "4KiB", "filesystem block size, for ext4 stride/stripe_width")
	f.IntVar(&o.StripeCache, "stripe-cache", 0, "stripe_cache_size, for its memory cost (RAID5/6)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

// sizeFlag parses a size flag, naming it in the error.
func sizeFlag(name, v string) (uint64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := units.ParseSize(v)
	if err != nil {
		return 0, &UsageError{Err: fmt.Errorf("--%s: %w", name, err), Hint: "sizes: " + units.SizeHelp}
	}
	return n, nil
}

func runCalcRAID(o *calcRAIDOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	if o.Level == "" || o.Devices == 0 || o.MemberSize == "" {
		return usagef("e.g. nastune calc raid --level raid6 --devices 9 --size 4000787030016 --spares 1 (or mdadm's --level=raid6 --raid-devices=9 --spare-devices=1)", "--level, --devices (--raid-devices) and --size are required")
	}
	level, err := units.ParseRAIDLevel(o.Level)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--level: %w", err), Hint: "e.g. --level raid6 (or 6, RAID6)"}
	}
	in := calc.RAIDInput{Level: level, Devices: o.Devices, Spares: o.Spares, StripeCache: o.StripeCache}
	if o.Chunk != "" && strings.Trim(o.Chunk, "0123456789") == "" {
		o.Chunk += "K" // mdadm: --chunk without a suffix is in KiB
	}
	for _, s := range []struct {
		name, v string
		dst     *uint64
	}{{"size", o.MemberSize, &in.MemberSize}, {"chunk", o.Chunk, &in.ChunkBytes}, {"avg-request", o.AvgRequest, &in.AvgRequest}, {"fs-block", o.FSBlock, &in.FSBlock}} {
		if *s.dst, err = sizeFlag(s.name, s.v); err != nil {
			return err
		}
	}
	p, err := calc.PlanRAID(in)
	if err != nil {
		return &UsageError{Err: err, Hint: "levels 0, 1, 5, 6, 10; chunk a power of two ≥ 4KiB"}
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, p)
	}
	w := env.Stdout
	spares := ""
	if o.Spares > 0 {
		spares = " (+" + plural(o.Spares, "spare", "spares") + ")"
	}
	fmt.Fprintf(w, "RAID%d of %d × %s%s\n", p.Level, o.Devices, bytesText(in.MemberSize), spares)
	fmt.Fprintf(w, "data offset      %d sectors (%s) per member\n", p.DataOffsetSectors, units.Bytes(p.DataOffsetSectors*512))
	fmt.Fprintf(w, "                 assumes the %s\n", p.DataOffsetBasis)
	fmt.Fprintf(w, "used dev size    %s\n", bytesText(p.ComponentBytes))
	fmt.Fprintf(w, "usable           %d bytes (%s, %s), %d data disks\n", p.UsableBytes, units.BytesDecimal(p.UsableBytes), units.Bytes(p.UsableBytes), p.DataDisks)
	if p.ChunkBytes > 0 {
		fmt.Fprintf(w, "chunk            %d KiB\n", p.ChunkBytes>>10)
	}
	if p.RecommendedChunkBytes > 0 {
		fmt.Fprintf(w, "suggested chunk  %d KiB (average request ÷ data disks, power of two)\n", p.RecommendedChunkBytes>>10)
	}
	if p.Ext4Stride > 0 {
		fmt.Fprintf(w, "ext4             mkfs.ext4 -E stride=%d,stripe_width=%d\n", p.Ext4Stride, p.Ext4StripeWidth)
	}
	if p.XFSSuBytes > 0 {
		fmt.Fprintf(w, "xfs              mkfs.xfs -d su=%dk,sw=%d\n", p.XFSSuBytes>>10, p.XFSSw)
	}
	if p.StripeCacheMemoryBytes > 0 {
		fmt.Fprintf(w, "stripe cache     %d entries cost %s\n", o.StripeCache, bytesText(p.StripeCacheMemoryBytes))
	}
	return nil
}

type calcZFSOptions struct {
	Vdevs      []string
	DiskSize   string
	Sector     string
	Logical    string
	Physical   string
	Ashift     int
	Recordsize string
	Output     string
}

// zfsCalc is `calc zfs -o json`: the chosen ashift and the same layout at
// ashift 9, 12 and 13 side by side.
type zfsCalc struct {
	calc.ZFSPlan
	Compare []calc.ZFSPlan `json:"compare"`
	// Ashifts is what disks of the given sector size accept (absent
	// without --sector-size).
	Ashifts *calc.AshiftChoice `json:"ashifts,omitempty"`
}

func newCalcZFSCmd(env *Env) *cobra.Command {
	o := &calcZFSOptions{}
	cmd := &cobra.Command{
		Use:   "zfs",
		Short: "ZFS pool space: usable bytes of a new pool (zfs list AVAIL), per-vdev efficiency, ashift 9/12/13 side by side",
		Long: "calc zfs follows OpenZFS's own arithmetic: raidz allocation with parity and padding\n" +
			"(vdev_raidz_asize), the 128K deflate ratio space is reported through, label areas, metaslab\n" +
			"rounding and slop (1/32, capped at 128 GiB). Disks are whole disks given to zpool create.\n\n" +
			"Vdevs: --vdev TYPE:DISKS, repeatable: raidz1:5, raidz2:6 (or z2:6), raidz3:11, mirror:2, disk:1.\n" +
			"Sizes: 4T, 128K (binary), 4TiB, or 4TB (decimal, as on the disk label).",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCalcZFS(o, cmd.Flags().Changed("ashift"), env)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Vdevs, "vdev", nil, "a top-level vdev, TYPE:DISKS (repeat for more)")
	f.StringVar(&o.DiskSize, "disk-size", "", "size of each disk (required)")
	f.IntVar(&o.Ashift, "ashift", 12, "ashift (9-16; default: the one --sector-size recommends, else 12)")
	f.StringVar(&o.Sector, "sector-size", "", "the disks' sector size, logical and physical (512 or 4096; lsblk -o LOG-SEC,PHY-SEC): says which ashift values they accept")
	f.StringVar(&o.Logical, "logical-sector-size", "", "the disks' logical sector size, when it differs from the physical one (512e disks: 512)")
	f.StringVar(&o.Physical, "physical-sector-size", "", "the disks' physical sector size (512e disks: 4096)")
	f.StringVar(&o.Recordsize, "recordsize", "128K", "recordsize, for the allocation efficiency column")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

func runCalcZFS(o *calcZFSOptions, ashiftGiven bool, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	ashifts, err := sectorAshifts(o)
	if err != nil {
		return err
	}
	if ashifts != nil {
		if !ashiftGiven {
			o.Ashift = ashifts.Recommended
		} else if o.Ashift < ashifts.Min {
			return usagef(fmt.Sprintf("use --ashift %d or more (%d recommended)", ashifts.Min, ashifts.Recommended),
				"--ashift %d is below the %d-byte logical sector: ZFS refuses it", o.Ashift, ashifts.LogicalSector)
		}
	}
	if len(o.Vdevs) == 0 || o.DiskSize == "" {
		return usagef("e.g. nastune calc zfs --vdev raidz2:6 --disk-size 4TB --ashift 12", "--vdev and --disk-size are required")
	}
	var specs []calc.VdevSpec
	for _, v := range o.Vdevs {
		s, err := calc.ParseVdev(v)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--vdev: %w", err), Hint: "e.g. --vdev raidz2:6 --vdev mirror:2"}
		}
		specs = append(specs, s)
	}
	disk, err := sizeFlag("disk-size", o.DiskSize)
	if err != nil {
		return err
	}
	rs, err := sizeFlag("recordsize", o.Recordsize)
	if err != nil {
		return err
	}
	if rs < 512 || rs > 16<<20 || rs&(rs-1) != 0 {
		return usagef("recordsize is a power of two from 512 to 16MiB", "--recordsize %s is not a valid recordsize", o.Recordsize)
	}
	p, err := calc.PlanZFS(specs, disk, o.Ashift, rs)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--ashift/--disk-size: %w", err), Hint: "ashift 9-16; disks of at least 128MiB"}
	}
	out := zfsCalc{ZFSPlan: p, Ashifts: ashifts}
	for _, a := range []int{9, 12, 13} {
		if ashifts != nil && a < ashifts.Min {
			continue // the disks refuse it
		}
		c, err := calc.PlanZFS(specs, disk, a, rs)
		if err != nil {
			return err
		}
		out.Compare = append(out.Compare, c)
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, out)
	}
	w := env.Stdout
	tib := func(b uint64) string { return fmt.Sprintf("%.2f TiB", float64(b)/(1<<40)) }
	if a := ashifts; a != nil {
		fmt.Fprintf(w, "ashift: %s\n", a.Why)
		if o.Ashift < a.Recommended && a.PhysicalSector > 1<<o.Ashift {
			fmt.Fprintf(w, "  ashift %d is below the %d-byte physical sector: every write smaller than it is a read-modify-write inside the disk\n", o.Ashift, a.PhysicalSector)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "usable (zfs list AVAIL of the new pool): %d bytes, %s (ashift %d, slop %s)\n\n", p.UsableBytes, tib(p.UsableBytes), p.Ashift, tib(p.SlopBytes))
	fmt.Fprintf(w, "%-12s %14s %14s %10s %10s %12s\n", "vdev", "raw", "usable", "eff.", "ideal", "eff. @rs")
	for _, v := range p.Vdevs {
		fmt.Fprintf(w, "%-12s %14s %14s %9.1f%% %9.1f%% %11.1f%%\n", v.Spec, tib(v.RawBytes), tib(v.UsableBytes), v.Efficiency*100, v.IdealEff*100, v.RecordEff*100)
	}
	fmt.Fprintf(w, "\nsame layout by ashift:")
	for _, c := range out.Compare {
		fmt.Fprintf(w, "  %d: %s", c.Ashift, tib(c.UsableBytes))
	}
	fmt.Fprintln(w)
	return nil
}

// runCalcVPNLink answers --link-mtu: the mssfix (2.6 and older
// meanings) and tun-mtu for a link, with the overhead breakdown.
func runCalcVPNLink(o *calcVPNOptions, in calc.VPNInput, env *Env) error {
	l, err := calc.PlanVPNLink(in, o.LinkMTU)
	if err != nil {
		return &UsageError{Err: err, Hint: "e.g. nastune calc vpn --link-mtu 1500 --proto udp"}
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, vpnCalc{VPNPlan: l.Breakdown, Link: &l,
			Why: fmt.Sprintf("mssfix %d mtu (OpenVPN 2.6) or mssfix %d (2.5 and older) clamps TCP to MSS %d; tun-mtu %d or less on both ends keeps every packet whole", l.MSSFix, l.MSSFixLegacy, l.MSS, l.TunMTUNoFragment)})
	}
	w := env.Stdout
	p := l.Breakdown
	proto := strings.ToUpper(cmp.Or(o.Proto, "udp"))
	fmt.Fprintf(w, "link MTU %d, %s over %s, %s:\n\n", l.LinkMTU, strings.Replace(strings.ToUpper(cmp.Or(o.Outer, "ipv4")), "IPV", "IPv", 1), proto, strings.ToUpper(o.Cipher))
	fmt.Fprintf(w, "  mssfix %d mtu    OpenVPN 2.6 (its default is 1492 mtu): the whole packet on the wire\n", l.MSSFix)
	fmt.Fprintf(w, "  mssfix %d        the same limit for 2.5 and older, or 2.6 without 'mtu' (UDP payload)\n", l.MSSFixLegacy)
	fmt.Fprintf(w, "  tun-mtu 1500       keep the default: TCP is clamped to MSS %d and fits; larger UDP or ICMP\n", l.MSS)
	fmt.Fprintf(w, "                     packets are fragmented outside the tunnel\n")
	fmt.Fprintf(w, "  tun-mtu %-10d or set this on both ends: no packet, TCP or not, is fragmented\n\n", l.TunMTUNoFragment)
	row := func(label string, n int) { fmt.Fprintf(w, "  %-36s %5d\n", label, n) }
	row("link MTU", l.LinkMTU)
	row("- outer IP + "+proto+" header", p.OuterBytes)
	tunnelRows(row, p)
	row("= largest inner packet (tun-mtu)", l.TunMTUNoFragment)
	row("- inner IPv4 + TCP", p.InnerBytes)
	row("= MSS", l.MSS)
	return nil
}

// sectorAshifts reads --sector-size, --logical-sector-size and
// --physical-sector-size; nil when none is given.
func sectorAshifts(o *calcZFSOptions) (*calc.AshiftChoice, error) {
	if o.Sector == "" && o.Logical == "" && o.Physical == "" {
		return nil, nil
	}
	if o.Sector != "" && (o.Logical != "" || o.Physical != "") {
		return nil, usagef("give --sector-size for disks whose sectors are one size, or --logical-sector-size and --physical-sector-size", "--sector-size and --logical/--physical-sector-size exclude each other")
	}
	logical, physical := o.Logical, o.Physical
	if o.Sector != "" {
		logical, physical = o.Sector, o.Sector
	}
	if logical == "" {
		logical = "512" // a physical size alone: 512e when it is larger
	}
	var l, p uint64
	var err error
	if l, err = sizeFlag("logical-sector-size", logical); err != nil {
		return nil, err
	}
	if p, err = sizeFlag("physical-sector-size", physical); err != nil {
		return nil, err
	}
	c, err := calc.Ashifts(int(min(l, 1<<20)), int(min(p, 1<<20)))
	if err != nil {
		return nil, &UsageError{Err: err, Hint: "sector sizes as lsblk -o LOG-SEC,PHY-SEC prints them: 512 or 4096"}
	}
	return &c, nil
}

type calcVPNOptions struct {
	MSSFix      int
	Legacy      bool
	Outer       string
	Proto       string
	Cipher      string
	Auth        string
	Compression bool
	TAP         bool
	NoPeerID    bool
	TunMTU      int
	LinkMTU     int
	Output      string
}

// vpnCalc is `calc vpn -o json`.
type vpnCalc struct {
	calc.VPNPlan
	// Other is the same mssfix read with the other meaning.
	Other calc.VPNPlan `json:"other_semantics"`
	// TunMTUMSS is the MSS a tun-mtu allows (tun-mtu − 40), when given.
	TunMTUMSS int    `json:"tun_mtu_mss,omitempty"`
	Why       string `json:"why"`
	// Link answers --link-mtu: which mssfix and tun-mtu fit that link.
	Link *calc.VPNLinkPlan `json:"link,omitempty"`
}

func newCalcVPNCmd(env *Env) *cobra.Command {
	o := &calcVPNOptions{}
	cmd := &cobra.Command{
		Use:   "vpn",
		Short: "OpenVPN: the TCP MSS an mssfix value gives, with the overhead breakdown (2.6 and older meanings)",
		Long: "calc vpn follows OpenVPN 2.6's frame calculation (src/openvpn/mss.c and mtu.c). By default\n" +
			"--mssfix N means 2.6's 'mssfix N mtu': N is the whole encapsulated packet on the wire. With\n" +
			"--legacy, N is the UDP payload, as OpenVPN 2.5 and earlier read it (and 2.6 reads 'mssfix N'\n" +
			"without 'mtu'). The answer shows both readings.\n\n" +
			"With --link-mtu N (the MTU of the network the tunnel runs over, e.g. 1500; not OpenVPN's own\n" +
			"link-mtu option) it answers the other way round: which mssfix and tun-mtu fit that link.\n\n" +
			"Ciphers: " + calc.VPNCiphers() + ".\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runCalcVPN(o, env) },
	}
	f := cmd.Flags()
	f.IntVar(&o.MSSFix, "mssfix", 1492, "the mssfix value")
	f.BoolVar(&o.Legacy, "legacy", false, "read --mssfix as the UDP payload (pre-2.6 meaning)")
	f.StringVar(&o.Outer, "outer", "ipv4", "outer IP version: ipv4 or ipv6")
	f.StringVar(&o.Proto, "proto", "udp", "transport: udp or tcp")
	f.StringVar(&o.Cipher, "cipher", "AES-256-GCM", "data channel cipher")
	f.StringVar(&o.Auth, "auth", "SHA1", "HMAC digest (CBC ciphers only): SHA1, SHA256, SHA512")
	f.BoolVar(&o.Compression, "compression", false, "comp-lzo / compress adds a 1-byte header")
	f.BoolVar(&o.TAP, "tap", false, "dev tap: a 14-byte Ethernet header travels inside")
	f.BoolVar(&o.NoPeerID, "no-peer-id", false, "the peer does not use peer-id (pre-2.3 clients): 1-byte opcode instead of 4")
	f.IntVar(&o.TunMTU, "tun-mtu", 0, "tun-mtu, to compare the MSS it allows")
	f.IntVar(&o.LinkMTU, "link-mtu", 0, "the MTU of the link the tunnel runs over (1500 for Ethernet): prints the mssfix and tun-mtu that fit it")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

func runCalcVPN(o *calcVPNOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	if o.TunMTU != 0 && (o.TunMTU < 68 || o.TunMTU > 65535) {
		return usagef("e.g. --tun-mtu 1500", "--tun-mtu %d: want 68-65535 (IPv4's minimum MTU, RFC 791, up to an IP packet's 16-bit total length)", o.TunMTU)
	}
	in := calc.VPNInput{MSSFix: o.MSSFix, Legacy: o.Legacy, Outer: o.Outer, Proto: o.Proto, Cipher: o.Cipher, Auth: o.Auth,
		Compression: o.Compression, TAP: o.TAP, PeerID: !o.NoPeerID}
	if o.LinkMTU > 0 {
		return runCalcVPNLink(o, in, env)
	}
	p, err := calc.PlanVPN(in)
	if err != nil {
		return &UsageError{Err: err, Hint: "e.g. nastune calc vpn --mssfix 1492 --cipher AES-256-GCM --outer ipv4"}
	}
	in.Legacy = !in.Legacy
	other, err := calc.PlanVPN(in)
	if err != nil {
		return &UsageError{Err: err}
	}
	r := vpnCalc{VPNPlan: p, Other: other}
	r.Why = fmt.Sprintf("Read as %s, mssfix %d clamps TCP to MSS %d; read the other way (%s) it gives %d.",
		p.Semantics, o.MSSFix, p.MSS, other.Semantics, other.MSS)
	if o.TunMTU > 0 {
		r.TunMTUMSS = o.TunMTU - 40
		r.Why += fmt.Sprintf(" tun-mtu %d by itself limits inner packets to MSS %d, so the smaller of the two applies.", o.TunMTU, r.TunMTUMSS)
	}
	if o.Output == "json" {
		return render.JSON(env.Stdout, r)
	}
	w := env.Stdout
	fmt.Fprintf(w, "MSS %d  (%s)\n\n", p.MSS, p.Semantics)
	row := func(label string, n int) { fmt.Fprintf(w, "  %-36s %5d\n", label, n) }
	row("mssfix", o.MSSFix)
	if p.OuterBytes > 0 {
		row("- outer IP + "+strings.ToUpper(o.Proto)+" header", p.OuterBytes)
	}
	tunnelRows(row, p)
	row("- inner IPv4 + TCP", p.InnerBytes)
	row("= MSS", p.MSS)
	fmt.Fprintf(w, "\n%s\n", wrap(r.Why, 78))
	return nil
}

// tunnelRows writes the bytes OpenVPN adds inside the outer header, in the
// order frame_calculate_mssfix subtracts them (both calc vpn tables).
func tunnelRows(row func(string, int), p calc.VPNPlan) {
	row("- opcode / peer-id", p.OpcodeBytes)
	row("- crypto (IV, tag, HMAC, packet id)", p.CryptoBytes)
	if p.CBCPadding > 0 {
		row("- CBC block rounding", p.CBCPadding)
	}
	if p.PayloadBytes > 0 {
		row("- payload headers", p.PayloadBytes)
	}
}
