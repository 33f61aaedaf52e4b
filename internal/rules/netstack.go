package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Socket buffers and TCP stack sysctls: KNOWLEDGE §1, §2.
var netstackRules = []rule.Rule{
	{Meta: metaTimestamps, Check: checkTimestamps},
	{Meta: metaBuffersSmall, Check: checkBuffersSmall},
	{Meta: metaInitialSmall, Check: checkInitialSmall},
	{Meta: metaBuffersRAM, Check: checkBuffersRAM},
	{Meta: metaTCPMem, Check: checkTCPMem},
	{Meta: metaAdvWinScale, Check: checkAdvWinScale},
	{Meta: metaSoftnetDrops, Check: checkSoftnetDrops},
	{Meta: metaSoftnetSqueeze, Check: checkSoftnetSqueeze},
	{Meta: metaBacklogNoEvidence, Check: checkBacklogNoEvidence},
	{Meta: metaUDPBufErrors, Check: checkUDPBufErrors},
	{Meta: metaPortRangeService, Check: checkPortRangeService},
}

// DefaultRTT is the round-trip time assumed for a LAN.
const DefaultRTT = 500 * time.Microsecond

var metaTimestamps = rule.Meta{
	ID: "net-tcp-timestamps-off", Family: "netstack", Severity: rule.Warn, Since: "0.1.0",
	Title: "TCP timestamps are disabled",
	Doc: "net.ipv4.tcp_timestamps=0 is an old tip \"to save CPU\". Timestamps (RFC 7323) protect " +
		"against wrapped sequence numbers (PAWS), which matters from gigabit speeds on, and give the " +
		"stack accurate RTT samples. They cost 12 bytes per segment and no measurable CPU. Keep them on.",
	Refs: []string{refIPSysctl + "#tcp-variables", "https://www.rfc-editor.org/rfc/rfc7323"},
}

func checkTimestamps(in rule.Input) []rule.Finding {
	h := in.Host
	v, ok := sysctlInt(h, "net.ipv4.tcp_timestamps")
	if !ok || v != 0 {
		return nil
	}
	f := metaTimestamps.New("net.ipv4.tcp_timestamps",
		"Without timestamps TCP cannot reject segments from a wrapped sequence space (PAWS), and its RTT "+
			"estimate, which drives retransmission and buffer autotuning, gets fewer samples. The CPU saved "+
			"is not measurable. Set by "+provenance(h, "net.ipv4.tcp_timestamps")+".", sysctlEvidence(h, "net.ipv4.tcp_timestamps")...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "net.ipv4.tcp_timestamps",
		Current: "0", Value: "1", Basis: "kernel default; RFC 7323"}
	return []rule.Finding{f}
}

// fastestLink returns the highest negotiated speed of an up, physical,
// wired interface in bit/s, and how it was found.
func fastestLink(h *facts.Host) (float64, string) {
	best, name := 0, ""
	for _, i := range h.Interfaces {
		if !i.Physical || i.Wireless || i.SpeedMbps == nil || i.Carrier == nil || !*i.Carrier {
			continue
		}
		if *i.SpeedMbps > best {
			best, name = *i.SpeedMbps, i.Name
		}
	}
	if best == 0 {
		return 1e9, "no wired link speed known; assumed 1 Gbit/s"
	}
	return float64(best) * 1e6, fmt.Sprintf("%s at %s", name, units.LinkMbit(best))
}

func rtt(in rule.Input) time.Duration {
	if in.RTT > 0 {
		return in.RTT
	}
	return DefaultRTT
}

