package rules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	ethparse "github.com/nastune/nastune/internal/parse/ethtool"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// NIC rules that need ethtool data (live ioctl or captured output):
// KNOWLEDGE §2.
var nicDeepRules = []rule.Rule{
	{Meta: metaLinkBelowSupported, Check: checkLinkBelowSupported},
	{Meta: metaOffloadOff, Check: checkOffloadOff},
	{Meta: metaMv643xxTSO, Check: checkMv643xxTSO},
	{Meta: metaRingDrops, Check: checkRingDrops},
	{Meta: metaCoalesceSingleCore, Check: checkCoalesceSingleCore},
}

const refEthtool = "https://man7.org/linux/man-pages/man8/ethtool.8.html"

func ethtoolSource(i facts.Interface, flag string) string {
	if i.Ethtool != nil && i.Ethtool.Source != "ioctl" && i.Ethtool.Source != "" {
		return "ethtool " + strings.TrimSpace(flag+" "+i.Name) + " (captured)"
	}
	return "ethtool " + strings.TrimSpace(flag+" "+i.Name)
}

// maxModeSpeed is the fastest link mode in a list, in Mbit/s.
func maxModeSpeed(modes []string) int {
	best := 0
	for _, m := range modes {
		best = max(best, ethparse.ModeSpeed(m))
	}
	return best
}

var metaLinkBelowSupported = rule.Meta{
	ID: "nic-link-below-supported", Family: "nic", Severity: rule.Warn, Since: "0.2.0",
	Title: "Link negotiated below what the NIC supports",
	Doc: "ethtool lists the link modes the NIC supports and those the link partner (the switch " +
		"port) advertises. When the negotiated speed is below the fastest mode both ends share, " +
		"autonegotiation fell back: a damaged cable or pair, a forced speed on one end, or an " +
		"energy-saving setting. A 2.5 or 10 GbE NAS port running at 1 Gbit/s gives up most of its " +
		"network speed without any error counter showing it. Many drivers do not report the " +
		"partner's modes (or only to root); then a switch port that simply cannot go faster looks " +
		"the same, and nastune only states the negotiated speed (info).",
	Refs: []string{refEthtool, refSysfsNet},
}

func checkLinkBelowSupported(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, i := range in.Host.Interfaces {
		if !wiredUp(i) || i.SpeedMbps == nil || i.Ethtool == nil || i.Ethtool.Link == nil || *i.SpeedMbps < 1000 {
			continue // below gigabit: nic-link-slow reports it with the same evidence
		}
		l := i.Ethtool.Link
		ours, theirs := maxModeSpeed(l.Supported), maxModeSpeed(l.Partner)
		if ours <= *i.SpeedMbps {
			continue
		}
		if theirs == 0 {
			// Without the partner's modes the switch port may simply be
			// slower: state the speed, claim nothing.
			f := metaLinkBelowSupported.New(i.Name, fmt.Sprintf(
				"%s negotiated %s; the NIC supports up to %s. The link partner's advertised modes are not reported, so whether the switch port could go faster is unknown.",
				i.Name, units.LinkMbit(*i.SpeedMbps), units.LinkMbit(ours)), linkEvidence(i)...)
			f.Severity = rule.Info
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("if the switch port supports more than %s, check the cable and the port's speed setting (`ethtool %s` as root may show the partner's modes)", units.LinkMbit(*i.SpeedMbps), i.Name),
				Basis:  "negotiated speed only; partner modes not collected"}
			out = append(out, f)
			continue
		}
		common := min(ours, theirs)
		if common <= *i.SpeedMbps {
			continue
		}
		f := metaLinkBelowSupported.New(i.Name, fmt.Sprintf(
			"%s runs at %s although the NIC supports %s%s.", i.Name, units.LinkMbit(*i.SpeedMbps), units.LinkMbit(ours), partnerText(theirs)),
			linkEvidence(i)...)
		// Only here, with the partner's modes read, is the claim about both ends.
		f.Title = "Link negotiated below what both ends support"
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("check the cable and the switch port of %s for a forced speed; `ethtool -s %s autoneg on` renegotiates", i.Name, i.Name),
			Basis:  fmt.Sprintf("fastest mode both ends list: %s", units.LinkMbit(common))}
		out = append(out, f)
	}
	return out
}

func partnerText(theirs int) string {
	if theirs == 0 {
		return " (the partner's modes are not reported)"
	}
	return fmt.Sprintf(" and the link partner advertises up to %s", units.LinkMbit(theirs))
}

