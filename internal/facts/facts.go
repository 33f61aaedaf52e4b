// Package facts holds what the probes learned about one machine, as plain
// data. Rules read facts and nothing else, so a rule can be tested with a
// literal Host and an audit can be replayed from JSON.
//
// Conventions: a pointer field is nil when the value is unknown (the file
// was missing, garbled or needs root); the reason is in Host.NotCollected
// under the source's path. Sizes are bytes unless the name says otherwise
// (KB fields are kibibytes, as the kernel writes them).
package facts

import "strings"

// Host is everything one audit knows about one machine.
type Host struct {
	Hostname string  `json:"hostname"`
	Kernel   Kernel  `json:"kernel"`
	Arch     string  `json:"arch"`
	CPU      CPU     `json:"cpu"`
	Memory   Memory  `json:"memory"`
	Sysctls  Sysctls `json:"sysctls"`
	// SysctlConfig lists every key=value that /etc/sysctl.conf and the
	// sysctl.d folders set, in the order sysctl --system applies them.
	SysctlConfig []SysctlSetting `json:"sysctl_config,omitempty"`
	// SysctlApplier is the program that applies those files at boot:
	// "systemd-sysctl" when this is a systemd host, else "sysctl --system"
	// (procps, run by an init script).
	SysctlApplier string `json:"sysctl_applier,omitempty"`
	// UdevLater lists the ATTR{} assignments of udev rules files that run
	// after nastune's 90-nastune.rules (file-name order across the rules
	// folders, a name in /etc masking /run and /usr/lib).
	UdevLater []UdevAssign `json:"udev_later,omitempty"`
	// ModprobeLater lists the module options that modprobe hands a module
	// after those of nastune's /etc/modprobe.d/90-nastune.conf (later
	// modprobe.d files by name, /etc masking; then the kernel command
	// line's module.param= words for the modules nastune sets, File
	// "/proc/cmdline"): the last value of a parameter wins.
	ModprobeLater []ModprobeOption `json:"modprobe_later,omitempty"`
	Interfaces    []Interface      `json:"interfaces,omitempty"`
	Softnet       []SoftnetCPU     `json:"softnet,omitempty"`
	// UptimeSeconds is the first field of /proc/uptime (0: unknown); it
	// turns since-boot counters into rates.
	UptimeSeconds float64       `json:"uptime_seconds,omitempty"`
	Block         []BlockDevice `json:"block,omitempty"`
	// PCI holds the PCI devices on the way from the CPU to each disk
	// controller and NIC, by address ("0000:02:00.0").
	PCI    map[string]PCIDevice `json:"pci,omitempty"`
	Mounts []Mount              `json:"mounts,omitempty"`
	// MountsSource is the file Mounts was read from: /proc/self/mounts,
	// or /proc/mounts in a captured tree without it ("" means the first).
	MountsSource string `json:"mounts_source,omitempty"`
	Swaps        []Swap `json:"swaps,omitempty"`
	// UDP is the Udp: line of /proc/net/snmp.
	UDP *UDPStats `json:"udp,omitempty"`
	// PacketSockets are the AF_PACKET sockets of /proc/net/packet with
	// the processes holding them.
	PacketSockets []PacketSocket `json:"packet_sockets,omitempty"`
	// Storage beyond /sys/block.
	MD          []MDArray    `json:"md,omitempty"`
	Filesystems []Filesystem `json:"filesystems,omitempty"`
	Fstab       []Mount      `json:"fstab,omitempty"`
	ZFS         *ZFS         `json:"zfs,omitempty"`
	Crypto      []CryptoAlg  `json:"crypto,omitempty"`
	// LoadableModules says whether the kernel loads modules: true when
	// /proc/modules exists, false when a live system has none
	// (CONFIG_MODULES=n), nil when a captured tree did not keep it.
	LoadableModules *bool     `json:"loadable_modules,omitempty"`
	DMCrypt         []DMCrypt `json:"dm_crypt,omitempty"`

	// Owners are other tools that manage tuning on this host (an active
	// TuneD profile, NetworkManager or systemd-networkd link settings).
	Owners []Owner `json:"owners,omitempty"`

	// Bench holds saved `nastune bench disk` results (from
	// /var/lib/nastune/bench/*.json or audit --bench FILE): the sequential
	// reads, and the direct sequential write (BenchMeasure.Read tells them apart).
	Bench []BenchMeasure `json:"bench,omitempty"`
	// ShareBench holds the sequential tests of saved `nastune bench
	// share` results (same places) with their limit verdicts.
	ShareBench []ShareBenchMeasure `json:"share_bench,omitempty"`

	Samba   *Samba    `json:"samba,omitempty"`
	NFS     *NFS      `json:"nfs,omitempty"`
	OpenVPN []OpenVPN `json:"openvpn,omitempty"`

	// KernelLog holds the storage lines of the kernel log (facts/health.go).
	KernelLog *KernelLog `json:"kernel_log,omitempty"`

	NotCollected []NotCollected `json:"not_collected,omitempty"`
}