var metaBuffersSmall = rule.Meta{
	ID: "net-tcp-buffers-small", Family: "netstack", Severity: rule.Warn, Since: "0.1.0",
	Title: "TCP autotuning ceiling below twice the bandwidth-delay product or below the kernel default",
	Doc: "TCP autotuning grows each socket's buffers up to tcp_rmem[2]/tcp_wmem[2] and no further " +
		"(net.core.rmem_max/wmem_max cap only buffers a program sets itself, which also switches " +
		"autotuning off). A transfer needs about bandwidth × RTT in flight, and the kernel counts " +
		"packet overhead against the buffer, so the ceiling should be at least twice the BDP. On a " +
		"LAN (1 Gbit/s, 0.5 ms: BDP ≈ 62 KB) the defaults already cover it and nothing should change; " +
		"use --rtt for WAN or VPN peers. A ceiling below the kernel's own default (RAM/128, at most 6 MiB, " +
		"32 MiB since 6.16; docs/knobs.md) was capped by a file or a script: the fix restores the default, " +
		"or 2 × BDP if larger, never another value below the default, since the LAN figure says nothing " +
		"about the VPN or WAN clients the box also serves. The line nastune writes replaces all three " +
		"fields, so a min or initial size below the running kernel's default (tcp_rmem[1] sizes the " +
		"initial receive window since 4.20; guides still copy the old 87380) is raised to it; " +
		"net-tcp-initial-small judges the initial size when the ceiling is fine.",
	Refs: []string{refIPSysctl + "#tcp-variables", refTCP7},
}

// bufferNeed is 2×BDP for the fastest link and the assumed RTT.
func bufferNeed(in rule.Input) (uint64, string) {
	bps, link := fastestLink(in.Host)
	r := rtt(in)
	bdp := calc.BDP(bps, r)
	return calc.TCPBufferMax(bdp), fmt.Sprintf("2 × BDP; BDP = %s × %v = %d bytes", link, r, bdp)
}

func checkBuffersSmall(in rule.Input) []rule.Finding {
	h := in.Host
	need, basis := bufferNeed(in)
	limit := calc.RAMShareCap(h.Memory.TotalBytes)
	env := knobEnv(h)
	var out []rule.Finding
	for _, key := range []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"} {
		t, ok := sysctlTriple(h, key)
		if !ok {
			continue
		}
		cur := uint64(t[2])
		// The kernel's own ceiling for this kernel and RAM: a value surely
		// below it was capped by a file or a script, and the fix restores
		// it, never another value below it.
		k, _ := knobs.Lookup(key)
		capped := k.Judge(h.Sysctls[key], env).Harmful
		var defMax uint64
		if d, ok := k.Default(env); ok {
			if n, ok := knobs.Field(d, 2); ok {
				defMax = uint64(n)
			}
		}
		lo, raised := tcpBufLow(k, env, t)
		if cur >= need && !capped {
			continue
		}
		want := need
		b := basis
		if limit > 0 && want > limit {
			if cur >= limit && !capped {
				continue // already at the RAM share: raising further would starve the box
			}
			want = limit / (64 << 10) * (64 << 10)
			b += fmt.Sprintf("; capped at RAM/32 = %s", humanBytes(limit))
		}
		why := fmt.Sprintf("The ceiling %s is below the %s one stream needs, so a single transfer cannot fill the link.",
			humanBytes(cur), humanBytes(need))
		if capped {
			dflt := k.DefaultText(env.Kernel)
			if defMax > 0 {
				dflt = humanBytes(defMax)
			}
			why = fmt.Sprintf("The ceiling %s is below the kernel's own default (%s on Linux %s with %s): %s capped it, so a "+
				"stream over a longer path than the LAN (a VPN or WAN client at 20 ms needs megabytes) stays window-limited.",
				humanBytes(cur), dflt, h.Kernel.Release, ramText(h), provenance(h, key))
			if defMax > want {
				want = defMax
				b = fmt.Sprintf("the kernel default for this kernel and RAM; 2 × BDP is only %s (%s)", humanBytes(need), strings.TrimPrefix(basis, "2 × BDP; "))
			} else {
				b += "; above the kernel default"
			}
			if c := configFor(h, key); c != nil {
				b += fmt.Sprintf("; remove %s from %s line %d", key, c.File, c.Line)
			}
		}
		b += raised
		f := metaBuffersSmall.New(key, why, sysctlEvidence(h, key)...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: key, Current: h.Sysctls[key],
			Value: fmt.Sprintf("%d %d %d", lo[0], lo[1], want), Basis: b}
		out = append(out, f)
	}
	return out
}

