package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// NIC basics read from /sys/class/net: KNOWLEDGE §2.
var nicRules = []rule.Rule{
	{Meta: metaTxQueueLen, Check: checkTxQueueLen},
	{Meta: metaHalfDuplex, Check: checkHalfDuplex},
	{Meta: metaLinkSlow, Check: checkLinkSlow},
	{Meta: metaJumboSmallRAM, Check: checkJumboSmallRAM},
}

func ifSource(i facts.Interface, attr string) string { return "/sys/class/net/" + i.Name + "/" + attr }

// wiredUp reports a physical, wired interface with carrier.
func wiredUp(i facts.Interface) bool {
	return i.Physical && !i.Wireless && i.Type == 1 && i.Carrier != nil && *i.Carrier
}

var metaTxQueueLen = rule.Meta{
	ID: "nic-txqueuelen-high", Family: "nic", Severity: rule.Warn, Since: "0.1.0",
	Title: "Transmit queue longer than 1000 packets",
	Doc: "Guides suggest `txqueuelen 5000` or more. A longer device queue does not add throughput; " +
		"it adds latency under load (bufferbloat), which hurts interactive SMB and NFS traffic " +
		"sharing the link with a bulk copy. Keep the default 1000 unless a measurement shows drops. " +
		"The length only matters where packets wait in it: pfifo_fast (the default qdisc unless " +
		"net.core.default_qdisc says otherwise, also under mq) uses it as its limit; noqueue (loopback, " +
		"bridges, bonds, VLANs) has no queue; fq, fq_codel, cake, sfq, codel and pie keep their own " +
		"limits; pfifo and bfifo copied it once when they were created. nastune names the length only " +
		"where the root qdisc (or mq's per-queue qdiscs) is pfifo_fast, and a root pfifo/bfifo whose own " +
		"limit exceeds 1000 packets (replacing the qdisc is the fix there).",
	Refs: []string{refIPLink, "https://www.bufferbloat.net/projects/bloat/wiki/Introduction/", refSysfsNet,
		"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/net/sched/sch_generic.c",
		"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/net/sched/sch_fq_codel.c"},
}

// ownLimitQdiscs ignore tx_queue_len: they size their queue themselves
// (sch_fq_codel.c fq_codel_init: sch->limit = 10*1024; sch_fq.c 10000;
// cake by memory; sfq 127; codel and pie 1000), have no queue (noqueue,
// noop), or hand packets to child qdiscs (htb, hfsc, prio, tbf, netem…
// whose fifo children copied the length once, at creation).
func txqueuelenQueue(i facts.Interface, defQdisc string) (qdisc string, governs bool) {
	fifoFast := func(kinds ...string) bool {
		for _, k := range kinds {
			if k == "pfifo_fast" {
				return true
			}
		}
		return false
	}
	if q := i.Qdisc; q != nil {
		switch q.Kind {
		case "pfifo_fast":
			return "pfifo_fast", true
		case "mq", "mqprio", "multiq":
			// mq_init gives every transmit queue the default qdisc.
			if len(q.Leaves) == 0 {
				return q.Kind + " of " + defQdisc, defQdisc == "pfifo_fast"
			}
			return q.Kind + " of " + strings.Join(q.Leaves, ", "), fifoFast(q.Leaves...)
		}
		return q.Kind, false
	}
	// Not read: loopback has noqueue (sch_generic.c attach_one_default_qdisc,
	// IFF_NO_QUEUE); other devices get the default qdisc.
	if i.Type == 772 || i.Kind == "loopback" {
		return "noqueue", false
	}
	return defQdisc, defQdisc == "" || defQdisc == "pfifo_fast"
}

func checkTxQueueLen(in rule.Input) []rule.Finding {
	var out []rule.Finding
	def := in.Host.Sysctls["net.core.default_qdisc"]
	for _, i := range in.Host.Interfaces {
		if f, ok := fifoLimitFinding(i); ok {
			out = append(out, f)
			continue
		}
		if i.TxQueue == nil || *i.TxQueue <= 1000 {
			continue
		}
		qd, governs := txqueuelenQueue(i, def)
		if !governs {
			continue
		}
		ev := []rule.Evidence{rule.Ev(ifSource(i, "tx_queue_len"), itoa(int64(*i.TxQueue)))}
		where := ""
		switch {
		case i.Qdisc != nil:
			ev = append(ev, rule.Ev(i.Qdisc.Source, i.Name+" root "+i.Qdisc.Kind+leafList(i.Qdisc.Leaves)))
			where = " in its " + qd + " qdisc"
		case def != "":
			ev = append(ev, rule.Ev(sysctlSource("net.core.default_qdisc"), def))
			where = " in the default " + def + " qdisc"
		}
		f := metaTxQueueLen.New(i.Name, fmt.Sprintf(
			"%s queues up to %d packets%s: at %s that is %s of delay in front of every packet when the link is busy.",
			i.Name, *i.TxQueue, where, linkName(i), queueDelay(i)), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindSysfs, Target: ifSource(i, "tx_queue_len"),
			Current: itoa(int64(*i.TxQueue)), Value: "1000", Basis: "kernel default for Ethernet"}
		out = append(out, f)
	}
	return out
}

