// Package ceiling models the most a data path can carry: a disk or an md
// array through its SATA or USB link and the PCI Express links of its
// controller, and each NIC as TCP payload. Every link becomes MB/s
// (10^6 bytes per second) with the usable-throughput factors below; the
// narrowest link is the path's bottleneck. docs/ceilings.md documents each
// factor with its source. The package is pure: facts in, paths out.
package ceiling

// PCIeProtocol is the share of a PCIe link's post-encoding bandwidth left
// for data after TLP headers, DLLP acknowledgements and flow control with
// a 256-byte maximum payload: 256 / (256 + 24 bytes of framing, header and
// LCRC) ≈ 0.91, minus ~5% for ACK/flow-control DLLPs and read-request
// TLPs, as the PCI-SIG and vendor application notes measure it.
const PCIeProtocol = 0.86

// PCIeLaneMBs is one lane's usable MB/s at a link speed in GT/s: one bit
// per transfer, 8b/10b encoding up to 5 GT/s (PCIe 1.x/2.x), 128b/130b
// from 8 GT/s (3.0 on), then PCIeProtocol.
func PCIeLaneMBs(gts float64) float64 {
	enc := 0.8
	if gts >= 8 {
		enc = 128.0 / 130.0
	}
	return gts * 1000 / 8 * enc * PCIeProtocol
}

// PCIeMBs is a link's usable MB/s.
func PCIeMBs(width int, gts float64) float64 {
	return float64(width) * PCIeLaneMBs(gts)
}

// SATAEfficiency is the share of a SATA link's post-8b/10b rate left for
// data after FIS framing and handshakes: 6 Gbps → 600 MB/s → ~550 MB/s,
// what the fastest SATA SSDs reach.
const SATAEfficiency = 0.92

// SATAMBs is a SATA link's usable MB/s (1.5, 3.0 or 6.0 Gbps).
func SATAMBs(gbps float64) float64 { return gbps * 1000 / 8 * 0.8 * SATAEfficiency }

// USBMBs is what a USB mass-storage link carries in practice: USB 2
// (480 Mb/s) ~35 MB/s with Bulk-Only Transport, ~40 MB/s with UAS; USB 3
// Gen 1 (5 Gb/s, 8b/10b: 500 MB/s) ~75% with BOT and ~88% with UAS;
// Gen 2 (10 Gb/s, 128b/132b: ~1200 MB/s) ~60% / 80%. BOT waits for each
// command's status before the next; UAS queues commands.
func USBMBs(speedMbps int, uas bool) float64 {
	switch {
	case speedMbps <= 0:
		return 0
	case speedMbps <= 12:
		return 1 // USB 1.1 full speed
	case speedMbps <= 480:
		if uas {
			return 40
		}
		return 35
	case speedMbps <= 5000:
		if uas {
			return 500 * 0.88
		}
		return 500 * 0.75
	default:
		raw := float64(speedMbps) / 8 * 128 / 132
		if uas {
			return raw * 0.8
		}
		return raw * 0.6
	}
}

// EthernetTCPMBs is TCP payload on an Ethernet link: per MTU-sized frame,
// MTU − 52 bytes of payload (IPv4 20, TCP 20, timestamps 12) out of
// MTU + 38 bytes on the wire (preamble 8, header 14, FCS 4, gap 12):
// 1 GbE at MTU 1500 → 117.7 MB/s.
func EthernetTCPMBs(speedMbps, mtu int) float64 {
	if mtu <= 52 {
		mtu = 1500
	}
	return float64(speedMbps) / 8 * float64(mtu-52) / float64(mtu+38)
}

// Media ceilings for sequential transfers when nothing better is known.
const (
	// HDDMBs: a 3.5" 7200 rpm NAS disk's outer tracks (datasheets of
	// WD Red Plus/Seagate IronWolf 4-8 TB: 180-210 MB/s); inner tracks
	// give about half.
	HDDMBs = 200.0
	// SATASSDMBs: a SATA SSD is bound by its link (~550 MB/s).
	SATASSDMBs = 550.0
)

// RAIDRead is the factor an md array's sequential read ceiling has over
// its slowest member: the data disks of a striped level; RAID1 serves one
// stream from one member at a time; RAID10 (near, 2 copies) reads from
// half the members.
func RAIDRead(level string, members int) float64 {
	switch level {
	case "raid0":
		return float64(members)
	case "raid1":
		return 1
	case "raid10":
		return float64(members) / 2
	case "raid4", "raid5":
		return float64(members - 1)
	case "raid6":
		return float64(members - 2)
	case "linear":
		return 1
	}
	return 1
}

// RAIDWrite is the sequential write factor for full-stripe writes (the
// best case; partial stripes on RAID5/6 read before they write).
func RAIDWrite(level string, members int) float64 {
	switch level {
	case "raid1":
		return 1
	case "raid10":
		return float64(members) / 2
	}
	return RAIDRead(level, members)
}