var metaInitialSmall = rule.Meta{
	ID: "net-tcp-initial-small", Family: "netstack", Severity: rule.Info, Since: "0.10.0",
	Title: "TCP initial receive buffer below every kernel default",
	Doc: "The middle field of tcp_rmem is the receive buffer each TCP connection starts with, and " +
		"since Linux 4.20 (commit \"tcp: up initial rmem to 128KB and SYN rwin to around 64KB\", which " +
		"removed tcp_fixup_rcvbuf) nothing raises it at connection setup: it sizes the first advertised " +
		"window (ip-sysctl.rst: 65535 for the default 131072). Guides copy \"4096 4096 16777216\": the " +
		"ceiling is fine, but every connection starts with a window of a few KiB that autotuning grows " +
		"round trip by round trip. Judged only on a known kernel of 4.20 or later and below any default " +
		"a kernel has shipped (87380 before 4.20, 131072 since); the advice restores the running kernel's " +
		"default, never less, and keeps the owner's min and ceiling. tcp_wmem's middle field is not " +
		"judged: the kernel expands each connection's send buffer to about twice the initial congestion " +
		"window at setup (tcp_init_buffer_space, tcp_sndbuf_expand). When net-tcp-buffers-small or " +
		"net-tcp-buffers-ram rewrites the line, that line already carries the default and this rule " +
		"stays silent.",
	Refs: []string{refIPSysctl + "#tcp-variables", refTCP7},
}

func checkInitialSmall(in rule.Input) []rule.Finding {
	h := in.Host
	const key = "net.ipv4.tcp_rmem"
	t, ok := sysctlTriple(h, key)
	env := knobEnv(h)
	// Before 4.20 tcp_fixup_rcvbuf raised the initial buffer at setup.
	if !ok || env.Kernel.IsZero() || env.Kernel.Less(knobs.Version{Major: 4, Minor: 20}) || t[1] >= 87380 {
		return nil
	}
	for _, f := range append(checkBuffersSmall(in), checkBuffersRAM(in)...) {
		if f.Subject == key {
			return nil // that line already restores the initial size
		}
	}
	k, _ := knobs.Lookup(key)
	d, ok := k.Default(env)
	if !ok {
		return nil
	}
	def, ok := knobs.Field(d, 1)
	if !ok || t[1] >= def {
		return nil
	}
	lo := t[0]
	if m, ok := knobs.Field(d, 0); ok && lo < m {
		lo = m
	}
	why := fmt.Sprintf("The initial receive buffer %d (the middle field) is below the kernel's default %d on Linux %s and below "+
		"any default a kernel has shipped: %s set it. Every connection starts with a receive window that small (ip-sysctl.rst: "+
		"the default gives 65535) and autotuning has to grow it round trip by round trip. The ceiling %s is fine.",
		t[1], def, h.Kernel.Release, provenance(h, key), humanBytes(uint64(t[2])))
	b := fmt.Sprintf("the kernel's default initial size for Linux %s; min and ceiling kept", h.Kernel.Release)
	if c := configFor(h, key); c != nil {
		b += fmt.Sprintf("; or remove %s from %s line %d", key, c.File, c.Line)
	}
	f := metaInitialSmall.New(key, why, sysctlEvidence(h, key)...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: key, Current: h.Sysctls[key],
		Value: fmt.Sprintf("%d %d %d", lo, def, t[2]), Basis: b}
	return []rule.Finding{f}
}

