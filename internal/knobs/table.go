package knobs

import (
	"math"
	"strconv"
)

func v(major, minor int) Version { return Version{major, minor, 0} }

func fixed(s string) func(Env) string { return func(Env) string { return s } }

const (
	kib = 1 << 10
	mib = 1 << 20
)

// tcpShare is tcp_init's per-socket ceiling: the RAM share (1/128 of the
// free low memory at boot), capped at cap and at least floor. With RAM
// unknown the cap is assumed (a machine of 1 GiB or more).
func tcpShare(env Env, capB, floor, divisor uint64) uint64 {
	share := capB
	if env.LowMemBytes > 0 {
		share = min(capB, env.LowMemBytes/divisor)
	}
	return max(floor, share)
}

func rmemMax(env Env) uint64 {
	switch {
	case !env.Kernel.Less(v(6, 16)):
		return tcpShare(env, 32*mib, 131072, 128)
	case !env.Kernel.Less(v(4, 20)):
		return tcpShare(env, 6*mib, 131072, 128)
	default:
		return tcpShare(env, 6*mib, 87380, 128)
	}
}

func u(n uint64) string { return strconv.FormatUint(n, 10) }

// TCPRmem is the kernel's boot value of net.ipv4.tcp_rmem (Linux 3.4 and
// later; "" before): the third field scales with RAM. free pages at boot
// are a little below RAM, so the third field is an upper estimate on small
// machines.
func TCPRmem(env Env) string {
	if !env.Kernel.IsZero() && env.Kernel.Less(v(3, 4)) {
		return ""
	}
	mid := "131072"
	if !env.Kernel.IsZero() && env.Kernel.Less(v(4, 20)) {
		mid = "87380"
	}
	return "4096 " + mid + " " + u(rmemMax(env))
}

// TCPWmem is the kernel's boot value of net.ipv4.tcp_wmem.
func TCPWmem(env Env) string {
	return "4096 16384 " + u(tcpShare(env, 4*mib, 64*kib, 128))
}

// tcpLowerBound is the threshold for the RAM-scaled third field: three
// quarters of the estimate (the kernel counts the pages still free when TCP
// initialises, early in boot: RAM less the kernel image, the page array
// (~1.6%) and boot-time reservations, so well above 3/4 of RAM) and at
// least the documented floor, so a value is called "below the default"
// only when it surely is.
func tcpLowerBound(est func(Env) string, floor uint64) func(Env) string {
	return func(env Env) string {
		e := est(env)
		n, ok := field(e, 2)
		if !ok {
			return ""
		}
		bound := uint64(n) / 4 * 3
		if env.LowMemBytes == 0 {
			bound = floor // RAM unknown: only the floor is certain
		}
		return "0 0 " + u(max(floor, bound))
	}
}

// MinFreeKB is the kernel's boot-time vm.min_free_kbytes for a low memory
// size (mm/page_alloc.c calculate_min_free_kbytes: int_sqrt(lowmem_kB ×
// 16), clamped to 128 … 262144 since 5.7, 65536 before).
func MinFreeKB(lowmemBytes uint64, k Version) int64 {
	v := int64(math.Sqrt(float64(lowmemBytes/1024) * 16))
	upper := int64(262144)
	if !k.IsZero() && k.Less(Version{5, 7, 0}) {
		upper = 65536
	}
	return max(128, min(v, upper))
}