// Owner is another tool that sets tuning values.
type Owner struct {
	Tool   string `json:"tool"`   // tuned, NetworkManager, systemd-networkd
	Source string `json:"source"` // the file that shows it
	What   string `json:"what"`   // what it manages
}

// Samba is the configuration of smbd.
type Samba struct {
	ConfigFile string `json:"config_file"`
	// Settings are the lines of smb.conf (and included files) that set
	// something, with where they are.
	Settings []SambaSetting `json:"settings"`
	// Global and Shares are the effective values by canonical key
	// (lower case, no spaces: "usesendfile").
	Global map[string]string            `json:"global"`
	Shares map[string]map[string]string `json:"shares"`
	// Source is "testparm -s -v" or "smb.conf + documented defaults".
	Source string `json:"source"`
	// LoadError is set when smbd would refuse a file (a fatal syntax error).
	LoadError *ConfigError `json:"load_error,omitempty"`
	// Server names what shows smbd is installed (its binary, or the
	// Debian package); ServerMissing what shows it is not (smb.conf and
	// testparm come with samba-common and samba-common-bin, which client
	// tools pull in without the server). Both empty: not known.
	Server        string `json:"server,omitempty"`
	ServerMissing string `json:"server_missing,omitempty"`
	// Version is smbd's version ("4.9.5-Debian"), from `smbd -V`.
	Version string `json:"version,omitempty"`
}

// ConfigError names a configuration file line that breaks the service.
type ConfigError struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"msg"`
	// InvalidValue: the line sets a yes/no, enumerated or size parameter
	// to a value Samba refuses (smb-invalid-value and smb-inline-comment
	// report it; smb-config-invalid does not repeat it).
	InvalidValue bool `json:"invalid_value,omitempty"`
}

// SambaSetting is one parameter line.
type SambaSetting struct {
	Section string `json:"section"`
	// FileSection is where the file alone puts the line, when an include
	// before it opened another section (Section is Samba's).
	FileSection string `json:"file_section,omitempty"`
	Name        string `json:"name"`
	Key         string `json:"key"`
	Value       string `json:"value"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	// Text is the line as written (trimmed), for evidence.
	Text string `json:"text,omitempty"`
}

// NFS is the kernel NFS server.
type NFS struct {
	// Threads is the running nfsd thread count (0: not running or unknown).
	Threads       int    `json:"threads"`
	ThreadsSource string `json:"threads_source,omitempty"`
	// ConfigThreads is what configuration asks for, and where.
	ConfigThreads int      `json:"config_threads,omitempty"`
	ConfigFile    string   `json:"config_file,omitempty"`
	ConfigLine    int      `json:"config_line,omitempty"`
	Exports       []Export `json:"exports,omitempty"`
	// Pools are the nfsd thread-pool counters of /proc/fs/nfsd/pool_stats.
	Pools       []NFSPool `json:"pools,omitempty"`
	PoolsSource string    `json:"pools_source,omitempty"`
	// ServerMissing names what shows no NFS server is here (no nfsd in
	// /proc, no rpc.nfsd, nfs-kernel-server not installed); empty when
	// one is, or when that is not known.
	ServerMissing string `json:"server_missing,omitempty"`
}

// NFSPool is one line of /proc/fs/nfsd/pool_stats: requests that arrived,
// that found no idle thread and were queued, and thread wake-ups.
type NFSPool struct {
	Pool            int    `json:"pool"`
	PacketsArrived  uint64 `json:"packets_arrived"`
	SocketsEnqueued uint64 `json:"sockets_enqueued"`
	ThreadsWoken    uint64 `json:"threads_woken"`
	ThreadsTimedout uint64 `json:"threads_timedout"`
}

// Export is one client entry of /etc/exports.
type Export struct {
	Path    string   `json:"path"`
	Client  string   `json:"client"`
	Options []string `json:"options,omitempty"`
	Line    int      `json:"line"`
	// File is the /etc/exports.d/*.exports file the line is in; "" for
	// /etc/exports itself.
	File string `json:"file,omitempty"`
}

// ExportsFile is where the export's line is.
func (e Export) ExportsFile() string {
	if e.File != "" {
		return e.File
	}
	return "/etc/exports"
}

// OpenVPN is one OpenVPN configuration file.
type OpenVPN struct {
	File    string `json:"file"`
	Version string `json:"version,omitempty"` // of the installed openvpn, "2.6.3"
	// Options maps directive → its arguments, last one wins; Lines maps
	// directive → line number.
	Options map[string]string `json:"options"`
	Lines   map[string]int    `json:"lines"`
}

