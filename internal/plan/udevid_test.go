package plan_test

import "github.com/nastune/nastune/internal/facts"

// setUdevID gives a test disk the identifiers udev's database holds.
func setUdevID(d *facts.BlockDevice, wwn, short, serial string) {
	d.UdevID = &facts.UdevID{WWN: wwn, SerialShort: short, Serial: serial}
}
