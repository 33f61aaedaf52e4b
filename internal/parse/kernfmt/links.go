package kernfmt

import (
	"strconv"
	"strings"
)

// PCIeLinkSpeed reads a PCI device's current_link_speed or max_link_speed
// (drivers/pci/pci-sysfs.c, pci_speed_string): "8.0 GT/s PCIe" since
// Linux 4.17, "2.5 GT/s" or "5 GT/s" before, in GT/s per lane. The
// kernel's "Unknown" (before 4.17 "Unknown speed") is 0 and no error.
func PCIeLinkSpeed(s string) (float64, error) {
	return linkRate(s, "GT/s", "current_link_speed", "Unknown")
}

// SATALinkSpeed reads a libata link's sata_spd or sata_spd_limit
// (drivers/ata/libata-transport.c): "6.0 Gbps", "3.0 Gbps", "1.5 Gbps";
// the kernel's "<unknown>" is 0 and no error.
func SATALinkSpeed(s string) (float64, error) {
	return linkRate(s, "Gbps", "sata_spd", "<unknown>") // units:input
}

// linkRate reads "NUMBER UNIT[ …]", or a word starting with unknown.
func linkRate(s, unit, file, unknown string) (float64, error) {
	f := strings.Fields(s)
	if len(f) > 0 && strings.HasPrefix(f[0], unknown) {
		return 0, nil
	}
	if len(f) < 2 || f[1] != unit {
		return 0, lineErr(1, "%s %q is not NUMBER %s", file, clip(s), unit)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || !(v > 0 && v <= 1e4) { // NaN too
		return 0, lineErr(1, "%s %q is not NUMBER %s", file, clip(s), unit)
	}
	return v, nil
}