// MDArray is an md RAID array (/proc/mdstat and /sys/block/mdX/md).
type MDArray struct {
	Name       string     `json:"name"`
	Level      string     `json:"level"`
	State      string     `json:"state,omitempty"` // md/array_state: clean, active, degraded…
	RaidDisks  int        `json:"raid_disks"`
	ChunkBytes int        `json:"chunk_bytes,omitempty"`
	SizeBytes  uint64     `json:"size_bytes,omitempty"`
	Metadata   string     `json:"metadata,omitempty"`
	Members    []MDMember `json:"members"`
	// Degraded is md/degraded: missing devices.
	Degraded int `json:"degraded"`
	// Status is the [UU_U] map of /proc/mdstat.
	Status     string  `json:"status,omitempty"`
	SyncAction string  `json:"sync_action,omitempty"` // idle, resync, recover, check…
	Progress   float64 `json:"progress_percent,omitempty"`
	SyncSpeed  int     `json:"sync_speed_kbs,omitempty"`
	// SyncMin/SyncMax are md/sync_speed_min/max in KiB/s per device;
	// SyncLimitsSystem tells that they follow /proc/sys/dev/raid.
	SyncMin           int    `json:"sync_speed_min_kbs,omitempty"`
	SyncMax           int    `json:"sync_speed_max_kbs,omitempty"`
	SyncLimitsSystem  bool   `json:"sync_limits_system,omitempty"`
	MismatchCnt       uint64 `json:"mismatch_cnt,omitempty"`
	StripeCacheSize   int    `json:"stripe_cache_size,omitempty"`
	StripeCacheActive int    `json:"stripe_cache_active,omitempty"`
	Bitmap            string `json:"bitmap,omitempty"`
	// Inactive is "mdX : inactive" in /proc/mdstat: the array is not
	// running (not assembled, or too few members to start); its data is
	// unavailable.
	Inactive bool `json:"inactive,omitempty"`
	ReadOnly bool `json:"read_only,omitempty"` // (read-only) or (auto-read-only)
	// ActiveDisks is the m of the [n/m] pair of /proc/mdstat.
	ActiveDisks int `json:"active_disks,omitempty"`
	// RaidDisksBefore is the member count before a running reshape
	// (md/raid_disks "11 (10)"); equal to RaidDisks otherwise.
	RaidDisksBefore int `json:"raid_disks_before,omitempty"`
	// SyncWaiting is "DELAYED" or "PENDING" when a resync or recovery
	// waits to start (/proc/mdstat "resync=DELAYED").
	SyncWaiting string `json:"sync_waiting,omitempty"`
	// SyncFinish is the estimate of /proc/mdstat ("61.8min").
	SyncFinish string `json:"sync_finish,omitempty"`
	// SysfsConflict says how /sys/block/mdX/md disagrees with the array's
	// /proc/mdstat line (level, member count); then every value comes from
	// /proc/mdstat alone. "" when they agree or sysfs is absent.
	SysfsConflict string `json:"sysfs_conflict,omitempty"`
}

// MDMember is one device of an array.
type MDMember struct {
	Device string `json:"device"` // sdb1
	Disk   string `json:"disk"`   // sdb: the whole disk it lives on
	Role   string `json:"role"`   // active, spare, faulty, journal, replacement
	Slot   int    `json:"slot"`
	// WriteMostly is the (W) flag: reads avoid this member.
	WriteMostly bool `json:"write_mostly,omitempty"`
}

// DataDisks is the number of data-bearing members of a striped array.
func (a MDArray) DataDisks() int {
	switch a.Level {
	case "raid0":
		return a.RaidDisks
	case "raid4", "raid5":
		return a.RaidDisks - 1
	case "raid6":
		return a.RaidDisks - 2
	}
	return 0
}

// Filesystem is a mounted ext4 or XFS filesystem with its stripe geometry.
type Filesystem struct {
	Device     string   `json:"device"`
	MountPoint string   `json:"mount_point"`
	Type       string   `json:"type"`
	Options    []string `json:"options,omitempty"`
	// Backing is the /sys/block name the device resolves to (md0, sda…).
	Backing   string `json:"backing,omitempty"`
	BlockSize int    `json:"block_size,omitempty"`
	// Stride and StripeWidth are ext4's (in fs blocks); SUnit/SWidth
	// XFS's (in fs blocks).
	Stride      int `json:"ext4_stride,omitempty"`
	StripeWidth int `json:"ext4_stripe_width,omitempty"`
	SUnit       int `json:"xfs_sunit,omitempty"`
	SWidth      int `json:"xfs_swidth,omitempty"`
	// Source says where the geometry was read (superblock or a captured
	// tune2fs/xfs_info).
	Source string `json:"source,omitempty"`
}

// ZFS is what zpool, zdb and the SPL kstats say.
type ZFS struct {
	Pools []Pool `json:"pools,omitempty"`
	// ARCSize, ARCMax and ARCMin are arcstats size, c_max and c_min.
	ARCSize uint64 `json:"arc_size,omitempty"`
	ARCMax  uint64 `json:"arc_max,omitempty"`
	ARCMin  uint64 `json:"arc_min,omitempty"`
	// ARCMaxParam is /sys/module/zfs/parameters/zfs_arc_max as read (0:
	// the module's default, which arcstats c_max then shows); nil when
	// not read.
	ARCMaxParam *uint64 `json:"arc_max_param,omitempty"`
}

// Pool is one zpool.
type Pool struct {
	Name       string `json:"name"`
	Health     string `json:"health,omitempty"`
	SizeBytes  uint64 `json:"size_bytes,omitempty"`
	AllocBytes uint64 `json:"alloc_bytes,omitempty"`
	Vdevs      []Vdev `json:"vdevs"`
	// Scan is the "scan:" paragraph of zpool status when a resilver or
	// scrub is running (nil otherwise).
	Scan *PoolScan `json:"scan,omitempty"`
}