// tcpBufLow is the min and initial size of a tcp_rmem/tcp_wmem line
// nastune writes: the line replaces all three fields, so a min or initial
// size below the kernel's default (tcp_rmem[1] sizes the initial receive
// window since 4.20) is raised to it, never carried over. note says so
// for the basis ("" when nothing was raised). With the kernel's version
// unknown nothing is raised: the initial size was 87380 before 4.20.
func tcpBufLow(k *knobs.Knob, env knobs.Env, t [3]int64) (lo [2]int64, note string) {
	lo = [2]int64{t[0], t[1]}
	if k == nil || env.Kernel.IsZero() {
		return lo, ""
	}
	d, ok := k.Default(env)
	if !ok {
		return lo, ""
	}
	var raised []string
	for i, name := range []string{"min", "initial size"} {
		if n, ok := knobs.Field(d, i); ok && lo[i] < n {
			raised = append(raised, fmt.Sprintf("%s %d → %d", name, lo[i], n))
			lo[i] = n
		}
	}
	if len(raised) == 0 {
		return lo, ""
	}
	return lo, "; " + strings.Join(raised, ", ") + " (the kernel default)"
}

// provenance says who set a sysctl: the file line that sets it at boot, or
// a script at runtime when no file does.
func provenance(h *facts.Host, key string) string {
	if c := configFor(h, key); c != nil {
		if c.Value == h.Sysctls[key] {
			return fmt.Sprintf("%s:%d", c.File, c.Line)
		}
		return fmt.Sprintf("something at runtime (%s:%d sets %s)", c.File, c.Line, c.Value)
	}
	return "a script or service at runtime (no sysctl file sets it, so it is gone after a reboot unless that runs again)"
}

var metaBuffersRAM = rule.Meta{
	ID: "net-tcp-buffers-ram", Family: "netstack", Severity: rule.Warn, Since: "0.1.0",
	Title: "TCP buffer ceiling too large for this machine's memory",
	Doc: "Copied tuning guides set tcp_rmem/tcp_wmem ceilings of 16-64 MiB. On a box with little RAM " +
		"a few fast connections may then take a large share of memory, pushing out the page cache " +
		"that serves files. nastune caps per-socket ceilings at RAM/32 unless the BDP needs more.",
	Refs: []string{refIPSysctl + "#tcp-variables", refTCP7},
}

func checkBuffersRAM(in rule.Input) []rule.Finding {
	h := in.Host
	limit := calc.RAMShareCap(h.Memory.TotalBytes)
	if limit == 0 {
		return nil
	}
	need, basis := bufferNeed(in)
	var out []rule.Finding
	for _, key := range []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"} {
		t, ok := sysctlTriple(h, key)
		if !ok || uint64(t[2]) <= limit || uint64(t[2]) <= need {
			continue
		}
		want := max(need, limit/(64<<10)*(64<<10))
		k, _ := knobs.Lookup(key)
		lo, raised := tcpBufLow(k, knobEnv(h), t)
		f := metaBuffersRAM.New(key, fmt.Sprintf(
			"A single socket may grow to %s, more than RAM/32 (%s) on a machine with %s; the path needs only %s.",
			humanBytes(uint64(t[2])), humanBytes(limit), humanBytes(h.Memory.TotalBytes), humanBytes(need)),
			append(sysctlEvidence(h, key), memEvidence(h))...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: key, Current: h.Sysctls[key],
			Value: fmt.Sprintf("%d %d %d", lo[0], min(lo[1], int64(want)), want),
			Basis: "max(RAM/32, " + basis + ")" + raised}
		out = append(out, f)
	}
	return out
}

var metaTCPMem = rule.Meta{
	ID: "net-tcp-mem-set", Family: "netstack", Severity: rule.Warn, Since: "0.1.0",
	Title: "Configuration overrides net.ipv4.tcp_mem",
	Doc: "net.ipv4.tcp_mem is the whole machine's TCP memory budget, in pages, which the kernel sizes " +
		"from RAM at boot. Values copied from guides are often meant as bytes or come from a machine " +
		"with different memory, and either starve TCP or let it take memory the box does not have. " +
		"Leave it to the kernel.",
	Refs: []string{refIPSysctl + "#tcp-variables", refTCP7},
}