func linkEvidence(i facts.Interface) []rule.Evidence {
	ev := []rule.Evidence{rule.Ev(ifSource(i, "speed"), itoa(int64(*i.SpeedMbps)))}
	if l := i.Ethtool.Link; l != nil {
		if len(l.Supported) > 0 {
			ev = append(ev, rule.Ev(ethtoolSource(i, ""), "supported: "+strings.Join(l.Supported, " ")))
		}
		if len(l.Partner) > 0 {
			ev = append(ev, rule.Ev(ethtoolSource(i, ""), "link partner advertised: "+strings.Join(l.Partner, " ")))
		}
	}
	return ev
}

// keyOffloads are the offloads kept at driver defaults on 4.x+ kernels.
var keyOffloads = []struct{ name, short string }{
	{"rx-checksumming", "rx"}, {"tx-checksumming", "tx"}, {"scatter-gather", "sg"},
	{"tcp-segmentation-offload", "tso"}, {"generic-segmentation-offload", "gso"}, {"generic-receive-offload", "gro"},
}

var metaOffloadOff = rule.Meta{
	ID: "nic-offload-off", Family: "nic", Severity: rule.Warn, Since: "0.2.0",
	Title: "An offload the driver supports is switched off",
	Doc: "Checksum offload, scatter-gather, TSO, GSO and GRO move per-packet work from the CPU to " +
		"the NIC or batch it; on current kernels (4.x and later) drivers enable what works and the " +
		"advice is to keep those defaults. An offload that is off but not [fixed] was switched off " +
		"by someone, usually following an old tip, and costs CPU on every packet: on a slow ARM NAS " +
		"that is throughput. Known-bad combinations are handled by their own rules. A feature shown " +
		"as `off [requested on]` is already switched on by the user and held off by the kernel (a " +
		"feature it depends on is off, or the driver refuses it in this mode): switching it on " +
		"again does nothing, so it is never advised; [fixed] features cannot be changed at all.",
	Refs: []string{refEthtool, "https://docs.kernel.org/networking/segmentation-offloads.html",
		"https://docs.kernel.org/networking/checksum-offloads.html"},
}

// mv643xxTSOBroken: software TSO of mv643xx_eth (3.16) until it was
// disabled by default (late 2014).
func mv643xxTSOBroken(h *facts.Host, i facts.Interface) bool {
	return i.Ethtool != nil && i.Ethtool.Driver == "mv643xx_eth" && h.Kernel.Known() &&
		h.Kernel.AtLeast(3, 16) && !h.Kernel.AtLeast(3, 19)
}

// offByDefault are offloads a driver ships switched off on purpose; off
// is then the driver default and not a finding.
var offByDefault = map[string]map[string]bool{
	// Software TSO was made off by default after it corrupted frames.
	"mv643xx_eth": {"tcp-segmentation-offload": true},
}

