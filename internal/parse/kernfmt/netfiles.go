package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Bonding parses /proc/net/bonding/BOND (drivers/net/bonding/bond_procfs.c):
// the mode, hash policy and MII status of the bond, the active aggregator
// of an 802.3ad bond with its partner MAC, and one block per slave.
func Bonding(data []byte) (facts.Bond, error) {
	var b facts.Bond
	var slave *facts.BondSlave
	inActiveAgg := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		k, v, ok := strings.Cut(strings.TrimSpace(raw), ":")
		if !ok {
			// "bond0 has no active aggregator" (printed only to root)
			if strings.HasSuffix(strings.TrimSpace(raw), "has no active aggregator") {
				b.PartnerInfo, b.NoActiveAggregator = true, true
			}
			continue
		}
		v = strings.TrimSpace(v)
		if k == "Slave Interface" {
			b.Slaves = append(b.Slaves, facts.BondSlave{Name: v})
			slave = &b.Slaves[len(b.Slaves)-1]
			inActiveAgg = false
			continue
		}
		if k == "Active Aggregator Info" {
			inActiveAgg, b.PartnerInfo = true, true
			continue
		}
		if slave != nil {
			switch k {
			case "MII Status":
				slave.MIIStatus = v
			case "Speed":
				if s, err := strconv.Atoi(strings.TrimSuffix(v, " Mbps")); err == nil && s > 0 {
					slave.SpeedMbps = s
				}
			case "Duplex":
				slave.Duplex = v
			case "Link Failure Count":
				slave.LinkFailures, _ = strconv.Atoi(v)
			case "Aggregator ID":
				slave.AggregatorID, _ = strconv.Atoi(v)
			case "Actor Churn State":
				slave.ActorChurn = v
			case "Partner Churn State":
				slave.PartnerChurn = v
			}
			continue
		}
		switch k {
		case "Bonding Mode":
			b.ModeText = v
			b.Mode = bondModeName(v)
		case "Transmit Hash Policy":
			b.HashPolicy = strings.Fields(v + " x")[0]
		case "MII Status":
			b.MIIStatus = v
		case "LACP rate":
			b.LACPRate = v
		case "Aggregator ID":
			if inActiveAgg {
				b.AggregatorID, _ = strconv.Atoi(v)
			}
		case "Partner Mac Address":
			if inActiveAgg {
				b.PartnerMAC = v
			}
		}
	}
	if b.ModeText == "" {
		return b, lineErr(n, "no 'Bonding Mode:' line")
	}
	return b, nil
}

// bondModeName maps the procfs text to the mode name used by sysfs and
// ip-link (Documentation/networking/bonding.rst).
func bondModeName(text string) string {
	switch {
	case strings.HasPrefix(text, "load balancing (round-robin)"):
		return "balance-rr"
	case strings.HasPrefix(text, "fault-tolerance (active-backup)"):
		return "active-backup"
	case strings.HasPrefix(text, "load balancing (xor)"):
		return "balance-xor"
	case strings.HasPrefix(text, "fault-tolerance (broadcast)"):
		return "broadcast"
	case strings.HasPrefix(text, "IEEE 802.3ad"):
		return "802.3ad"
	case strings.HasPrefix(text, "transmit load balancing"):
		return "balance-tlb"
	case strings.HasPrefix(text, "adaptive load balancing"):
		return "balance-alb"
	}
	return ""
}

// UDPStats reads the Udp: header and value lines of /proc/net/snmp.
func UDPStats(data []byte) (facts.UDPStats, error) {
	var hdr []string
	var s facts.UDPStats
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "Udp:" {
			continue
		}
		if hdr == nil {
			hdr = f[1:]
			continue
		}
		vals := f[1:]
		if len(vals) != len(hdr) {
			return s, lineErr(n, "Udp: has %d values for %d names", len(vals), len(hdr))
		}
		for i, name := range hdr {
			v, err := strconv.ParseUint(vals[i], 10, 64)
			if err != nil {
				return s, lineErr(n, "Udp %s: %q is not a number", name, clip(vals[i]))
			}
			switch name {
			case "InDatagrams":
				s.InDatagrams = v
			case "InErrors":
				s.InErrors = v
			case "RcvbufErrors":
				s.RcvbufErrors = v
			case "SndbufErrors":
				s.SndbufErrors = v
			}
		}
		return s, nil
	}
	return s, lineErr(n, "no Udp: lines")
}

// PacketSockets parses /proc/net/packet (net/packet/af_packet.c):
// sk RefCnt Type Proto Iface R Rmem User Inode. Proto is the ethertype in
// hex, Iface an interface index (0: all interfaces).
func PacketSockets(data []byte) ([]facts.PacketSocket, error) {
	var out []facts.PacketSocket
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] == "sk" {
			continue
		}
		if len(f) < 9 {
			return out, lineErr(n, "want 9 columns, got %d", len(f))
		}
		typ, err1 := strconv.Atoi(f[2])
		idx, err2 := strconv.Atoi(f[4])
		uid, err3 := strconv.Atoi(f[7])
		ino, err4 := strconv.ParseUint(f[8], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return out, lineErr(n, "type, iface, user and inode must be numbers")
		}
		out = append(out, facts.PacketSocket{Inode: ino, Type: typ, Proto: f[3], IfIndex: idx, UID: uid})
	}
	return out, nil
}

// netDevColumns name the 16 counters of a /proc/net/dev line
// (net/core/net-procfs.c dev_seq_printf_stats). "rx_dropped" there
// includes rx_missed_errors, "rx_frame_errors" sums length, over, CRC and
// frame errors.
var netDevColumns = []string{
	"rx_bytes", "rx_packets", "rx_errors", "rx_dropped", "rx_fifo_errors", "rx_frame_errors", "rx_compressed", "multicast",
	"tx_bytes", "tx_packets", "tx_errors", "tx_dropped", "tx_fifo_errors", "collisions", "tx_carrier_errors", "tx_compressed",
}

// NetDev parses /proc/net/dev into interface → counter → value.
func NetDev(data []byte) (map[string]map[string]uint64, error) {
	out := map[string]map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || n <= 2 && strings.Contains(rest, "|") {
			continue // the two header lines
		}
		f := strings.Fields(rest)
		if len(f) < len(netDevColumns) {
			return out, lineErr(n, "want %d counters, got %d", len(netDevColumns), len(f))
		}
		m := make(map[string]uint64, len(netDevColumns))
		for i, col := range netDevColumns {
			v, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return out, lineErr(n, "%s: %q is not a number", col, clip(f[i]))
			}
			m[col] = v
		}
		out[strings.TrimSpace(name)] = m
	}
	return out, nil
}
