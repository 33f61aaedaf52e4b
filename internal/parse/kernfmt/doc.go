// Package kernfmt parses the text formats the Linux kernel writes in /proc
// and /sys. It is their one parser: the probe and `nastune watch` both read
// through it, and a parser of another such format belongs here too.
//
//	/proc/meminfo                  Meminfo; ScanMeminfo
//	/proc/cpuinfo                  ParseCPUInfo, ArchFromCPUInfo
//	/proc/crypto                   Crypto
//	/proc/spl/kstat/zfs/*          KStat
//	/proc/mdstat                   ParseMDStat
//	/sys/block/mdX/md/raid_disks   ParseMDRaidDisks
//	md/sync_speed, sync_speed_min/max  ParseMDSyncSpeed, ParseMDSyncLimit
//	PCI current/max_link_speed     PCIeLinkSpeed
//	ata_link sata_spd, sata_spd_limit  SATALinkSpeed
//	/proc/self/mounts              Mounts
//	/proc/self/mountinfo           MountInfoSource, MountInfoMount
//	/proc/swaps                    Swaps
//	/proc/net/bonding/BOND         Bonding
//	/proc/net/snmp                 UDPStats, TCPStats; ScanSNMP
//	/proc/net/packet               PacketSockets
//	/proc/net/dev                  NetDev; NetDevCounters, ScanNetDev
//	/proc/net/softnet_stat         Softnet; SoftnetSum, ScanSoftnet
//	/proc/fs/nfsd/pool_stats       NFSPoolStats; ScanNFSPoolStats
//	/proc/net/rpc/nfsd             NFSDThreads
//	/proc/uptime                   Uptime
//	/proc/stat                     Stat
//	/proc/pressure/*               Pressure
//	/proc/diskstats                Diskstats
//	/proc/vmstat                   Vmstat
//	/proc/PID/stat, schedstat      ProcStat, Schedstat
//	/proc/PID/cgroup, cgroup files ProcCgroup, CgroupMounts, ParseCPUStat, CPUMax,
//	                               IOMax, IOStat, BlkioThrottle, BlkioServiced,
//	                               CFSQuota (v1 cpu.cfs_quota_us, cpu.cfs_period_us)
//	/run/udev/data/*               Udev
//	/proc/sys/kernel/osrelease     KernelRelease
//	sysfs choice lists             Choice (queue/scheduler: "none [mq-deadline]")
//
// The names after a semicolon, and Stat through Schedstat, are the
// allocation-free forms watch calls every interval (counters.go): they fill
// caller-owned values, and the allocating form of the same file is built on
// its Scan function, so each format is read by one piece of code.
//
// Every function is pure: it takes the bytes or a reader and returns data,
// never touching the system. Errors wrap perr.ErrSyntax (the one syntax
// error of internal/parse) and name the line, so a caller can say
// "/proc/swaps: line 3: …" to the user.
//
// Why not prometheus/procfs: procfs reads its files by host path, which
// would step around the confined reader of a --root tree or a snapshot, and
// it picks its cpuinfo parser by the GOARCH it was built for, so an ARM
// capture audited on an x86 laptop would be misread. These formats are small
// and stable; each parser here is table-tested against real captures,
// malformed inputs and a fuzz target.
package kernfmt

import "github.com/nastune/nastune/internal/parse/perr"

// lineErr is a *perr.Error: it wraps perr.ErrSyntax and names the line.
func lineErr(line int, format string, args ...any) error {
	return perr.Line(line, format, args...)
}