func checkTCPMem(in rule.Input) []rule.Finding {
	h := in.Host
	c := configFor(h, "net.ipv4.tcp_mem")
	if c == nil {
		return nil
	}
	f := metaTCPMem.New("net.ipv4.tcp_mem", fmt.Sprintf(
		"%s:%d replaces the kernel's boot-time budget (in 4 KiB pages, not bytes) for a machine with %s.",
		c.File, c.Line, ramText(h)), sysctlEvidence(h, "net.ipv4.tcp_mem")...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("remove net.ipv4.tcp_mem from %s line %d and reboot (or restore the boot value)", c.File, c.Line),
		Basis:  "the kernel computes tcp_mem from RAM at boot"}
	return []rule.Finding{f}
}

var metaAdvWinScale = rule.Meta{
	ID: "net-tcp-adv-win-scale", Family: "netstack", Severity: rule.Info, Since: "0.1.0",
	Title: "Configuration sets net.ipv4.tcp_adv_win_scale",
	Doc: "tcp_adv_win_scale decided how much of a receive buffer is advertised as window. The tip " +
		"\"tcp_rmem = wmem/0.75\" came from its old default 2; the default became 1 in Linux 3.4, and " +
		"Linux 6.6 made the sysctl obsolete (the window now follows each socket's measured " +
		"payload/truesize ratio). Setting it today is dead or harmful configuration.",
	Refs: []string{refIPSysctl + "#tcp-variables",
		"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=dfa2f0483360d4d6f2324405464c9f281156bd87"},
}

func checkAdvWinScale(in rule.Input) []rule.Finding {
	h := in.Host
	c := configFor(h, "net.ipv4.tcp_adv_win_scale")
	if c == nil {
		return nil
	}
	var why string
	switch {
	case h.Kernel.AtLeast(6, 6):
		why = fmt.Sprintf("Kernel %s ignores tcp_adv_win_scale (obsolete since 6.6): the line does nothing.", h.Kernel.Release)
	case c.Value == advWinScaleDefault(h.Kernel):
		why = fmt.Sprintf("The line sets kernel %s's default (%s) again; it only adds noise.", h.Kernel.Release, c.Value)
	default:
		why = fmt.Sprintf("The value %s departs from the kernel default; the 0.75 share in old tuning guides "+
			"assumed the pre-3.4 default of 2 and mixed up send and receive buffers.", c.Value)
	}
	f := metaAdvWinScale.New("net.ipv4.tcp_adv_win_scale", why, sysctlEvidence(h, "net.ipv4.tcp_adv_win_scale")...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("remove net.ipv4.tcp_adv_win_scale from %s line %d", c.File, c.Line),
		Basis:  "kernel " + h.Kernel.Release}
	return []rule.Finding{f}
}

// advWinScaleDefault is 2 before Linux 3.4 and 1 since.
func advWinScaleDefault(k facts.Kernel) string {
	if k.AtLeast(3, 4) {
		return "1"
	}
	return "2"
}

func softnetTotals(h *facts.Host) (processed, dropped, squeeze uint64) {
	for _, c := range h.Softnet {
		processed += c.Processed
		dropped += c.Dropped
		squeeze += c.TimeSqueeze
	}
	return
}

func softnetEvidence(h *facts.Host, col func(facts.SoftnetCPU) uint64, name string) rule.Evidence {
	parts := make([]string, 0, len(h.Softnet))
	for _, c := range h.Softnet {
		parts = append(parts, fmt.Sprintf("cpu%d %s=%d", c.CPU, name, col(c)))
	}
	return rule.Ev("/proc/net/softnet_stat", strings.Join(parts, ", "))
}