// PoolScan is a running resilver or scrub.
type PoolScan struct {
	Kind    string  `json:"kind"`              // resilver, scrub
	Since   string  `json:"since,omitempty"`   // "Wed Apr  8 23:23:38 2015"
	Percent float64 `json:"percent,omitempty"` // "0.39% done"
	ToGo    string  `json:"to_go,omitempty"`   // "0h46m", "01:10:11"
	// Line and DoneLine quote zpool status (the scan: line and the line
	// with "% done") for evidence.
	Line     string `json:"line"`
	DoneLine string `json:"done_line,omitempty"`
}

// Vdev is a top-level vdev: raidzN, mirror or a single disk.
type Vdev struct {
	Type    string   `json:"type"` // raidz1, raidz2, raidz3, mirror, disk, draid…
	Name    string   `json:"name"`
	Devices []string `json:"devices"` // paths as zpool status -P shows them
	// Ashift is the vdev's real ashift from zdb -C (0: unknown).
	Ashift int `json:"ashift,omitempty"`
	// Class is "" for data vdevs, or logs, cache, spares, special, dedup.
	Class string `json:"class,omitempty"`
	// Slots is the vdev's number of child positions: a "replacing-N" or
	// "spare-N" child holds the old and the new device in one position.
	// 0 when every device is its own slot (then len(Devices)).
	Slots int `json:"slots,omitempty"`
	// Leaving are the devices being replaced: every child of a
	// "replacing-N" but its last, which takes the position when the
	// resilver ends. They are in Devices too.
	Leaving []string `json:"leaving,omitempty"`
	// DRAID is the layout of a dRAID vdev ("draid2:4d:8c:1s-0").
	DRAID *DRAIDLayout `json:"draid,omitempty"`
}

// Width is the number of disk positions of the vdev.
func (v Vdev) Width() int {
	if v.Slots > 0 {
		return v.Slots
	}
	return len(v.Devices)
}

// DRAIDLayout is dRAID's parity, data disks per redundancy group, children
// and distributed spares, as its vdev name states them.
type DRAIDLayout struct {
	Parity   int `json:"parity"`
	Data     int `json:"data"`
	Children int `json:"children"`
	Spares   int `json:"spares"`
}

// CryptoAlg is one /proc/crypto entry.
type CryptoAlg struct {
	Name     string `json:"name"`
	Driver   string `json:"driver"`
	Module   string `json:"module,omitempty"`
	Priority int    `json:"priority"`
	SelfTest string `json:"selftest,omitempty"`
	Type     string `json:"type,omitempty"`
}

// DMCrypt is a dm-crypt mapping from dmsetup table.
type DMCrypt struct {
	Name   string   `json:"name"`
	Cipher string   `json:"cipher"`
	Device string   `json:"device"` // major:minor or path of the backing device
	Flags  []string `json:"flags,omitempty"`
	// Backing is the /sys/block name of the device underneath.
	Backing string `json:"backing,omitempty"`
}

// Kernel is the running kernel's release and its parsed version.
type Kernel struct {
	Release string `json:"release"`
	Major   int    `json:"major"`
	Minor   int    `json:"minor"`
	Patch   int    `json:"patch"`
}

// Known reports whether the version was parsed.
func (k Kernel) Known() bool { return k.Major > 0 }

// AtLeast reports whether the kernel is major.minor or newer. An unknown
// kernel is treated as current (true), the safer assumption for advice.
func (k Kernel) AtLeast(major, minor int) bool {
	if !k.Known() {
		return true
	}
	if k.Major != major {
		return k.Major > major
	}
	return k.Minor >= minor
}

// AtLeastPatch is AtLeast with a patch level (2.6.32).
func (k Kernel) AtLeastPatch(major, minor, patch int) bool {
	if !k.Known() || k.Major != major || k.Minor != minor {
		return k.AtLeast(major, minor)
	}
	return k.Patch >= patch
}

// CPU describes the processors.
type CPU struct {
	Count int      `json:"count"`
	Model string   `json:"model,omitempty"`
	MHz   float64  `json:"mhz,omitempty"`
	Flags []string `json:"flags,omitempty"`
}

// HasFlag reports whether any processor lists flag (x86 "flags", ARM
// "Features").
func (c CPU) HasFlag(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// Memory is read from /proc/meminfo.
type Memory struct {
	TotalBytes     uint64 `json:"total_bytes"`
	AvailableBytes uint64 `json:"available_bytes,omitempty"`
	SwapTotalBytes uint64 `json:"swap_total_bytes,omitempty"`
	// LowTotalBytes is set only on 32-bit highmem kernels; it bounds
	// kernel allocations such as socket buffers and min_free_kbytes.
	LowTotalBytes uint64 `json:"low_total_bytes,omitempty"`
	// THP is the selected mode of
	// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise",
	// "never"); "" when the file was absent (a kernel without THP, or a
	// capture that did not hold it).
	THP string `json:"thp,omitempty"`
}

// Sysctls maps dotted keys ("net.ipv4.tcp_rmem") to their values with white
// space runs folded to one space. A key that is absent was not collected.
type Sysctls map[string]string

// SysctlSetting is one key=value line of a sysctl configuration file.
type SysctlSetting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	// Unknown is true when the running kernel has no such key (removed,
	// misspelt, or its module is not loaded).
	Unknown bool `json:"unknown,omitempty"`
	// Link is the real file when File is a symlink (Debian's
	// /etc/sysctl.d/99-sysctl.conf → /etc/sysctl.conf).
	Link string `json:"link,omitempty"`
	// Exclude marks a "-key" line without a value: systemd-sysctl keeps
	// globs from setting the key. Value is empty.
	Exclude bool `json:"exclude,omitempty"`
}