// fifoLimitFinding: a root pfifo or bfifo holds its own limit, copied from
// tx_queue_len when it was created (sch_fifo.c fifo_init); a long one is
// the same standing queue, and only replacing the qdisc shortens it.
func fifoLimitFinding(i facts.Interface) (rule.Finding, bool) {
	q := i.Qdisc
	if q == nil || q.Limit == 0 {
		return rule.Finding{}, false
	}
	mtu := 1500
	if i.MTU != nil {
		mtu = *i.MTU
	}
	pkts := q.Limit
	unit := "packets"
	if q.Kind == "bfifo" {
		pkts = q.Limit / uint64(mtu)
		unit = "bytes"
	}
	if pkts <= 1000 {
		return rule.Finding{}, false
	}
	f := metaTxQueueLen.New(i.Name, fmt.Sprintf(
		"%s's root %s qdisc queues up to %d %s (about %d full-size packets): at %s that is %s of delay when the link is busy; tx_queue_len does not change an existing %s.",
		i.Name, q.Kind, q.Limit, unit, pkts, linkName(i), queueDelayPackets(i, int(pkts)), q.Kind),
		rule.Ev(q.Source, fmt.Sprintf("%s root %s limit %d", i.Name, q.Kind, q.Limit)))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("replace the qdisc: tc qdisc replace dev %s root fq_codel (or pfifo limit 1000), and remove what sets the long %s at boot", i.Name, q.Kind),
		Basis:  "a fifo's limit is fixed at creation (sch_fifo.c)"}
	return f, true
}

func queueDelayPackets(i facts.Interface, pkts int) string {
	if i.SpeedMbps == nil {
		return "an unbounded amount"
	}
	mtu := 1500
	if i.MTU != nil {
		mtu = *i.MTU
	}
	return fmt.Sprintf("%.0f ms", float64(pkts)*float64(mtu)*8/(float64(*i.SpeedMbps)*1e3))
}

func leafList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return ", per queue " + strings.Join(l, ", ")
}

func linkName(i facts.Interface) string {
	if i.SpeedMbps == nil {
		return "an unknown link speed"
	}
	return units.LinkMbit(*i.SpeedMbps)
}

// queueDelay is the time a full queue of MTU-sized packets takes to send.
func queueDelay(i facts.Interface) string {
	if i.SpeedMbps == nil || i.TxQueue == nil {
		return "an unbounded amount"
	}
	mtu := 1500
	if i.MTU != nil {
		mtu = *i.MTU
	}
	ms := float64(*i.TxQueue) * float64(mtu) * 8 / (float64(*i.SpeedMbps) * 1e3)
	return fmt.Sprintf("%.0f ms", ms)
}

var metaHalfDuplex = rule.Meta{
	ID: "nic-half-duplex", Family: "nic", Severity: rule.Crit, Since: "0.1.0",
	Title: "Wired link negotiated half duplex",
	Doc: "Half duplex on a switched Ethernet port means autonegotiation failed on one end (often a " +
		"port forced to a fixed speed while the other autonegotiates). The link then collides " +
		"with itself under load and throughput collapses to a fraction of its speed.",
	Refs: []string{refSysfsNet, "https://man7.org/linux/man-pages/man8/ethtool.8.html"},
}

func checkHalfDuplex(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, i := range in.Host.Interfaces {
		if !wiredUp(i) || i.Duplex != "half" {
			continue
		}
		ev := []rule.Evidence{rule.Ev(ifSource(i, "duplex"), "half")}
		if i.SpeedMbps != nil {
			ev = append(ev, rule.Ev(ifSource(i, "speed"), itoa(int64(*i.SpeedMbps))))
		}
		if c := i.Stats["collisions"]; c > 0 {
			// The counter comes from /proc/net/dev (colls column).
			ev = append(ev, rule.Ev("/proc/net/dev", fmt.Sprintf("%s colls %d", i.Name, c)))
		}
		f := metaHalfDuplex.New(i.Name, i.Name+" runs half duplex: sending and receiving take turns and collide, "+
			"so a file copy gets a fraction of the link.", ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "set both " + i.Name + " and its switch port to autonegotiate (ethtool -s " + i.Name + " autoneg on), then check the cable",
			Basis:  "duplex read from sysfs"}
		out = append(out, f)
	}
	return out
}

