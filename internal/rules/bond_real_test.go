package rules_test

import (
	"sort"
	"strings"
	"testing"
)

// Real /proc/net/bonding files. insightsMode4Root is BOND_MODE_4 of
// RedHatInsights/insights-core insights/tests/parsers/test_bond.py (commit
// 43cbb25ff29f, Apache-2.0): read as root, with the Active Aggregator Info
// block, partner all zeros, one slave down. telegrafLACPUser is
// sampleTestLACPFirstUpSecondDown of influxdata/telegraf
// plugins/inputs/bond/bond_test.go (commit b27263146617, MIT): the same
// kind of bond read without root, so the partner block is absent.
// insightsMode1Flaps is BONDINFO_MODE_7 of insights-core: tens of
// thousands of link failures.
const insightsMode4Root = `Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)

Bonding Mode: IEEE 802.3ad Dynamic link aggregation
Transmit Hash Policy: layer2 (0)
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 2000
Down Delay (ms): 1000

802.3ad info
LACP rate: slow
Min links: 0
Aggregator selection policy (ad_select): stable
System priority: 65535
System MAC address: 08:00:27:99:a3:6b
Active Aggregator Info:
				Aggregator ID: 1
				Number of ports: 1
				Actor Key: 9
				Partner Key: 1
				Partner Mac Address: 00:00:00:00:00:00

Slave Interface: enp0s9
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 08:00:27:99:a3:6b
Slave queue ID: 0
Aggregator ID: 1
Actor Churn State: none
Partner Churn State: churned
Actor Churned Count: 0
Partner Churned Count: 1
details actor lacp pdu:
    system priority: 65535
    system mac address: 08:00:27:99:a3:6b
    port key: 9
    port priority: 255
    port number: 1
    port state: 77
details partner lacp pdu:
    system priority: 65535
    system mac address: 00:00:00:00:00:00
    oper key: 1
    port priority: 255
    port number: 1
    port state: 1

Slave Interface: enp0s8
MII Status: down
Speed: Unknown
Duplex: Unknown
Link Failure Count: 0
Permanent HW addr: 08:00:27:a2:8d:f5
Slave queue ID: 0
Aggregator ID: 2
Actor Churn State: churned
Partner Churn State: churned
Actor Churned Count: 1
Partner Churned Count: 1
details actor lacp pdu:
    system priority: 65535
    system mac address: 08:00:27:99:a3:6b
    port key: 0
    port priority: 255
    port number: 2
    port state: 69
details partner lacp pdu:
    system priority: 65535
    system mac address: 00:00:00:00:00:00
    oper key: 1
    port priority: 255
    port number: 1
    port state: 1
`

const telegrafLACPUser = `Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)

Bonding Mode: IEEE 802.3ad Dynamic link aggregation
Transmit Hash Policy: layer2 (0)
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0

802.3ad info
LACP rate: fast
Min links: 0
Aggregator selection policy (ad_select): stable

Slave Interface: eth0
MII Status: up
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 2
Permanent HW addr: 3c:ec:ef:5e:71:58
Slave queue ID: 0
Aggregator ID: 2
Actor Churn State: none
Partner Churn State: none
Actor Churned Count: 2
Partner Churned Count: 0

Slave Interface: eth1
MII Status: down
Speed: Unknown
Duplex: Unknown
Link Failure Count: 1
Permanent HW addr: 3c:ec:ef:5e:71:59
Slave queue ID: 0
Aggregator ID: 2
Actor Churn State: none
Partner Churn State: none
Actor Churned Count: 0
Partner Churned Count: 0
`

const insightsMode1Flaps = `Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)

Bonding Mode: fault-tolerance (active-backup)
Primary Slave: em3 (primary_reselect failure)
Currently Active Slave: em3
MII Status: up
MII Polling Interval (ms): 0
Up Delay (ms): 0
Down Delay (ms): 0
ARP Polling Interval (ms): 1000
ARP IP target/s (n.n.n.n form): 10.152.1.1

Slave Interface: em3
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 92028
Permanent HW addr: 00:1f:f3:af:d3:f1
Slave queue ID: 0

Slave Interface: p2p3
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 71524
Permanent HW addr: 00:1f:f3:af:d3:f1
Slave queue ID: 0
`

