package rules_test

import (
	"strings"
	"testing"
)

// nicTree is a wired, physical eth0 with link on kernel 6.14, plus the
// given captured ethtool runs ("-k" → output).
func nicTree(speed string, cmds map[string]string) map[string]string {
	dev := "sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/net/eth0/"
	t := map[string]string{
		"proc/sys/kernel/osrelease": "6.14.0-rc4\n",
		"sys/class/net/eth0 -> ../../devices/pci0000:00/0000:00:1c.0/0000:02:00.0/net/eth0": "",
		dev + "device -> ../..": "",
		dev + "type":            "1\n",
		dev + "carrier":         "1\n",
		dev + "operstate":       "up\n",
		dev + "speed":           speed + "\n",
		dev + "duplex":          "full\n",
		dev + "mtu":             "1500\n",
		dev + "ifindex":         "2\n",
	}
	for flag, out := range cmds {
		name := "ethtool_" + flag + "_eth0"
		argv := "ethtool " + flag + " eth0"
		if flag == "" {
			name, argv = "ethtool_eth0", "ethtool eth0"
		}
		t[".nastune/commands/"+name+".txt"] = "# command: " + argv + "\n" + out
	}
	return t
}

// r8169 with MTU 12000 (Rui Salvaterra on netdev, 2025-03-01, "r8169:
// add support for 16K jumbo frames"): TSO is requested on and held off by
// the kernel. The other sample turned sg off (`ethtool -K eno1 sg off`,
// ethtool shows gso "off [requested on]"): only sg is worth advising.
const r8169Features = `Features for eth0:
rx-checksumming: on
tx-checksumming: on
	tx-checksum-ipv4: on
	tx-checksum-ip-generic: off [fixed]
	tx-checksum-ipv6: on
	tx-checksum-fcoe-crc: off [fixed]
	tx-checksum-sctp: off [fixed]
scatter-gather: on
	tx-scatter-gather: on
	tx-scatter-gather-fraglist: off [fixed]
tcp-segmentation-offload: off
	tx-tcp-segmentation: off [requested on]
	tx-tcp-ecn-segmentation: off [fixed]
	tx-tcp-mangleid-segmentation: off
	tx-tcp6-segmentation: off [requested on]
generic-segmentation-offload: on
generic-receive-offload: on
large-receive-offload: off [fixed]
`

const sgOffFeatures = `Features for eth0:
rx-checksumming: on
tx-checksumming: on
	tx-checksum-ipv4: off [fixed]
	tx-checksum-ip-generic: on
	tx-checksum-ipv6: off [fixed]
	tx-checksum-fcoe-crc: off [fixed]
	tx-checksum-sctp: off [fixed]
scatter-gather: off
	tx-scatter-gather: off
	tx-scatter-gather-fraglist: off [fixed]
tcp-segmentation-offload: off
	tx-tcp-segmentation: off [fixed]
	tx-tcp-ecn-segmentation: off [fixed]
	tx-tcp-mangleid-segmentation: off [fixed]
	tx-tcp6-segmentation: off [fixed]
generic-segmentation-offload: off [requested on]
generic-receive-offload: on
large-receive-offload: off [fixed]
`

// A 10GBASE-T port (ixgbe X540) at 1 Gbit/s, read without the partner's
// modes, and the same with them.
const x540NoPartner = `Settings for eth0:
	Supported ports: [ TP ]
	Supported link modes:   100baseT/Full
	                        1000baseT/Full
	                        10000baseT/Full
	Supported pause frame use: Symmetric
	Supports auto-negotiation: Yes
	Advertised link modes:  100baseT/Full
	                        1000baseT/Full
	                        10000baseT/Full
	Advertised pause frame use: Symmetric
	Advertised auto-negotiation: Yes
	Speed: 1000Mb/s
	Duplex: Full
	Auto-negotiation: on
	Port: Twisted Pair
	Link detected: yes
`

var x540Partner10G = strings.Replace(x540NoPartner, "	Speed:", `	Link partner advertised link modes:  100baseT/Full
	                                     1000baseT/Full
	                                     10000baseT/Full
	Link partner advertised auto-negotiation: Yes
	Speed:`, 1)