var metaLinkSlow = rule.Meta{
	ID: "nic-link-slow", Family: "nic", Severity: rule.Warn, Since: "0.1.0",
	Title: "Wired link below gigabit",
	Doc: "A NAS port at 100 Mbit/s caps every transfer near 11 MB/s whatever the disks can do. " +
		"Gigabit needs all four pairs of a Cat5e or better cable; a damaged pair or an old switch " +
		"port makes the link fall back to 100 Mbit/s silently.",
	Refs: []string{refSysfsNet, "https://man7.org/linux/man-pages/man8/ethtool.8.html"},
}

func checkLinkSlow(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, i := range in.Host.Interfaces {
		if !wiredUp(i) || i.SpeedMbps == nil || *i.SpeedMbps >= 1000 || i.Duplex == "half" {
			continue
		}
		why := fmt.Sprintf("%s negotiated %s: transfers over it top out near %s.",
			i.Name, units.LinkMbit(*i.SpeedMbps), units.MBs(float64(*i.SpeedMbps)*0.94/8))
		ev := []rule.Evidence{rule.Ev(ifSource(i, "speed"), itoa(int64(*i.SpeedMbps)))}
		if i.Ethtool != nil && i.Ethtool.Link != nil {
			ours, theirs := maxModeSpeed(i.Ethtool.Link.Supported), maxModeSpeed(i.Ethtool.Link.Partner)
			if ours > 0 && ours <= *i.SpeedMbps {
				// The NIC's own maximum: no cable or switch to blame.
				f := metaLinkSlow.New(i.Name, why+fmt.Sprintf(" That is the most this NIC supports (%s).", units.LinkMbit(ours)), linkEvidence(i)...)
				f.Severity = rule.Info
				f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
					Target: "only a faster NIC (or USB 3 gigabit adapter) raises this limit",
					Basis:  "fastest supported link mode"}
				out = append(out, f)
				continue
			}
			switch {
			case theirs > 0 && theirs <= *i.SpeedMbps && ours > theirs:
				why += fmt.Sprintf(" The NIC can do %s; the link partner only offers %d: the switch port (or a cable with two pairs) is the limit.", units.LinkMbit(ours), theirs)
			case ours > *i.SpeedMbps:
				why += fmt.Sprintf(" The NIC can do %s.", units.LinkMbit(ours))
			}
			ev = linkEvidence(i)
		}
		f := metaLinkSlow.New(i.Name, why, ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "check the cable (Cat5e or better, all 4 pairs) and the switch port of " + i.Name + "; `ethtool " + i.Name + "` shows the modes both ends advertise",
			Basis:  "negotiated speed from sysfs"}
		out = append(out, f)
	}
	return out
}

var metaJumboSmallRAM = rule.Meta{
	ID: "nic-jumbo-small-ram", Family: "nic", Severity: rule.Info, Since: "0.1.0",
	Title: "Jumbo frames on a machine with little memory",
	Doc: "Jumbo frames (MTU above 1500) make the driver allocate multi-page receive buffers " +
		"atomically. On boxes with 128-512 MiB this fails under memory fragmentation (\"page " +
		"allocation failure\" in the kernel log) and frames are dropped. Every host on the segment " +
		"must use the same MTU. Keep jumbo frames only if measured faster; if allocation failures " +
		"appear, raise vm.min_free_kbytes to about 3% of RAM.",
	Refs: []string{refVM + "#min-free-kbytes", refIPLink},
}

func checkJumboSmallRAM(in rule.Input) []rule.Finding {
	h := in.Host
	if h.Memory.TotalBytes == 0 || h.Memory.TotalBytes > 512*mib {
		return nil
	}
	var out []rule.Finding
	for _, i := range h.Interfaces {
		if !i.Physical || i.MTU == nil || *i.MTU <= 1500 {
			continue
		}
		f := metaJumboSmallRAM.New(i.Name, fmt.Sprintf(
			"%s uses MTU %d on a machine with %s: each received frame needs a %d-byte atomic allocation.",
			i.Name, *i.MTU, humanBytes(h.Memory.TotalBytes), *i.MTU),
			rule.Ev(ifSource(i, "mtu"), itoa(int64(*i.MTU))), memEvidence(h))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("measure with MTU 1500 and %d (nastune bench net); if the kernel logs page allocation failures set vm.min_free_kbytes=%d",
				*i.MTU, h.Memory.TotalBytes/1024*3/100),
			Basis: "3% of RAM"}
		out = append(out, f)
	}
	return out
}