// UdevAssign is one ATTR{NAME}="VALUE" assignment in a udev rules file.
type UdevAssign struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Attr  string `json:"attr"`
	Value string `json:"value"`
}

// ModprobeOption is one param=value of a modprobe.d options line.
type ModprobeOption struct {
	File string `json:"file"`
	// Link is the real file when File is a symlink: plan edits only a
	// real file in /etc/modprobe.d.
	Link   string `json:"link,omitempty"`
	Line   int    `json:"line,omitempty"`
	Module string `json:"module"`
	Param  string `json:"param"`
	Value  string `json:"value"`
}

// Interface is one entry of /sys/class/net.
type Interface struct {
	Name      string `json:"name"`
	Operstate string `json:"operstate,omitempty"`
	Carrier   *bool  `json:"carrier,omitempty"`
	SpeedMbps *int   `json:"speed_mbps,omitempty"`
	Duplex    string `json:"duplex,omitempty"`
	MTU       *int   `json:"mtu,omitempty"`
	TxQueue   *int   `json:"txqueuelen,omitempty"`
	MAC       string `json:"mac,omitempty"`
	// Type is the ARPHRD number (1 Ethernet, 772 loopback…).
	Type int `json:"type"`
	// Physical is true when the interface has a device link (a real NIC,
	// not a bridge, bond, veth or tunnel).
	Physical bool `json:"physical"`
	// PCIPath lists the PCI addresses from the root port down to the NIC.
	PCIPath []string `json:"pci_path,omitempty"`
	// Wireless is true for 802.11 interfaces (speed and duplex mean little).
	Wireless bool   `json:"wireless,omitempty"`
	Driver   string `json:"driver,omitempty"`
	// Master is the bond or bridge this interface is enslaved to.
	Master string            `json:"master,omitempty"`
	Stats  map[string]uint64 `json:"stats,omitempty"`
	// Kind is the link type: "bond", "bridge", "vlan", "wlan" from the
	// uevent DEVTYPE, "veth"/"tun" from the driver, else "ether" for a
	// physical NIC, "loopback", or "".
	Kind    string `json:"kind,omitempty"`
	IfIndex int    `json:"ifindex,omitempty"`
	// Addresses in CIDR form ("192.168.1.10/24", "fe80::1/64").
	Addresses []string `json:"addresses,omitempty"`
	Ethtool   *Ethtool `json:"ethtool,omitempty"`
	// Bond is set on bonding masters.
	Bond *Bond `json:"bond,omitempty"`
	// Qdisc is the root queueing discipline; nil when it was not read.
	Qdisc *Qdisc `json:"qdisc,omitempty"`
}

// Qdisc is an interface's root queueing discipline as a netlink
// RTM_GETQDISC dump (or a captured `tc qdisc show`) reports it.
type Qdisc struct {
	Kind string `json:"kind"`
	// Limit is a root pfifo's packet limit or bfifo's byte limit.
	Limit uint64 `json:"limit,omitempty"`
	// Leaves are the distinct kinds of the qdiscs below the root (the
	// per-queue children of mq), sorted.
	Leaves []string `json:"leaves,omitempty"`
	// Source names what was read: "netlink RTM_GETQDISC" or the captured file.
	Source string `json:"source"`
}