// labABDown and labABFlapped are /proc/net/bonding/bond1 of the Debian
// 6.1 kernel in the qemu lab (testdata/real/lab-bond-ab-down and
// lab-bond-ab-flapping): the backup's peer down, and the backup after six
// down/up cycles, up again.
const labABDown = `Ethernet Channel Bonding Driver: v6.1.0-56-amd64

Bonding Mode: fault-tolerance (active-backup)
Primary Slave: None
Currently Active Slave: a2
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0
Peer Notification Delay (ms): 0

Slave Interface: a2
MII Status: up
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 7e:1e:ea:ee:66:b7
Slave queue ID: 0

Slave Interface: a3
MII Status: down
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 1
Permanent HW addr: 46:a5:ae:41:24:9e
Slave queue ID: 0
`

const labABFlapped = `Ethernet Channel Bonding Driver: v6.1.0-56-amd64

Bonding Mode: fault-tolerance (active-backup)
Primary Slave: None
Currently Active Slave: a2
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0
Peer Notification Delay (ms): 0

Slave Interface: a2
MII Status: up
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 7e:1e:ea:ee:66:b7
Slave queue ID: 0

Slave Interface: a3
MII Status: up
Speed: 10000 Mbps
Duplex: full
Link Failure Count: 6
Permanent HW addr: 46:a5:ae:41:24:9e
Slave queue ID: 0
`

func bondTree(content string) map[string]string {
	return map[string]string{
		"sys/class/net/bond0/uevent": "DEVTYPE=bond\nINTERFACE=bond0\nIFINDEX=4\n",
		"sys/class/net/bond0/type":   "1\n",
		"proc/net/bonding/bond0":     content,
	}
}

func TestBondRealFiles(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		want     []string          // bond findings except the advisory ones
		contains map[string]string // "id subject" → text it must contain
		notColl  bool              // partner recorded as not collected
	}{
		{"root, partner zeros, slave down", insightsMode4Root,
			[]string{"bond-lacp-not-negotiated bond0", "bond-slave-down enp0s8"},
			map[string]string{
				"bond-lacp-not-negotiated bond0": "Partner Mac Address: 00:00:00:00:00:00",
				"bond-slave-down enp0s8":         "MII Status: down",
			}, false},
		{"no root: partner not collected, no LACP claim", telegrafLACPUser,
			[]string{"bond-slave-down eth1"},
			map[string]string{"bond-slave-down eth1": "runs on 1 of 2 links"}, true},
		{"lab: active-backup, backup down", labABDown,
			[]string{"bond-slave-down a3"},
			map[string]string{"bond-slave-down a3": "MII Status: down"}, false},
		{"lab: six link failures, all up again: nothing", labABFlapped, nil, nil, false},
		{"flapping slaves named with counts", insightsMode1Flaps,
			[]string{"bond-link-flapping em3", "bond-link-flapping p2p3"},
			map[string]string{
				"bond-link-flapping em3":  "lost its link 92028 times since the bond came up: a flapping cable or switch port is likely",
				"bond-link-flapping p2p3": "Link Failure Count: 71524",
			}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, fs := runTree(t, bondTree(tt.file))
			var got []string
			for _, id := range ids(fs, "bond") {
				if !strings.HasPrefix(id, "bond-single-stream") && !strings.HasPrefix(id, "bond-hash-layer2") {
					got = append(got, id)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if sub, ok := tt.contains[f.ID+" "+f.Subject]; ok && !strings.Contains(text(f), sub) {
					t.Errorf("%s %s: %s\nwant %q", f.ID, f.Subject, text(f), sub)
				}
				if f.ID == "bond-slave-down" && strings.Contains(strings.ToLower(f.Why), "switch") {
					t.Errorf("a down slave is not blamed on the switch: %s", f.Why)
				}
			}
			nc := false
			for _, n := range h.NotCollected {
				nc = nc || (strings.Contains(n.Source, "/proc/net/bonding/bond0") && strings.Contains(n.Reason, "root"))
			}
			if nc != tt.notColl {
				t.Errorf("partner not-collected = %v, want %v (%+v)", nc, tt.notColl, h.NotCollected)
			}
		})
	}
}