// perUptimeHour rates a since-boot counter per hour of uptime (a boot
// younger than an hour counts as one hour), with the uptime as evidence.
func perUptimeHour(h *facts.Host, n uint64) (hours, rate float64, ev rule.Evidence) {
	hours = h.UptimeSeconds / 3600
	return hours, float64(n) / max(hours, 1), rule.Ev("/proc/uptime", fmt.Sprintf("%.2f", h.UptimeSeconds))
}

// softnetRecheck is the advice when a softnet_stat counter cannot be
// rated (no uptime): read it again later, change the sysctl only if the
// column keeps growing.
func softnetRecheck(sysctl, column string) *rule.Recommendation {
	return &rule.Recommendation{Kind: rule.KindAdvice,
		Target: "read /proc/net/softnet_stat again after an hour of normal load; raise " + sysctl + " only if the " + column + " column keeps growing",
		Basis:  "since-boot count without uptime"}
}

var metaSoftnetDrops = rule.Meta{
	ID: "net-softnet-drops", Family: "netstack", Severity: rule.Warn, Since: "0.1.0",
	Title: "Packets dropped because the per-CPU backlog was full",
	Doc: "The second column of /proc/net/softnet_stat counts packets dropped because a CPU's input " +
		"backlog (net.core.netdev_max_backlog, used by non-NAPI drivers and RPS) was full. Only this " +
		"counter justifies raising netdev_max_backlog. It counts since boot: a few dozen drops over " +
		"weeks of uptime are one burst long ago, not a sizing problem, so nastune rates the count " +
		"per hour of uptime (/proc/uptime) and warns from 10 drops per hour on average.",
	Refs: []string{refNetSysctl + "#netdev-max-backlog", refScaling, "https://man7.org/linux/man-pages/man5/proc_uptime.5.html"},
}

// softnetDropsPerHour is the average backlog drop rate from which the
// backlog is worth raising.
const softnetDropsPerHour = 10

func checkSoftnetDrops(in rule.Input) []rule.Finding {
	h := in.Host
	_, dropped, _ := softnetTotals(h)
	cur, ok := sysctlInt(h, "net.core.netdev_max_backlog")
	if dropped == 0 || !ok {
		return nil
	}
	ev := []rule.Evidence{softnetEvidence(h, func(c facts.SoftnetCPU) uint64 { return c.Dropped }, "dropped"),
		rule.Ev(sysctlSource("net.core.netdev_max_backlog"), itoa(cur))}
	if h.UptimeSeconds <= 0 {
		// No rate without the uptime: say what is known, change nothing.
		f := metaSoftnetDrops.New("net.core.netdev_max_backlog", fmt.Sprintf(
			"%d packets were dropped since boot because a CPU's backlog of %d packets was full; the uptime is unknown, so whether that is a rate worth acting on is not.",
			dropped, cur), ev...)
		f.Severity = rule.Info
		f.Recommendation = softnetRecheck("net.core.netdev_max_backlog", "second")
		return []rule.Finding{f}
	}
	hours, rate, upEv := perUptimeHour(h, dropped)
	if rate < softnetDropsPerHour {
		return nil
	}
	ev = append(ev, upEv)
	f := metaSoftnetDrops.New("net.core.netdev_max_backlog", fmt.Sprintf(
		"%d packets were dropped in %.1f hours of uptime (%.0f per hour on average) because a CPU's backlog of %d packets was full.",
		dropped, hours, rate, cur), ev...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "net.core.netdev_max_backlog",
		Current: itoa(cur), Value: itoa(min(cur*2, 65536)),
		Basis: fmt.Sprintf("%.0f drops per hour ≥ %d; double the current backlog, then check that the drop counter stops growing", rate, softnetDropsPerHour)}
	return []rule.Finding{f}
}

