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
				if s, err := strconv.Atoi(strings.TrimSuffix(v, " Mbps")); err == nil && s > 0 { // units:input
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
	for _, m := range bondModes {
		if strings.HasPrefix(text, m.text) {
			return m.name
		}
	}
	return ""
}

// bondModes are the "Bonding Mode:" texts of drivers/net/bonding/bond_procfs.c
// (bond_mode_name) and the mode names sysfs uses for them.
var bondModes = []struct{ text, name string }{
	{"load balancing (round-robin)", "balance-rr"},
	{"fault-tolerance (active-backup)", "active-backup"},
	{"load balancing (xor)", "balance-xor"},
	{"fault-tolerance (broadcast)", "broadcast"},
	{"IEEE 802.3ad", "802.3ad"},
	{"transmit load balancing", "balance-tlb"},
	{"adaptive load balancing", "balance-alb"},
}

// udpKeys are the Udp: counters facts.UDPStats keeps.
var udpKeys = []string{"InDatagrams", "InErrors", "RcvbufErrors", "SndbufErrors"}

// UDPStats reads the Udp: header and value lines of /proc/net/snmp.
func UDPStats(data []byte) (facts.UDPStats, error) {
	var s facts.UDPStats
	err := ScanSNMP(data, "Udp", func(name []byte, v uint64) {
		setNamed(name, v, udpKeys, &s.InDatagrams, &s.InErrors, &s.RcvbufErrors, &s.SndbufErrors)
	})
	return s, err
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

// NetDev parses /proc/net/dev into interface → counter → value.
func NetDev(data []byte) (map[string]map[string]uint64, error) {
	out := map[string]map[string]uint64{}
	err := ScanNetDev(data, nil, func(name []byte, c [16]uint64) {
		m := make(map[string]uint64, len(c))
		for i, col := range netDevColumns {
			m[col] = c[i]
		}
		out[string(name)] = m
	})
	return out, err
}

// NFSDThreads reads the "th" line of /proc/net/rpc/nfsd: its first number
// is the nfsd thread count (the last "th" line wins).
func NFSDThreads(data []byte) (int, bool) {
	th, ok := 0, false
	_ = eachLine(data, func(_ int, l []byte) error {
		f := strings.Fields(string(l))
		if len(f) >= 2 && f[0] == "th" {
			if v, err := strconv.Atoi(f[1]); err == nil {
				th, ok = v, true
			}
		}
		return nil
	})
	return th, ok
}