func checkOffloadOff(in rule.Input) []rule.Finding {
	h := in.Host
	if !h.Kernel.AtLeast(4, 0) {
		return nil // older kernels: driver defaults are not a safe baseline
	}
	var out []rule.Finding
	for _, i := range h.Interfaces {
		if !i.Physical || i.Ethtool == nil || i.Ethtool.Features == nil {
			continue
		}
		// [fixed] cannot be changed; "off [requested on]" is already
		// wanted and held off by the kernel: advising "on" changes nothing.
		fixed := map[string]bool{}
		for _, f := range i.Ethtool.Fixed {
			fixed[f] = true
		}
		for _, f := range i.Ethtool.RequestedOn {
			fixed[f] = true
		}
		var off, shorts []string
		for _, k := range keyOffloads {
			on, known := i.Ethtool.Features[k.name]
			if known && !on && !fixed[k.name] && !offByDefault[i.Ethtool.Driver][k.name] {
				off = append(off, k.name)
				shorts = append(shorts, k.short+" on")
			}
		}
		if len(off) == 0 {
			continue
		}
		f := metaOffloadOff.New(i.Name, fmt.Sprintf(
			"%s has %s switched off although the driver (%s) can do it: the CPU does that work per packet instead.",
			i.Name, strings.Join(off, ", "), i.Ethtool.Driver),
			rule.Ev(ethtoolSource(i, "-k"), strings.Join(off, ": off, ")+": off"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("ethtool -K %s %s (and remove whatever switches them off at boot)", i.Name, strings.Join(shorts, " ")),
			Basis:  "driver defaults on kernel " + h.Kernel.Release}
		out = append(out, f)
	}
	return out
}

var metaMv643xxTSO = rule.Meta{
	ID: "nic-mv643xx-tso", Family: "nic", Severity: rule.Warn, Since: "0.2.0",
	Title: "mv643xx_eth software TSO on a kernel where it corrupts data",
	Doc: "Linux 3.16 gave the Marvell mv643xx_eth driver (Kirkwood, Orion, Dove NAS boxes) software " +
		"TSO. It produced corrupted frames and was made off by default in a fix of November 2014 " +
		"(\"net: mv643xx_eth: Make TSO disabled by default\"). On 3.16-3.18 kernels turn TSO off and " +
		"keep GSO on: the stack still builds large segments and the driver splits them safely.",
	Refs: []string{"https://patchwork.ozlabs.org/project/netdev/patch/1414855820-15094-2-git-send-email-ezequiel.garcia@free-electrons.com/", refEthtool},
}

func checkMv643xxTSO(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, i := range in.Host.Interfaces {
		if !mv643xxTSOBroken(in.Host, i) || !i.Ethtool.Features["tcp-segmentation-offload"] || slices.Contains(i.Ethtool.Fixed, "tcp-segmentation-offload") {
			continue
		}
		f := metaMv643xxTSO.New(i.Name, fmt.Sprintf(
			"Kernel %s has the mv643xx_eth software TSO that corrupts frames, and it is on for %s.", in.Host.Kernel.Release, i.Name),
			rule.Ev(ethtoolSource(i, "-i"), "driver: mv643xx_eth"), rule.Ev(ethtoolSource(i, "-k"), "tcp-segmentation-offload: on"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("ethtool -K %s tso off gso on", i.Name), Basis: "kernel " + in.Host.Kernel.Release + " with mv643xx_eth"}
		if g := "generic-segmentation-offload"; i.Ethtool.Features[g] || slices.Contains(i.Ethtool.Fixed, g) || slices.Contains(i.Ethtool.RequestedOn, g) {
			f.Recommendation.Target = fmt.Sprintf("ethtool -K %s tso off", i.Name) // gso already on, or not ours to change
		}
		out = append(out, f)
	}
	return out
}

var metaRingDrops = rule.Meta{
	ID: "nic-ring-drops", Family: "nic", Severity: rule.Warn, Since: "0.2.0",
	Title: "Receive drops with a ring below its maximum",
	Doc: "When a NIC's receive ring is full the hardware drops frames and counts them as missed or " +
		"FIFO/overrun errors. A larger ring (ethtool -G) absorbs bursts at the cost of about 2 KiB of " +
		"memory per descriptor. Raise it only when those counters grow: without drops a bigger ring " +
		"only adds memory use and latency.",
	Refs: []string{refEthtool, refSysfsNet, refScaling},
}

// queueStat matches a per-queue counter name and captures the queue
// number: rx_queue_0_drops (igb, virtio_net), rx-0.drops, rx0_dropped
// (mlx5), [0]: rx_discards (bnxt), queue_0_rx_drops (ena); rxq0:
// rx_drops_no_frags (be2net) is queuePrefixStat.
var queueStat = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(.*?queue_)(\d+)(_.*)|(rx|tx)-(\d+)(\..*)|(rx|tx)(\d+)(_.*)|\[(\d+)\]:? ?(.*))$`)
})

// queueBase is a per-queue counter's name with the queue number taken
// out ("rx_queue_N_drops"), or "" for a device total.
// queuePrefixStat matches counters named after a queue prefix: "rxq0:
// rx_drops_no_frags" (be2net), "rxq0_drops", "txq1: tx_compl".
var queuePrefixStat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(rx|tx)q(\d+)(?::\s*|_)(.+)$`) })

func queueBase(name string) string {
	if m := queuePrefixStat().FindStringSubmatch(name); m != nil {
		return m[1] + "qN: " + m[3]
	}
	m := queueStat().FindStringSubmatch(name)
	switch {
	case m == nil:
		return ""
	case m[2] != "":
		return m[1] + "N" + m[3]
	case m[5] != "":
		return m[4] + "-N" + m[6]
	case m[8] != "":
		return m[7] + "N" + m[9]
	default:
		return "[N] " + m[11]
	}
}

// dropCounter: receive-side counters that count frames lost for want of
// buffers (ring full, no descriptor, FIFO overrun). Totals use the narrow
// words; per-queue counters also count "drop", which on a queue is the
// ring-full drop (igb rqdpc, virtio).
func dropCounter(name string, perQueue bool) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "xdp") || strings.HasPrefix(n, "tx") || strings.Contains(n, "tx_") || strings.Contains(n, "tx-") {
		return false
	}
	for _, w := range []string{"miss", "no_buf", "nobuf", "fifo", "over"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return perQueue && strings.Contains(n, "drop")
}