var metaSoftnetSqueeze = rule.Meta{
	ID: "net-softnet-squeeze", Family: "netstack", Severity: rule.Info, Since: "0.1.0",
	Title: "Receive processing often runs out of budget",
	Doc: "The third column of /proc/net/softnet_stat (time_squeeze) counts how often the receive " +
		"softirq stopped with work left because net.core.netdev_budget (packets) or " +
		"netdev_budget_usecs ran out. When it grows, a larger budget lets one softirq run drain more; " +
		"raising netdev_max_backlog does not help. It counts since boot, so nastune rates it like the " +
		"drops: per hour of uptime (from 10 per hour) and against the packets processed (more than one " +
		"per 1000); a single squeeze after boot is noise.",
	Refs: []string{refNetSysctl + "#netdev-budget", refScaling},
}

// softnetSqueezePerHour is the average time_squeeze rate from which the
// budget is worth a look (a fresh boot's single squeeze is not).
const softnetSqueezePerHour = 10

func checkSoftnetSqueeze(in rule.Input) []rule.Finding {
	h := in.Host
	processed, _, squeeze := softnetTotals(h)
	budget, ok := sysctlInt(h, "net.core.netdev_budget")
	// Under one squeeze per thousand packets is normal background.
	if !ok || squeeze == 0 || squeeze*1000 < processed {
		return nil
	}
	ev := []rule.Evidence{softnetEvidence(h, func(c facts.SoftnetCPU) uint64 { return c.TimeSqueeze }, "time_squeeze"),
		rule.Ev(sysctlSource("net.core.netdev_budget"), itoa(budget))}
	if h.UptimeSeconds <= 0 {
		// No rate without the uptime: a handful of squeezes is noise;
		// many are worth a second look, but no change.
		if squeeze < 100 {
			return nil
		}
		f := metaSoftnetSqueeze.New("net.core.netdev_budget", fmt.Sprintf(
			"Receive processing ran out of budget %d times for %d packets since boot; the uptime is unknown, so the rate is not.", squeeze, processed), ev...)
		f.Recommendation = softnetRecheck("net.core.netdev_budget", "third")
		return []rule.Finding{f}
	}
	hours, rate, upEv := perUptimeHour(h, squeeze)
	if rate < softnetSqueezePerHour {
		return nil
	}
	ev = append(ev, upEv)
	f := metaSoftnetSqueeze.New("net.core.netdev_budget", fmt.Sprintf(
		"Receive processing ran out of budget %d times for %d packets in %.1f hours of uptime (%.0f per hour on average).", squeeze, processed, hours, rate), ev...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: "net.core.netdev_budget",
		Current: itoa(budget), Value: itoa(min(budget*2, 2400)),
		Basis: fmt.Sprintf("%.0f squeezes per hour ≥ %d and more than one per 1000 packets; double the budget and watch time_squeeze; on a single slow core measure latency too", rate, softnetSqueezePerHour)}
	return []rule.Finding{f}
}

var metaBacklogNoEvidence = rule.Meta{
	ID: "net-backlog-no-evidence", Family: "netstack", Severity: rule.Info, Since: "0.1.0",
	Title: "netdev_max_backlog raised without any backlog drops",
	Doc: "Guides raise net.core.netdev_max_backlog to 5000-300000 as a matter of course. It only " +
		"sizes the per-CPU backlog of non-NAPI drivers and RPS; when /proc/net/softnet_stat shows no " +
		"drops the raise does nothing measurable and hides where a real problem would show.",
	Refs: []string{refNetSysctl + "#netdev-max-backlog", refScaling},
}