var x540Partner1G = strings.Replace(x540NoPartner, "	Speed:", `	Link partner advertised link modes:  100baseT/Full
	                                     1000baseT/Full
	Link partner advertised auto-negotiation: Yes
	Speed:`, 1)

// igb adds each queue's drop counter (RQDPC) into rx_fifo_errors; the
// virtio_net sample has per-queue drops only.
const igbStats = `NIC statistics:
     rx_packets: 4127633
     rx_fifo_errors: 1690
     rx_missed_errors: 0
     rx_queue_0_packets: 1032101
     rx_queue_0_drops: 845
     rx_queue_0_alloc_failed: 0
     rx_queue_1_packets: 1031899
     rx_queue_1_drops: 845
     rx_queue_1_alloc_failed: 0
`

const virtioStats = `NIC statistics:
     rx_queue_0_packets: 5302017
     rx_queue_0_bytes: 7425620389
     rx_queue_0_drops: 310
     rx_queue_0_xdp_drops: 0
     rx_queue_1_packets: 4471200
     rx_queue_1_drops: 95
     rx_queue_1_xdp_drops: 7
     tx_queue_0_packets: 2077211
     tx_queue_0_drops: 3
`

// Per-queue layouts of other drivers, as their ethtool_get_strings
// names them: be2net "rxqN: name" (the insights-core sample in
// testdata/real/nic-insights-perqueue-stats), ena "queue_N_rx_name", bnxt
// "[N]: name", mlx5 "rxN_name".
const be2netStats = `NIC statistics:
     rx_crc_errors: 0
     rxq0: rx_bytes: 7286473820
     rxq0: rx_pkts: 5000000
     rxq0: rx_drops_no_frags: 5000
     rxq1: rx_bytes: 7286473820
     rxq1: rx_pkts: 5000000
     rxq1: rx_drops_no_frags: 5000
     txq0: tx_compl: 3000000
     txq0: tx_drv_drops: 9
`

const enaStats = `NIC statistics:
     tx_timeout: 0
     queue_0_tx_cnt: 1923777
     queue_0_tx_dma_mapping_err: 0
     queue_0_rx_cnt: 2741102
     queue_0_rx_page_alloc_fail: 0
     queue_0_rx_dropped: 120
     queue_1_rx_cnt: 2208220
     queue_1_rx_dropped: 80
`

const bnxtStats = `NIC statistics:
     [0]: rx_ucast_packets: 1043
     [0]: rx_discards: 12
     [1]: rx_ucast_packets: 2210
     [1]: rx_discards: 30
     [0]: tx_ucast_packets: 991
`

const mlx5Stats = `NIC statistics:
     rx_packets: 91230044
     rx0_packets: 45615022
     rx0_buff_alloc_err: 0
     rx0_cache_full: 0
     rx0_dropped: 77
     rx1_packets: 45615022
     rx1_dropped: 23
     tx0_dropped: 4
`

const ring256of4096 = `Ring parameters for eth0:
Pre-set maximums:
RX:		4096
RX Mini:	n/a
RX Jumbo:	n/a
TX:		4096
Current hardware settings:
RX:		256
RX Mini:	n/a
RX Jumbo:	n/a
TX:		256
`