// Ethtool is what the ethtool ioctl (or a captured ethtool run) tells.
type Ethtool struct {
	Driver        string `json:"driver,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	Firmware      string `json:"firmware,omitempty"`
	BusInfo       string `json:"bus_info,omitempty"`
	// Features by the names `ethtool -k` prints; Fixed lists those the
	// driver does not let change.
	Features map[string]bool `json:"features,omitempty"`
	Fixed    []string        `json:"fixed,omitempty"`
	// RequestedOn lists features that are off although requested on
	// (`ethtool -k` "off [requested on]"): the kernel holds them off.
	RequestedOn []string `json:"requested_on,omitempty"`
	Ring        *Ring    `json:"ring,omitempty"`
	// Coalesce holds `ethtool -c` numbers (rx-usecs…, adaptive-rx 0/1).
	Coalesce map[string]int `json:"coalesce,omitempty"`
	Link     *LinkModes     `json:"link,omitempty"`
	// Stats are the `ethtool -S` counters that name drops, misses,
	// overruns, errors or discards.
	Stats map[string]uint64 `json:"stats,omitempty"`
	// Source is "ioctl" or the captured file it was read from.
	Source string `json:"source"`
}

// Ring is the RX/TX descriptor ring size, current and maximum.
type Ring struct {
	RX    int `json:"rx"`
	RXMax int `json:"rx_max"`
	TX    int `json:"tx"`
	TXMax int `json:"tx_max"`
}

// LinkModes are the speeds and duplexes each side of a link can do, by
// ethtool's names ("1000baseT/Full").
type LinkModes struct {
	Supported  []string `json:"supported,omitempty"`
	Advertised []string `json:"advertised,omitempty"`
	Partner    []string `json:"partner,omitempty"`
	Autoneg    *bool    `json:"autoneg,omitempty"`
}

// Bond is a bonding master, from /proc/net/bonding/NAME.
type Bond struct {
	Mode       string `json:"mode"` // balance-rr, active-backup, 802.3ad …
	ModeText   string `json:"mode_text,omitempty"`
	HashPolicy string `json:"hash_policy,omitempty"`
	MIIStatus  string `json:"mii_status,omitempty"`
	LACPRate   string `json:"lacp_rate,omitempty"`
	// AggregatorID and PartnerMAC describe the active 802.3ad aggregator.
	AggregatorID int    `json:"aggregator_id,omitempty"`
	PartnerMAC   string `json:"partner_mac,omitempty"`
	// PartnerInfo is true when the file showed the 802.3ad "Active
	// Aggregator Info" block (or said there is no active aggregator).
	// Kernels since 4.x print it only to CAP_NET_ADMIN readers
	// (bond_procfs.c): without it nothing is known about the partner.
	PartnerInfo bool `json:"partner_info,omitempty"`
	// NoActiveAggregator is "bond0 has no active aggregator".
	NoActiveAggregator bool        `json:"no_active_aggregator,omitempty"`
	Slaves             []BondSlave `json:"slaves,omitempty"`
}

// BondSlave is one "Slave Interface" block.
type BondSlave struct {
	Name         string `json:"name"`
	MIIStatus    string `json:"mii_status,omitempty"`
	SpeedMbps    int    `json:"speed_mbps,omitempty"`
	Duplex       string `json:"duplex,omitempty"`
	LinkFailures int    `json:"link_failures,omitempty"`
	AggregatorID int    `json:"aggregator_id,omitempty"`
	// ActorChurn and PartnerChurn are the 802.3ad "Actor/Partner Churn
	// State" lines (none, monitoring, churned); bond_procfs.c prints them
	// and the Aggregator ID to any reader, unlike the partner details.
	ActorChurn   string `json:"actor_churn,omitempty"`
	PartnerChurn string `json:"partner_churn,omitempty"`
}

// UDPStats are the UDP counters the buffer rules use.
type UDPStats struct {
	InDatagrams  uint64 `json:"in_datagrams"`
	InErrors     uint64 `json:"in_errors"`
	RcvbufErrors uint64 `json:"rcvbuf_errors"`
	SndbufErrors uint64 `json:"sndbuf_errors"`
}

// PacketSocket is one AF_PACKET socket.
type PacketSocket struct {
	Inode   uint64 `json:"inode"`
	Type    int    `json:"type"`  // 3 SOCK_RAW, 2 SOCK_DGRAM
	Proto   string `json:"proto"` // ethertype, hex as in /proc/net/packet
	IfIndex int    `json:"ifindex"`
	UID     int    `json:"uid"`
	// Processes holding the socket (several after fork); empty when
	// /proc/PID/fd could not be read (needs root).
	Processes []Process `json:"processes,omitempty"`
}

// Process names a process.
type Process struct {
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	Cmdline string `json:"cmdline,omitempty"`
}

// SoftnetCPU is one row of /proc/net/softnet_stat.
type SoftnetCPU struct {
	CPU         int    `json:"cpu"`
	Processed   uint64 `json:"processed"`
	Dropped     uint64 `json:"dropped"`
	TimeSqueeze uint64 `json:"time_squeeze"`
}

// BlockDevice is one entry of /sys/block.
type BlockDevice struct {
	Name string `json:"name"`
	// Kind is what internal/blockdev decides from sysfs: "disk" (SATA,
	// SAS, USB, NVMe, MMC, virtio …: the bus is Transport), "md", "dm",
	// "loop", "zram", "ram", "nbd", "optical", "floppy", "mtd", or
	// "other" for a name that cannot be a kernel device name.
	Kind string `json:"kind"`
	// Dev is MAJOR:MINOR.
	Dev string `json:"dev,omitempty"`
	// Scheduler is the active scheduler; Schedulers lists all offered.
	// Both are empty when the queue offers no choice.
	Scheduler  string   `json:"scheduler,omitempty"`
	Schedulers []string `json:"schedulers,omitempty"`
	Rotational *bool    `json:"rotational,omitempty"`
	// ReadAheadKB is queue/read_ahead_kb.
	ReadAheadKB      *int   `json:"read_ahead_kb,omitempty"`
	LogicalBlockSize int    `json:"logical_block_size,omitempty"`
	PhysBlockSize    int    `json:"physical_block_size,omitempty"`
	MinIOSize        int    `json:"minimum_io_size,omitempty"`
	OptIOSize        int    `json:"optimal_io_size,omitempty"`
	SizeBytes        uint64 `json:"size_bytes,omitempty"`
	Removable        bool   `json:"removable,omitempty"`
	// Transport is derived from the device path: "nvme", "usb", "sata",
	// "scsi", "virtio", "mmc" or "" when unknown.
	Transport string `json:"transport,omitempty"`
	// Driver is the device's driver (/sys/block/X/device/driver:
	// "virtio_blk", "vbd", "sd", "nvme"), "" when not read.
	Driver string `json:"device_driver,omitempty"`
	// Slaves are the devices an md/dm device is built on (whole disks or
	// partitions); Holders are the md/dm devices built on this one or
	// on its partitions.
	// FSType is what udev's blkid probe found on the whole device
	// (ID_FS_TYPE: "linux_raid_member", "zfs_member", "xfs"…).
	FSType string `json:"fs_type,omitempty"`
	// Serial is the disk's own serial number. BridgeSerial is set instead
	// when only a USB bridge's serial is visible (udev ID_BUS=usb).
	Serial       string `json:"serial,omitempty"`
	BridgeSerial string `json:"bridge_serial,omitempty"`
	Model        string `json:"model,omitempty"`
	// Udev is true when udev's database had a record for the device
	// (serial and by-id names are then known, or known to be absent).
	Udev bool `json:"udev,omitempty"`
	// ByID are the /dev/disk/by-id names udev made for the device.
	ByID   []string `json:"by_id,omitempty"`
	Vendor string   `json:"vendor,omitempty"`
	// WWN is the sysfs wwid (raw VPD 0x83 text the device chose, such as
	// "naa.5000c500…") or, without one, udev's ID_WWN. For display only.
	WWN string `json:"wwn,omitempty"`
	// UdevID holds the disk's identifiers as udev's database has them
	// (built by udev, which replaces whitespace and unsafe characters).
	// A udev rule that must find the disk again matches these.
	UdevID *UdevID `json:"udev_id,omitempty"`
	// WriteCache is queue/write_cache: "write back" or "write through".
	WriteCache string `json:"write_cache,omitempty"`
	// APM is the hdparm -B level (1-254; 255 off) where known.
	APM *int `json:"apm,omitempty"`
	// USB is set for disks behind a USB bridge.
	USB *USBLink `json:"usb,omitempty"`
	// Controller is the PCI address (or platform device) of the host
	// controller the disk hangs from, from its sysfs path.
	Controller string `json:"controller,omitempty"`
	// PCIPath lists the PCI addresses from the root port down to the
	// controller (keys of Host.PCI).
	PCIPath []string `json:"pci_path,omitempty"`
	// SATA is the disk's SATA link, when it hangs from a libata port.
	SATA            *SATALink   `json:"sata,omitempty"`
	AlignmentOffset int         `json:"alignment_offset,omitempty"`
	Slaves          []string    `json:"slaves,omitempty"`
	Holders         []string    `json:"holders,omitempty"`
	Partitions      []Partition `json:"partitions,omitempty"`
	// Health is what smartctl and the kernel log say (facts/health.go).
	Health *DiskHealth `json:"health,omitempty"`
}

// BenchMeasure is one sequential measurement of a saved bench result
// (sequential reads, and seqwrite-direct for the dirty limits: see Read).
type BenchMeasure struct {
	Source string  `json:"source"`
	Device string  `json:"device"` // md0, sda … as bench disk recorded it
	Test   string  `json:"test"`
	MBs    float64 `json:"mb_s"` // 10^6 bytes per second
	// Size is the test file's size in bytes as the result recorded it
	// (0: not recorded): a file smaller than RAM or a cache can be
	// served from it.
	Size uint64 `json:"size,omitempty"`
}

// ShareBenchMeasure is one sequential test of a saved bench share result:
// its rate, raw TCP in its direction in the same run, and the layer the
// run named as its limit.
type ShareBenchMeasure struct {
	Source  string   `json:"source"`
	URL     string   `json:"url"`
	Test    string   `json:"test"` // seqread or seqwrite
	MBs     float64  `json:"mb_s"` // 10^6 bytes per second
	RawMbit float64  `json:"raw_tcp_mbit_s,omitempty"`
	Layer   string   `json:"layer,omitempty"`
	Subject string   `json:"subject,omitempty"`
	Why     string   `json:"why,omitempty"`
	Devices []string `json:"devices,omitempty"` // the share's devices on the server, top first
}

// Read reports whether m is a sequential read (the ceiling comparisons);
// seqwrite-direct is kept for the dirty-limit sizing only.
func (m BenchMeasure) Read() bool { return strings.HasPrefix(m.Test, "seqread") }

// PCIDevice is one PCI function with its PCI Express link, when it has
// one (/sys/bus/pci/devices/ADDR/{current,max}_link_{width,speed}).
type PCIDevice struct {
	Addr string `json:"addr"`
	// Class is the PCI class code ("0x010601" AHCI, "0x010700" SAS,
	// "0x010802" NVMe, "0x020000" Ethernet, "0x060400" PCI bridge).
	Class  string `json:"class,omitempty"`
	Driver string `json:"driver,omitempty"`
	// Link widths (lanes) and speeds (GT/s per lane); 0 when the device
	// has no PCIe link or the kernel reports "Unknown".
	CurWidth int     `json:"current_link_width,omitempty"`
	MaxWidth int     `json:"max_link_width,omitempty"`
	CurGTs   float64 `json:"current_link_gts,omitempty"`
	MaxGTs   float64 `json:"max_link_gts,omitempty"`
	// Dir is the sysfs folder the attributes were read from (evidence).
	Dir string `json:"sysfs_dir,omitempty"`
}

// SATALink is the negotiated speed of a disk's SATA link
// (/sys/class/ata_link/linkN): sata_spd and the port's hw_sata_spd_limit.
type SATALink struct {
	Link      string  `json:"link"`
	SpeedGbps float64 `json:"speed_gbps,omitempty"`
	LimitGbps float64 `json:"port_limit_gbps,omitempty"`
	// SpeedRaw and LimitRaw are sata_spd and hw_sata_spd_limit as read
	// ("3.0 Gbps"), for evidence.
	SpeedRaw string `json:"speed_raw,omitempty"`
	LimitRaw string `json:"port_limit_raw,omitempty"`
}

// USBLink describes the USB path of a disk.
type USBLink struct {
	// Device is the USB device (bridge) name in /sys/bus/usb/devices ("2-1").
	Device    string `json:"device"`
	SpeedMbps int    `json:"speed_mbps"` // 480 USB 2, 5000 USB 3.0, 10000 …
	// Version is the device's bcdUSB ("2.00", "2.10", "3.20"). A
	// SuperSpeed device running at high speed reports 2.10 (USB 3.2 spec
	// §9.6.1), so 2.10 at 480 Mb/s marks a USB 3 bridge on a USB 2 path.
	Version string `json:"version,omitempty"`
	// Driver is "uas" or "usb-storage" (Bulk-Only Transport).
	Driver string `json:"driver,omitempty"`
	// Bus is the root hub ("usb2"): disks with the same Bus share one
	// host controller's bandwidth.
	Bus string `json:"bus"`
	// Dir is the sysfs folder speed and version were read from (evidence).
	Dir string `json:"sysfs_dir,omitempty"`
}

// UdevID is a disk's ID_WWN, ID_SERIAL_SHORT and ID_SERIAL from udev's
// database. The serials are empty behind a USB bridge without ATA
// pass-through (ID_BUS=usb): they are the bridge's, shared by its disks.
type UdevID struct {
	WWN         string `json:"wwn,omitempty"`
	SerialShort string `json:"serial_short,omitempty"`
	Serial      string `json:"serial,omitempty"`
}

// Partition is a partition of a block device.
type Partition struct {
	Name            string   `json:"name"`
	StartSector     uint64   `json:"start_sector"`
	SizeBytes       uint64   `json:"size_bytes,omitempty"`
	FSType          string   `json:"fs_type,omitempty"`
	AlignmentOffset int      `json:"alignment_offset,omitempty"`
	Dev             string   `json:"dev,omitempty"`
	Holders         []string `json:"holders,omitempty"`
}

// Mount is one line of /proc/self/mounts.
type Mount struct {
	Device     string   `json:"device"`
	MountPoint string   `json:"mount_point"`
	FSType     string   `json:"fstype"`
	Options    []string `json:"options,omitempty"`
	// Line is the line of the file the entry was read from (fstab line
	// numbers count comments and blank lines).
	Line int `json:"line,omitempty"`
}

// Swap is one line of /proc/swaps.
type Swap struct {
	Path      string `json:"path"`
	Type      string `json:"type"`
	SizeBytes uint64 `json:"size_bytes"`
	Priority  int    `json:"priority"`
}

// NotCollected says why a source produced no data.
type NotCollected struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Disk returns the block device named name, or the whole disk a partition
// of that name lives on; nil when there is none.
func (h *Host) Disk(name string) *BlockDevice {
	for i := range h.Block {
		d := &h.Block[i]
		if d.Name == name {
			return d
		}
		for _, p := range d.Partitions {
			if p.Name == name {
				return d
			}
		}
	}
	return nil
}

// DiskForPath resolves a device path as pools and configs name it
// (/dev/sdb1, /dev/disk/by-id/NAME[-partN]) to its whole disk using the
// by-id names udev reported; nil when unknown.
func (h *Host) DiskForPath(p string) *BlockDevice {
	base := p[strings.LastIndexByte(p, '/')+1:]
	if strings.Contains(p, "/by-id/") {
		for i := range h.Block {
			for _, id := range h.Block[i].ByID {
				if base == id || strings.HasPrefix(base, id+"-part") {
					return &h.Block[i]
				}
			}
		}
	}
	return h.Disk(base)
}

// ZFSMember reports whether udev's blkid probe found a ZFS label on the
// device or one of its partitions.
func (d *BlockDevice) ZFSMember() bool {
	if d.FSType == "zfs_member" {
		return true
	}
	for _, p := range d.Partitions {
		if p.FSType == "zfs_member" {
			return true
		}
	}
	return false
}