func checkBacklogNoEvidence(in rule.Input) []rule.Finding {
	h := in.Host
	c := configFor(h, "net.core.netdev_max_backlog")
	cur, ok := sysctlInt(h, "net.core.netdev_max_backlog")
	_, dropped, _ := softnetTotals(h)
	if c == nil || !ok || cur <= 1000 || len(h.Softnet) == 0 || dropped > 0 {
		return nil
	}
	f := metaBacklogNoEvidence.New("net.core.netdev_max_backlog", fmt.Sprintf(
		"%s:%d raises the backlog to %d, yet no CPU has dropped a packet for a full backlog since boot.",
		c.File, c.Line, cur),
		append(sysctlEvidence(h, "net.core.netdev_max_backlog"),
			softnetEvidence(h, func(c facts.SoftnetCPU) uint64 { return c.Dropped }, "dropped"))...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("remove net.core.netdev_max_backlog from %s line %d unless drops were measured", c.File, c.Line),
		Basis:  "softnet_stat drop column is zero on every CPU"}
	return []rule.Finding{f}
}

var metaUDPBufErrors = rule.Meta{
	ID: "net-udp-buffer-errors", Family: "netstack", Severity: rule.Warn, Since: "0.2.0",
	Title: "UDP datagrams dropped for want of socket buffer",
	Doc: "RcvbufErrors and SndbufErrors in the Udp: line of /proc/net/snmp count datagrams dropped " +
		"because a socket's buffer was full: an OpenVPN server, NFS over UDP or a DNS/DHCP daemon " +
		"that cannot keep up with bursts. UDP has no autotuning: a socket gets net.core.rmem_default " +
		"unless the program asks for more with SO_RCVBUF (OpenVPN's rcvbuf/sndbuf), and that request " +
		"is capped at net.core.rmem_max/wmem_max. Raise the cap, then let the program ask.",
	Refs: []string{refNetSysctl + "#rmem-max", "https://man7.org/linux/man-pages/man7/udp.7.html",
		"https://man7.org/linux/man-pages/man7/socket.7.html"},
}

func checkUDPBufErrors(in rule.Input) []rule.Finding {
	h := in.Host
	if h.UDP == nil {
		return nil
	}
	var out []rule.Finding
	limit := calc.RAMShareCap(h.Memory.TotalBytes)
	want := uint64(4 << 20)
	if limit > 0 {
		want = min(want, limit/(64<<10)*(64<<10))
	}
	env := knobEnv(h)
	for _, c := range []struct {
		errs uint64
		name string
		key  string
	}{{h.UDP.RcvbufErrors, "RcvbufErrors", "net.core.rmem_max"}, {h.UDP.SndbufErrors, "SndbufErrors", "net.core.wmem_max"}} {
		cur, ok := sysctlInt(h, c.key)
		// Never below the running kernel's own default (4 MiB since
		// 6.18, docs/knobs.md), whatever the RAM share says.
		want, basis := want, "4 MiB, at most RAM/32; then set the program's own buffer option (OpenVPN rcvbuf/sndbuf)"
		if k, kok := knobs.Lookup(c.key); kok {
			if d, dok := k.Default(env); dok {
				if n, nok := knobs.Field(d, 0); nok && uint64(n) > want {
					want = uint64(n)
					basis = fmt.Sprintf("the kernel's default for Linux %s (RAM/32 would be less, but nastune never advises below the default); "+
						"then set the program's own buffer option (OpenVPN rcvbuf/sndbuf)", h.Kernel.Release)
				}
			}
		}
		if c.errs == 0 || !ok || uint64(cur) >= want {
			continue
		}
		f := metaUDPBufErrors.New(c.key, fmt.Sprintf(
			"%d UDP datagrams were dropped (%s) since boot; programs that ask for bigger buffers are capped at %s.",
			c.errs, c.name, humanBytes(uint64(cur))),
			rule.Ev("/proc/net/snmp", fmt.Sprintf("Udp: %s %d", c.name, c.errs)), rule.Ev(sysctlSource(c.key), itoa(cur)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: c.key, Current: itoa(cur),
			Value: itoa(int64(want)), Basis: basis}
		out = append(out, f)
	}
	return out
}
