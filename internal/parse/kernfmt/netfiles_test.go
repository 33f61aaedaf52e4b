package kernfmt

import (
	"strings"
	"testing"
)

// From Documentation/networking/bonding.rst and a 5.10 kernel's output.
const bond8023ad = `Ethernet Channel Bonding Driver: v5.10.0

Bonding Mode: IEEE 802.3ad Dynamic link aggregation
Transmit Hash Policy: layer3+4 (1)
MII Status: up
MII Polling Interval (ms): 100

802.3ad info
LACP rate: fast
Active Aggregator Info:
	Aggregator ID: 2
	Number of ports: 2
	Partner Mac Address: 00:1b:21:aa:bb:cc

Slave Interface: eth0
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 3
Aggregator ID: 2

Slave Interface: eth1
MII Status: down
Speed: Unknown
Duplex: Unknown
Link Failure Count: 0
Aggregator ID: 1
details partner lacp pdu:
    system mac address: 00:00:00:00:00:00
`

func TestBonding(t *testing.T) {
	b, err := Bonding([]byte(bond8023ad))
	if err != nil {
		t.Fatal(err)
	}
	if b.Mode != "802.3ad" || b.HashPolicy != "layer3+4" || b.LACPRate != "fast" || b.AggregatorID != 2 ||
		b.PartnerMAC != "00:1b:21:aa:bb:cc" || len(b.Slaves) != 2 {
		t.Fatalf("bond: %+v", b)
	}
	if s := b.Slaves[0]; s.Name != "eth0" || s.SpeedMbps != 1000 || s.LinkFailures != 3 || s.AggregatorID != 2 {
		t.Errorf("eth0: %+v", s)
	}
	if s := b.Slaves[1]; s.MIIStatus != "down" || s.SpeedMbps != 0 || s.AggregatorID != 1 {
		t.Errorf("eth1: %+v", s)
	}
	rr, err := Bonding([]byte("Bonding Mode: load balancing (round-robin)\nMII Status: up\n"))
	if err != nil || rr.Mode != "balance-rr" {
		t.Errorf("balance-rr: %+v %v", rr, err)
	}
	if _, err := Bonding([]byte("garbage\n")); err == nil {
		t.Error("want an error without a Bonding Mode line")
	}
}

func TestUDPStats(t *testing.T) {
	in := "Ip: Forwarding DefaultTTL\nIp: 1 64\nUdp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors\nUdp: 100 2 7 90 5 1 0\nUdpLite: InDatagrams\nUdpLite: 0\n"
	s, err := UDPStats([]byte(in))
	if err != nil || s.InDatagrams != 100 || s.InErrors != 7 || s.RcvbufErrors != 5 || s.SndbufErrors != 1 {
		t.Errorf("got %+v %v", s, err)
	}
	old, err := UDPStats([]byte("Udp: InDatagrams NoPorts InErrors OutDatagrams\nUdp: 1 2 3 4\n")) // 2.6.2x: no buffer columns
	if err != nil || old.InErrors != 3 || old.RcvbufErrors != 0 {
		t.Errorf("old kernel: %+v %v", old, err)
	}
	for _, bad := range []string{"", "Udp: A B\nUdp: 1\n", "Udp: A\nUdp: x\n"} {
		if _, err := UDPStats([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestPacketSockets(t *testing.T) {
	in := "sk               RefCnt Type Proto  Iface R Rmem   User   Inode\n" +
		"ffff8881020e4000 3      3    0003   0     1 0      0      23811\n" +
		"ffff8881020e4800 3      2    88cc   2     1 0      102    30211\n"
	s, err := PacketSockets([]byte(in))
	if err != nil || len(s) != 2 || s[0].Inode != 23811 || s[0].Type != 3 || s[0].IfIndex != 0 ||
		s[1].Proto != "88cc" || s[1].UID != 102 || s[1].IfIndex != 2 {
		t.Errorf("got %+v %v", s, err)
	}
	if _, err := PacketSockets([]byte("sk\nffff 3 3 0003 x 1 0 0 1\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v", err)
	}
}

func TestNetDev(t *testing.T) {
	in := "Inter-|   Receive                                                |  Transmit\n" +
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n" +
		"    lo: 100 2 0 0 0 0 0 0 100 2 0 0 0 0 0 0\n" +
		"  eth0: 81937422311 301228833 1 7 2 3 0 55 412992811022 290122733 0 0 0 9 0 0\n"
	m, err := NetDev([]byte(in))
	if err != nil || m["eth0"]["rx_bytes"] != 81937422311 || m["eth0"]["rx_dropped"] != 7 || m["eth0"]["collisions"] != 9 || m["lo"]["tx_packets"] != 2 {
		t.Errorf("got %v %v", m, err)
	}
	if _, err := NetDev([]byte("x: 1 2 3\n")); err == nil {
		t.Error("short line must fail")
	}
}

func TestNFSDThreads(t *testing.T) {
	for in, want := range map[string]int{
		"rc 0 10 20\nfh 0 0 0 0 0\nio 0 0\nth 8 0 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000\n": 8,
		"th 16 0\n": 16, "rc 0 1\n": -1, "th x\n": -1, "": -1,
	} {
		got, ok := NFSDThreads([]byte(in))
		if (want < 0) == ok || ok && got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
}