func TestNICRealEthtool(t *testing.T) {
	tests := []struct {
		name  string
		speed string
		cmds  map[string]string
		want  map[string]string // "id" → "severity|text"; "" id absent
	}{
		{"requested on is never advised", "1000", map[string]string{"-k": r8169Features},
			map[string]string{"nic-offload-off": ""}},
		{"gso held off by sg: advise sg only", "1000", map[string]string{"-k": sgOffFeatures},
			map[string]string{"nic-offload-off": "warn|ethtool -K eth0 sg on "}},
		{"no partner modes: info, no claim", "1000", map[string]string{"": x540NoPartner},
			map[string]string{"nic-link-below-supported": "info|whether the switch port could go faster is unknown"}},
		{"partner offers 10G: warn", "1000", map[string]string{"": x540Partner10G},
			map[string]string{"nic-link-below-supported": "warn|link partner advertises up to 10000"}},
		{"partner offers 1G: nothing", "1000", map[string]string{"": x540Partner1G},
			map[string]string{"nic-link-below-supported": ""}},
		{"igb: queue drops not counted twice", "1000", map[string]string{"-S": igbStats, "-g": ring256of4096},
			map[string]string{"nic-ring-drops": "warn|dropped 1690 received frames"}},
		{"virtio: per-queue drops read", "1000", map[string]string{"-S": virtioStats, "-g": ring256of4096},
			map[string]string{"nic-ring-drops": "warn|dropped 405 received frames"}},
		{"be2net rxqN: per-queue drops read, tx not counted", "1000", map[string]string{"-S": be2netStats, "-g": ring256of4096},
			map[string]string{"nic-ring-drops": "warn|dropped 10000 received frames"}},
		{"ena queue_N_rx_dropped", "1000", map[string]string{"-S": enaStats, "-g": ring256of4096},
			map[string]string{"nic-ring-drops": "warn|dropped 200 received frames"}},
		{"mlx5 rxN_dropped, tx not counted", "1000", map[string]string{"-S": mlx5Stats, "-g": ring256of4096},
			map[string]string{"nic-ring-drops": "warn|dropped 100 received frames"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := runTree(t, nicTree(tt.speed, tt.cmds))
			for id, want := range tt.want {
				got, _ := wantFinding(t, fs, id, want)
				for _, f := range got {
					r := f.Recommendation
					if r != nil && (strings.Contains(r.Target, "tso on") || strings.Contains(r.Target, "gso on")) {
						t.Errorf("advises a feature the kernel holds off: %s", r.Target)
					}
				}
			}
		})
	}
}

// node_exporter's ethtool fixtures (prometheus/node_exporter
// collector/fixtures/ethtool/eth0, commit 1a7dcc3a0154, Apache-2.0): an
// e1000e read without root ("netlink error: Operation not permitted"), so
// no link partner modes; statistics with odd lines.
const neSettings = `Settings for eth0:
	Supported ports: [ TP	 MII ]
	Supported link modes:   10baseT/Half 10baseT/Full
	                        100baseT/Half 100baseT/Full
	                        1000baseT/Full 10000baseT/Full
	Supported pause frame use: Symmetric
	Supports auto-negotiation: Yes
	Supported FEC modes: Not reported
	Advertised link modes:  10baseT/Half 10baseT/Full
	                        100baseT/Half 100baseT/Full
	                        1000baseT/Full
	Advertised pause frame use: Symmetric
	Advertised auto-negotiation: Yes
	Advertised FEC modes: Not reported
	Speed: 1000Mb/s
	Duplex: Full
	Auto-negotiation: on
	Port: Twisted Pair
	PHYAD: 1
	Transceiver: internal
	MDI-X: off (auto)
netlink error: Operation not permitted
        Current message level: 0x00000007 (7)
                               drv probe link
	Link detected: yes

`

const neStats = `NIC statistics:
     tx_packets: 961500
     rx_packets: 1260062
     tx_errors: 0
     rx_errors: 0
     port.rx_dropped: 12028
     rx_missed: 401
     align_errors: 0
     tx_single_collisions: 0
     tx_multi_collisions: 0
     rx_unicast: 1230297
     rx_broadcast: 5792
     rx_multicast: 23973
     tx_aborted: 0
     tx_underrun: 0
     duplicate metric: 1
     duplicate_metric: 2
`

func TestNICNodeExporterFixture(t *testing.T) {
	_, fs := runTree(t, nicTree("1000", map[string]string{"": neSettings, "-S": neStats}))
	got := byID(fs, "nic-link-below-supported")
	if len(got) != 1 || got[0].Severity.String() != "info" || !strings.Contains(got[0].Why, "negotiated 1000 Mbit/s") ||
		strings.Contains(got[0].Why, "partner advertises") {
		t.Fatalf("want the negotiated speed as info without a partner claim: %+v", got)
	}
}