var table = []Knob{
	// net.core
	{Key: "net.core.rmem_default", Unit: Bytes, Range: "≥ SOCK_MIN_RCVBUF",
		Defaults: []Span{{Text: "SK_RMEM_MAX: 212992 on common 64-bit builds (depends on the size of struct sk_buff: architecture and build options)"}},
		Hurts: "Every socket that does not autotune (UDP, unix, raw; not TCP, which uses tcp_rmem[1]) starts with this buffer: " +
			"guides that set it to 16 MiB or more let each such socket pin that much memory under load.",
		Sources: []string{SrcNet + "#rmem-default", "https://man7.org/linux/man-pages/man7/socket.7.html"}},
	{Key: "net.core.wmem_default", Unit: Bytes, Range: "≥ SOCK_MIN_SNDBUF",
		Defaults: []Span{{Text: "SK_WMEM_MAX: 212992 on common 64-bit builds (architecture-dependent)"}},
		Hurts:    "As rmem_default, for send buffers of non-TCP sockets.",
		Sources:  []string{SrcNet + "#wmem-default"}},
	{Key: "net.core.rmem_max", Unit: Bytes, Range: "≥ SOCK_MIN_RCVBUF",
		Defaults: []Span{
			{Until: v(6, 18), Text: "SK_RMEM_MAX: 212992 on common 64-bit builds (architecture-dependent)"},
			{From: v(6, 18), Text: "4194304 (4 MiB)", Value: fixed("4194304")}},
		Harm: HarmBelow,
		Hurts: "Caps what a program may ask for with SO_RCVBUF (OpenVPN rcvbuf, Samba socket options, NFS over UDP); it does not limit " +
			"TCP autotuning. Below the default, programs that size their own buffers get less than the kernel would give them.",
		Sources: []string{SrcNet + "#rmem-max", "net-next 2025-08-19 \"net: set net.core.rmem_max and net.core.wmem_max to 4 MB\" (KNOWLEDGE §1; 6.18 reads 4194304)"}},
	{Key: "net.core.wmem_max", Unit: Bytes, Range: "≥ SOCK_MIN_SNDBUF",
		Defaults: []Span{
			{Until: v(6, 18), Text: "SK_WMEM_MAX: 212992 on common 64-bit builds (architecture-dependent)"},
			{From: v(6, 18), Text: "4194304 (4 MiB)", Value: fixed("4194304")}},
		Harm:    HarmBelow,
		Hurts:   "Caps what a program may ask for with SO_SNDBUF; does not limit TCP autotuning.",
		Sources: []string{SrcNet + "#wmem-max"}},
	{Key: "net.core.netdev_max_backlog", Unit: Packets, Range: "≥ 0",
		Defaults: []Span{{Text: "1000", Value: fixed("1000")}},
		Hurts: "Sizes the per-CPU input backlog of non-NAPI drivers and RPS only; raise it when /proc/net/softnet_stat counts drops, " +
			"never as a matter of course.",
		Rule: "net-softnet-drops", Sources: []string{SrcNet + "#netdev-max-backlog"}},
	{Key: "net.core.netdev_budget", Unit: Packets, Range: "≥ 1",
		Defaults: []Span{{Text: "300", Value: fixed("300")}},
		Hurts:    "Packets one receive softirq may process; a growing time_squeeze column of softnet_stat is the evidence to raise it.",
		Rule:     "net-softnet-squeeze", Sources: []string{SrcNet + "#netdev-budget"}},
	{Key: "net.core.netdev_budget_usecs", Unit: Usecs, Range: "≥ 0", Added: v(4, 12),
		Defaults: []Span{{From: v(4, 12), Text: "2 jiffies: 2000 at HZ=1000, 8000 at HZ=250, 20000 at HZ=100 (depends on the build)"}},
		Hurts:    "Time limit of one receive softirq; the time_squeeze counter says whether it runs out.",
		Sources:  []string{SrcNet + "#netdev-budget-usecs", "commit \"Replace 2 jiffies with sysctl netdev_budget_usecs to enable softirq tuning\" (Linux 4.12)"}},
	{Key: "net.core.somaxconn", Unit: Count, Range: "0 … INT_MAX",
		Defaults: []Span{
			{Until: v(5, 4), Text: "128", Value: fixed("128")},
			{From: v(5, 4), Text: "4096", Value: fixed("4096")}},
		Harm: HarmBelow,
		Hurts: "Caps every listen() backlog. Old guides \"raise\" it to 1024 or 2048, which on Linux 5.4 and later lowers it below the " +
			"default of 4096: connection bursts to smbd, nfsd or a web UI are then dropped or reset.",
		Sources: []string{SrcIPSysctl + "#tcp-variables", "commit \"net: increase SOMAXCONN to 4096\" (Linux 5.4)"}},
	{Key: "net.core.default_qdisc", Unit: Text,
		Defaults: []Span{{Text: "pfifo_fast, or the build's CONFIG_DEFAULT_NET_SCH (fq_codel on many distributions)"}},
		Hurts:    "A matter of workload; fq is needed for pacing-based congestion control such as BBR on kernels before 4.13.",
		Sources:  []string{SrcNet + "#default-qdisc"}},

	// net.ipv4 TCP
	{Key: "net.ipv4.tcp_rmem", Unit: Bytes, Range: "three values: min, default, max (bytes)",
		Defaults: []Span{
			{Until: v(3, 4), Text: "4096 87380 (RAM-scaled max, at most 4 MiB)"},
			{From: v(3, 4), Until: v(4, 20), Text: "4096 87380 max(87380, min(6 MiB, RAM/128))", Value: TCPRmem},
			{From: v(4, 20), Until: v(6, 16), Text: "4096 131072 max(131072, min(6 MiB, RAM/128))", Value: TCPRmem},
			{From: v(6, 16), Text: "4096 131072 max(131072, min(32 MiB, RAM/128))", Value: TCPRmem}},
		Harm: HarmBelow, Field: 2, Limit: tcpLowerBound(TCPRmem, 131072),
		Hurts: "The third value is the ceiling of receive autotuning: a stream cannot keep more than about this much in flight, so a " +
			"cap below the default (64 KiB in old guides) limits a 20 ms path to a few Mbit/s. Restore the default, or 2 × BDP if larger.",
		Rule: "net-tcp-buffers-small",
		Sources: []string{SrcIPSysctl + "#tcp-variables", srcTCPC,
			"commit \"tcp: change tcp_adv_win_scale and tcp_rmem[2]\" (Linux 3.4: max 4 MiB → 6 MiB, adv_win_scale 2 → 1)",
			"commit \"tcp: up initial rmem to 128KB and SYN rwin to around 64KB\" (Linux 4.20: 87380 → 131072)",
			"net-next 2025-05-13 \"tcp: increase tcp_rmem[2] to 32 MB\" (KNOWLEDGE §1)"}},
	{Key: "net.ipv4.tcp_wmem", Unit: Bytes, Range: "three values: min, default, max (bytes)",
		Defaults: []Span{{Text: "4096 16384 max(64 KiB, min(4 MiB, RAM/128))", Value: TCPWmem}},
		Harm:     HarmBelow, Field: 2, Limit: tcpLowerBound(TCPWmem, 64*kib),
		Hurts: "The third value is the ceiling of send autotuning; below the default a sender cannot keep a long path full. " +
			"Restore the default, or 2 × BDP if larger.",
		Rule: "net-tcp-buffers-small", Sources: []string{SrcIPSysctl + "#tcp-variables", srcTCPC}},
	{Key: "net.ipv4.tcp_mem", Unit: Pages, Range: "three values: min, pressure, max (pages)",
		Defaults: []Span{{Text: "computed at boot from free memory: l = free pages/16; l×3/4, l, l×3/2"}},
		Hurts: "Machine-wide TCP memory thresholds in pages, not bytes. Values copied as bytes (16777216) or from a bigger machine " +
			"disable memory-pressure handling or starve TCP. Leave it to the kernel.",
		Rule: "net-tcp-mem-set", Sources: []string{SrcIPSysctl + "#tcp-variables", srcTCPC}},
	{Key: "net.ipv4.tcp_timestamps", Unit: Enum, Range: "0, 1, 2 (2: without random offsets)",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Harm:     HarmBelow,
		Hurts:    "0 switches off PAWS (protection against wrapped sequence numbers, needed from gigabit speeds) and RTT sampling; the CPU saved is not measurable.",
		Rule:     "net-tcp-timestamps-off", Sources: []string{SrcIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc7323"}},
	{Key: "net.ipv4.tcp_window_scaling", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Harm:     HarmBelow,
		Hurts:    "0 caps every TCP window at 64 KiB: a stream over a 20 ms path gets about 25 Mbit/s whatever the link.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc7323"}},
	{Key: "net.ipv4.tcp_sack", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Harm:     HarmBelow,
		Hurts:    "0 disables selective acknowledgements: one lost segment then costs a retransmission of everything after it.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc2018"}},
	{Key: "net.ipv4.tcp_dsack", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Hurts:    "Duplicate SACKs let the sender detect spurious retransmissions; no reason to turn them off.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_moderate_rcvbuf", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Harm:     HarmBelow,
		Hurts:    "0 switches off receive-buffer autotuning: every connection keeps tcp_rmem[1] (87380 or 131072 bytes) whatever the path needs.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_adv_win_scale", Unit: Count, Range: "-31 … 31", Inert: v(6, 6),
		Defaults: []Span{
			{Until: v(3, 4), Text: "2", Value: fixed("2")},
			{From: v(3, 4), Text: "1", Value: fixed("1")}},
		Hurts: "The \"tcp_rmem = wmem/0.75\" tip comes from the pre-3.4 default 2; since 6.6 the key does nothing (the window follows each " +
			"socket's payload/truesize ratio).",
		Rule: "net-tcp-adv-win-scale",
		Sources: []string{SrcIPSysctl + "#tcp-variables",
			srcCommit + "dfa2f0483360d4d6f2324405464c9f281156bd87 (\"tcp: get rid of sysctl_tcp_adv_win_scale\", 6.6)"}},
	{Key: "net.ipv4.tcp_tw_recycle", Unit: Boolean, Range: "0, 1", Removed: v(4, 12),
		Defaults: []Span{{Until: v(4, 12), Text: "0", Value: fixed("0")}},
		Harm:     HarmAbove,
		Hurts:    "1 drops connections from clients behind NAT (timestamps from several hosts look out of order).",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", srcCommit + "4396e46187ca5070219b81773c4e65088dac50cc"}},
	{Key: "net.ipv4.tcp_tw_reuse", Unit: Enum, Range: "0, 1, 2 (2: loopback only)",
		Defaults: []Span{{Text: "0 on older kernels, 2 (loopback only) on current ones"}},
		Hurts:    "Only affects outgoing connections; a server (smbd, nfsd) gains nothing from it.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_low_latency", Unit: Boolean, Range: "0, 1", Inert: v(4, 14),
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "A legacy option with no effect since 4.14 (ip-sysctl.rst).",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_fack", Unit: Boolean, Range: "0, 1", Inert: v(4, 15),
		Defaults: []Span{{Text: "1 before 4.15"}},
		Hurts:    "A legacy option with no effect since FACK loss detection was retired in 4.15 (ip-sysctl.rst).",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", "commit \"tcp: retire FACK loss detection\" (Linux 4.15)"}},
	{Key: "net.ipv4.tcp_syncookies", Unit: Enum, Range: "0, 1, 2",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Harm:     HarmBelow,
		Hurts:    "0 removes the fallback that keeps a listening service reachable during a SYN flood.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_abort_on_overflow", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Harm:     HarmAbove,
		Hurts:    "1 resets connections when a listener's queue overflows in a burst instead of letting them recover; the kernel docs warn it can harm clients.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_retries2", Unit: Count, Range: "≥ 0",
		Defaults: []Span{{Text: "15 (about 924 s)", Value: fixed("15")}},
		Harm:     HarmBelow, Limit: fixed("8"),
		Hurts: "Below 8 an established connection is killed in under the 100 s RFC 1122 asks for: a short switch or Wi-Fi outage breaks " +
			"SMB and NFS sessions.",
		Sources: []string{SrcIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc1122#section-4.2.3.5"}},
	{Key: "net.ipv4.tcp_slow_start_after_idle", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "1", Value: fixed("1")}},
		Hurts:    "0 keeps the congestion window across idle periods: faster restarts of bursty transfers, larger bursts into the network.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc2861"}},
	{Key: "net.ipv4.tcp_no_metrics_save", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "A matter of workload (metrics of closed connections seed new ones).",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_mtu_probing", Unit: Enum, Range: "0, 1, 2",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "1 (probe after an ICMP black hole) helps VPN and PPPoE paths; 2 probes always.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_congestion_control", Unit: Text,
		Defaults: []Span{{Text: "the build's CONFIG_DEFAULT_TCP_CONG (cubic on common distributions)"}},
		Hurts:    "A matter of path and workload.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_fin_timeout", Unit: Seconds, Range: "≥ 0",
		Defaults: []Span{{Text: "60", Value: fixed("60")}},
		Hurts:    "Only orphaned FIN_WAIT_2 sockets; lowering it is harmless and rarely useful on a file server.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_keepalive_time", Unit: Seconds, Range: "≥ 1",
		Defaults: []Span{{Text: "7200", Value: fixed("7200")}},
		Hurts:    "Only sockets that enable SO_KEEPALIVE; Samba and NFS have their own keepalives.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_max_tw_buckets", Unit: Count,
		Defaults: []Span{{Text: "computed at boot from the established-hash size"}},
		Hurts:    "The kernel docs: \"you must not lower the limit artificially\"; it exists only against simple DoS attacks.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_max_orphans", Unit: Count,
		Defaults: []Span{{Text: "computed at boot: half the established-hash size"}},
		Hurts:    "The kernel docs: \"you _must_ not rely on this or lower the limit artificially\".",
		Sources:  []string{SrcIPSysctl + "#tcp-variables", srcTCPC}},
	{Key: "net.ipv4.tcp_max_syn_backlog", Unit: Count,
		Defaults: []Span{{Text: "computed at boot from memory, at least 128"}},
		Hurts:    "Per-listener SYN_RECV queue; raise only with evidence of SYN drops.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_ecn", Unit: Enum, Range: "0, 1, 2",
		Defaults: []Span{{Text: "2", Value: fixed("2")}},
		Hurts:    "2 accepts ECN when asked; 1 also requests it (a few old middleboxes drop such SYNs).",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_limit_output_bytes", Unit: Bytes,
		Defaults: []Span{{Text: "1048576 in the 6.x documentation; raised over the years (4194304 on 6.18)"}},
		Hurts:    "TCP Small Queues limit per socket; lowering it cuts single-stream throughput on fast links.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},
	{Key: "net.ipv4.tcp_notsent_lowat", Unit: Bytes,
		Defaults: []Span{{Text: "4294967295 (UINT_MAX)", Value: fixed("4294967295")}},
		Hurts:    "Low values reduce sender-side buffering for interactive traffic at some CPU cost; neutral for bulk file service.",
		Sources:  []string{SrcIPSysctl + "#tcp-variables"}},

	// net.ipv4 UDP and IP
	{Key: "net.ipv4.udp_mem", Unit: Pages, Range: "three values: min, pressure, max (pages)",
		Defaults: []Span{{Text: "computed at boot from free memory"}},
		Hurts:    "In pages, not bytes, like tcp_mem; values copied as bytes are wrong by a factor of 4096.",
		Sources:  []string{SrcIPSysctl + "#udp-variables"}},
	{Key: "net.ipv4.udp_rmem_min", Unit: Bytes,
		Defaults: []Span{{Text: "4096", Value: fixed("4096")}},
		Hurts:    "Receive buffer each UDP socket keeps under memory pressure.",
		Sources:  []string{SrcIPSysctl + "#udp-variables"}},
	{Key: "net.ipv4.udp_wmem_min", Unit: Bytes,
		Defaults: []Span{{Text: "4096"}},
		Hurts:    "\"UDP does not have tx memory accounting and this tunable has no effect\" (ip-sysctl.rst): setting it changes nothing.",
		Sources:  []string{SrcIPSysctl + "#udp-variables"}},
	{Key: "net.ipv4.ip_forward", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "Needed on a VPN server that routes; writing it resets other per-interface settings to host or router defaults.",
		Sources:  []string{SrcIPSysctl}},
	{Key: "net.ipv4.ip_no_pmtu_disc", Unit: Enum, Range: "0 … 3",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Harm:     HarmAbove,
		Hurts:    "Non-zero disables Path MTU discovery: traffic through tunnels and PPPoE links gets fragmented or stalls on black holes.",
		Sources:  []string{SrcIPSysctl}},
	{Key: "net.ipv4.ip_local_port_range", Unit: Count, Range: "two ports, first ≥ ip_unprivileged_port_start",
		Defaults: []Span{{Text: "32768 60999"}},
		Hurts: "Only outgoing connections draw from it; a narrow range exhausts ports for a busy client. A range widened over a " +
			"port this host serves (2049 nfsd, 445/139 smbd) lets an outgoing connection take that port before the service binds it.",
		Rule:    "net-port-range-service",
		Sources: []string{SrcIPSysctl + "#ip-variables"}},
	{Key: "net.ipv4.ip_local_reserved_ports", Unit: Text, Range: "comma separated ports and ranges (\"1,2-4,10\")",
		Defaults: []Span{{Text: "empty", Value: fixed("")}},
		Hurts: "Ports listed here are never assigned automatically (connect(), bind() to port 0); explicit binds are unchanged. " +
			"A service port inside ip_local_port_range belongs here.",
		Rule:    "net-port-range-service",
		Sources: []string{SrcIPSysctl + "#ip-variables"}},

	// net.ipv6
	{Key: "net.ipv6.conf.all.disable_ipv6", Unit: Boolean, Range: "0, 1",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts: "1 removes IPv6 from every interface; Samba, avahi and NFS then log bind errors where they listen on ::. TCP over IPv6 " +
			"takes its buffer sizes from net.ipv4.tcp_*.",
		Sources: []string{SrcIPSysctl + "#proc-sys-net-ipv6-variables"}},

	// vm
	{Key: "vm.swappiness", Unit: Count, Range: "0 … 100 (0 … 200 since 5.8)",
		Defaults: []Span{{Text: "60", Value: fixed("60")}},
		Hurts:    "Where swap lives decides: 10-30 with swap on a data disk, 100 or more with zram only.",
		Rule:     "mem-swappiness", Sources: []string{SrcVM + "#swappiness"}},
	{Key: "vm.vfs_cache_pressure", Unit: Percent, Range: "≥ 0",
		Defaults: []Span{{Text: "100", Value: fixed("100")}},
		Hurts: "Far above 100 (the folklore 1000) the dentry and inode caches that serve directory listings are dropped eagerly; " +
			"0 never reclaims them and can end in out-of-memory.",
		Rule: "mem-vfs-cache-pressure", Sources: []string{SrcVM + "#vfs-cache-pressure"}},
	{Key: "vm.min_free_kbytes", Unit: KBytes, Range: "≥ 0",
		Defaults: []Span{
			{Until: v(5, 7), Text: "sqrt(lowmem_kB × 16), 128 … 65536", Value: func(e Env) string {
				if e.LowMemBytes == 0 {
					return ""
				}
				return strconv.FormatInt(MinFreeKB(e.LowMemBytes, e.Kernel), 10)
			}},
			{From: v(5, 7), Text: "sqrt(lowmem_kB × 16), 128 … 262144", Value: func(e Env) string {
				if e.LowMemBytes == 0 {
					return ""
				}
				return strconv.FormatInt(MinFreeKB(e.LowMemBytes, e.Kernel), 10)
			}}},
		Hurts: "Memory held free for atomic allocations; far above ~3% of RAM it is memory nobody can use, and reclaim runs early.",
		Rule:  "mem-min-free-kbytes-high",
		Sources: []string{SrcVM + "#min-free-kbytes",
			"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/mm/page_alloc.c (calculate_min_free_kbytes)"}},
	{Key: "vm.dirty_ratio", Unit: Percent, Range: "0 … 100",
		Defaults: []Span{{Text: "20", Value: fixed("20")}},
		Hurts:    "Writers block above this share of memory in dirty pages; writing it zeroes vm.dirty_bytes.",
		Rule:     "mem-dirty-big-ram", Sources: []string{SrcVM + "#dirty-ratio"}},
	{Key: "vm.dirty_background_ratio", Unit: Percent, Range: "0 … 100",
		Defaults: []Span{{Text: "10", Value: fixed("10")}},
		Hurts:    "Background writeback starts above this share; on big-RAM machines that is gigabytes. Writing it zeroes vm.dirty_background_bytes.",
		Rule:     "mem-dirty-big-ram", Sources: []string{SrcVM + "#dirty-background-ratio"}},
	{Key: "vm.dirty_bytes", Unit: Bytes, Range: "0, or ≥ 2 pages",
		Defaults: []Span{{Text: "0 (vm.dirty_ratio in effect)", Value: fixed("0")}},
		Hurts:    "Writing it zeroes vm.dirty_ratio; writing 0 never switches back to the ratio.",
		Rule:     "mem-dirty-big-ram", Sources: []string{SrcVM + "#dirty-bytes"}},
	{Key: "vm.dirty_background_bytes", Unit: Bytes, Range: "0, or ≥ 1",
		Defaults: []Span{{Text: "0 (vm.dirty_background_ratio in effect)", Value: fixed("0")}},
		Hurts:    "Writing it zeroes vm.dirty_background_ratio.",
		Rule:     "mem-dirty-big-ram", Sources: []string{SrcVM + "#dirty-background-bytes"}},
	{Key: "vm.dirty_expire_centisecs", Unit: Centisecs, Range: "≥ 0",
		Defaults: []Span{{Text: "3000", Value: fixed("3000")}},
		Hurts:    "Age at which dirty data must be written; large values widen the window of data lost at a power cut.",
		Sources:  []string{SrcVM + "#dirty-expire-centisecs"}},
	{Key: "vm.dirty_writeback_centisecs", Unit: Centisecs, Range: "≥ 0",
		Defaults: []Span{{Text: "500", Value: fixed("500")}},
		Hurts:    "0 disables periodic writeback altogether; dirty data then waits for the dirty limits.",
		Sources:  []string{SrcVM + "#dirty-writeback-centisecs"}},
	{Key: "vm.overcommit_memory", Unit: Enum, Range: "0, 1, 2",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "2 (strict) limits commitments to swap + overcommit_ratio% of RAM: on a NAS without swap, smbd forks and ZFS tools fail to allocate.",
		Sources:  []string{SrcVM + "#overcommit-memory", "https://docs.kernel.org/mm/overcommit-accounting.html"}},
	{Key: "vm.zone_reclaim_mode", Unit: Enum, Range: "bit mask 0 … 7",
		Defaults: []Span{
			{Until: v(3, 16), Text: "0, but switched on at boot on NUMA machines with distant nodes"},
			{From: v(3, 16), Text: "0", Value: fixed("0")}},
		Harm:    HarmAbove,
		Hurts:   "The kernel docs: for file servers or workloads that benefit from having their data cached, zone_reclaim_mode should be left disabled.",
		Sources: []string{SrcVM + "#zone-reclaim-mode", "commit \"mm: disable zone_reclaim_mode by default\" (Linux 3.16)"}},
	{Key: "vm.laptop_mode", Unit: Count, Range: "≥ 0",
		Defaults: []Span{{Text: "0", Value: fixed("0")}},
		Hurts:    "Delays writeback to let disks spin down; on a NAS it turns steady writes into bursts.",
		Sources:  []string{SrcVM + "#laptop-mode", "https://docs.kernel.org/admin-guide/laptops/laptop-mode.html"}},
	{Key: "vm.page-cluster", Unit: Count, Range: "0 … ",
		Defaults: []Span{{Text: "3 (8 pages per swap read)", Value: fixed("3")}},
		Hurts:    "0 suits swap on zram; a matter of the swap device.",
		Sources:  []string{SrcVM + "#page-cluster"}},
	{Key: "vm.watermark_scale_factor", Unit: Count, Range: "1 … 3000 (0.01% steps of RAM)", Added: v(4, 6),
		Defaults: []Span{{From: v(4, 6), Text: "10 (0.1% of RAM)", Value: fixed("10")}},
		Hurts:    "Larger values wake kswapd earlier; a matter of workload.",
		Sources:  []string{SrcVM + "#watermark-scale-factor"}},
	{Key: "vm.nr_pdflush_threads", Unit: Count, Inert: Version{2, 6, 32}, ReadOnly: true,
		Hurts: "It only ever reported the number of pdflush threads (kernel/sysctl.c: mode 0444, \"read-only\"); pdflush was " +
			"replaced by per-device flusher threads in Linux 2.6.32 and the key was later removed.",
		Sources: []string{SrcVM}},

	// fs.xfs keys removed in 4.0 (tuning guides still set them)
	{Key: "fs.xfs.xfsbufd_centisecs", Unit: Centisecs, Removed: v(4, 0),
		Hurts: "Removed in Linux 4.0 with the xfsbufd thread.", Sources: []string{SrcXFS}},
	{Key: "fs.xfs.age_buffer_centisecs", Unit: Centisecs, Removed: v(4, 0),
		Hurts: "Removed in Linux 4.0.", Sources: []string{SrcXFS}},
}
