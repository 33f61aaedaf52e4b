package ceiling

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The factors against their documented sources (docs/ceilings.md).
func TestFactors(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		// PCI-SIG: 2.5 GT/s 8b/10b = 250 MB/s per lane raw; 8 GT/s 128b/130b = 984.6 MB/s.
		{"pcie1 x1 raw", PCIeLaneMBs(2.5) / PCIeProtocol, 250, 0.01},
		{"pcie2 x1 raw", PCIeLaneMBs(5) / PCIeProtocol, 500, 0.01},
		{"pcie3 x1 raw", PCIeLaneMBs(8) / PCIeProtocol, 984.6, 0.1},
		{"pcie4 x1 raw", PCIeLaneMBs(16) / PCIeProtocol, 1969.2, 0.1},
		// An LSI SAS2008 (x8 gen2) in an x4 slot: ~1720 MB/s usable, not 3440.
		{"pcie2 x4", PCIeMBs(4, 5), 1720, 1},
		{"pcie2 x8", PCIeMBs(8, 5), 3440, 1},
		// SATA: 6 Gbps 8b/10b = 600 MB/s; SSDs top out near 550.
		{"sata3", SATAMBs(6), 552, 1},
		{"sata2", SATAMBs(3), 276, 1},
		{"sata1", SATAMBs(1.5), 138, 1},
		// USB.
		{"usb2 bot", USBMBs(480, false), 35, 0},
		{"usb2 uas", USBMBs(480, true), 40, 0},
		{"usb3 bot", USBMBs(5000, false), 375, 0.01},
		{"usb3 uas", USBMBs(5000, true), 440, 0.01},
		{"usb3.1 gen2 uas", USBMBs(10000, true), 969.7, 0.1},
		// Ethernet TCP payload: 1 GbE 117.7 MB/s (iperf3's 941 Mbit/s), 10 GbE jumbo 1240.
		{"1gbe", EthernetTCPMBs(1000, 1500), 117.7, 0.05},
		{"2.5gbe", EthernetTCPMBs(2500, 1500), 294.2, 0.1},
		{"10gbe", EthernetTCPMBs(10000, 1500), 1177, 0.5},
		{"10gbe jumbo", EthernetTCPMBs(10000, 9000), 1237.5, 0.5},
		// RAID factors.
		{"raid6 9", RAIDRead("raid6", 9), 7, 0},
		{"raid5 4", RAIDRead("raid5", 4), 3, 0},
		{"raid1 2", RAIDRead("raid1", 2), 1, 0},
		{"raid10 4 read", RAIDRead("raid10", 4), 2, 0},
		{"raid10 4 write", RAIDWrite("raid10", 4), 2, 0},
		{"raid0 3", RAIDRead("raid0", 3), 3, 0},
	}
	for _, c := range cases {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("%s = %.2f, want %.2f ± %.2f", c.name, c.got, c.want, c.tol)
		}
	}
}