// dropEvidence sums receive drops once: sysfs totals, ethtool -S totals
// that sysfs does not already show, and per-queue counters only when no
// total counted anything (drivers such as igb add the queues' drops into
// rx_fifo_errors, so counting both would double them).
func dropEvidence(i facts.Interface) ([]rule.Evidence, uint64) {
	var ev []rule.Evidence
	var total uint64
	seen := map[string]bool{}
	for _, k := range []string{"rx_missed_errors", "rx_fifo_errors", "rx_over_errors"} {
		if v := i.Stats[k]; v > 0 {
			ev = append(ev, rule.Ev(ifSource(i, "statistics/"+k), fmt.Sprint(v)))
			total += v
			seen[k] = true
		}
	}
	if i.Ethtool == nil {
		return ev, total
	}
	var totals []string
	queues := map[string][]string{}
	for k, v := range i.Ethtool.Stats {
		if v == 0 {
			continue
		}
		if base := queueBase(k); base != "" {
			if dropCounter(base, true) {
				queues[base] = append(queues[base], k)
			}
		} else if dropCounter(k, false) && !seen[k] {
			totals = append(totals, k)
		}
	}
	sort.Strings(totals)
	for _, k := range totals {
		ev = append(ev, rule.Ev(ethtoolSource(i, "-S"), fmt.Sprintf("%s: %d", k, i.Ethtool.Stats[k])))
		total += i.Ethtool.Stats[k]
	}
	if total > 0 {
		return ev, total
	}
	var bases []string
	for b := range queues {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	for _, b := range bases {
		names := queues[b]
		sort.Strings(names)
		for _, k := range names {
			ev = append(ev, rule.Ev(ethtoolSource(i, "-S"), fmt.Sprintf("%s: %d", k, i.Ethtool.Stats[k])))
			total += i.Ethtool.Stats[k]
		}
	}
	return ev, total
}

func checkRingDrops(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, i := range in.Host.Interfaces {
		if i.Ethtool == nil || i.Ethtool.Ring == nil || i.Ethtool.Ring.RX >= i.Ethtool.Ring.RXMax {
			continue
		}
		ev, drops := dropEvidence(i)
		if drops == 0 {
			continue
		}
		r := i.Ethtool.Ring
		cost := uint64(r.RXMax-r.RX) * 2048
		f := metaRingDrops.New(i.Name, fmt.Sprintf(
			"%s dropped %d received frames for want of buffers while its RX ring holds %d of %d descriptors; "+
				"the full ring costs about %s more memory.", i.Name, drops, r.RX, r.RXMax, humanBytes(cost)),
			append(ev, rule.Ev(ethtoolSource(i, "-g"), fmt.Sprintf("RX %d (max %d)", r.RX, r.RXMax)))...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("ethtool -G %s rx %d, then check that the drop counters stop growing", i.Name, r.RXMax),
			Basis:  fmt.Sprintf("ring maximum %d; ≈ 2 KiB per descriptor", r.RXMax)}
		out = append(out, f)
	}
	return out
}

var metaCoalesceSingleCore = rule.Meta{
	ID: "nic-coalesce-single-core", Family: "nic", Severity: rule.Info, Since: "0.2.0",
	Title: "One interrupt per packet on a single-core CPU",
	Doc: "Interrupt coalescing (ethtool -c: rx-usecs, rx-frames, adaptive-rx) lets the NIC raise one " +
		"interrupt for several frames. On a single-core ARM NAS every interrupt takes time from the " +
		"file server itself; with coalescing off a gigabit stream means tens of thousands of " +
		"interrupts per second. Trading a little latency for fewer interrupts is worth measuring.",
	Refs: []string{refEthtool, refScaling},
}

func checkCoalesceSingleCore(in rule.Input) []rule.Finding {
	h := in.Host
	if h.CPU.Count != 1 {
		return nil
	}
	var out []rule.Finding
	for _, i := range h.Interfaces {
		if !wiredUp(i) || i.Ethtool == nil || i.Ethtool.Coalesce == nil {
			continue
		}
		c := i.Ethtool.Coalesce
		usecs, hasUsecs := c["rx-usecs"]
		if !hasUsecs || usecs > 0 || c["adaptive-rx"] == 1 || c["rx-frames"] > 1 {
			continue
		}
		f := metaCoalesceSingleCore.New(i.Name, fmt.Sprintf(
			"%s interrupts the only CPU core for every received frame (rx-usecs 0, no adaptive coalescing).", i.Name),
			rule.Ev(ethtoolSource(i, "-c"), "rx-usecs: 0"), rule.Ev("/proc/cpuinfo", "1 processor"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("measure with ethtool -C %s rx-usecs 100 (nastune bench net before and after)", i.Name),
			Basis:  "single core; 100 µs adds at most 0.1 ms latency"}
		out = append(out, f)
	}
	return out
}
