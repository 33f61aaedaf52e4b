package probe

import (
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

func TestParavirtualDisksAreNotAsked(t *testing.T) {
	for _, c := range []struct {
		d    facts.BlockDevice
		want bool
	}{
		{facts.BlockDevice{Name: "vda"}, true},
		{facts.BlockDevice{Name: "xvdb"}, true},
		{facts.BlockDevice{Name: "sdq", Driver: "virtio_blk"}, true},
		{facts.BlockDevice{Name: "sda", Transport: "virtio"}, true},
		// QEMU's emulated AHCI and NVMe disks answer SMART (kernel lab).
		{facts.BlockDevice{Name: "sda", Vendor: "ATA", Model: "QEMU HARDDISK", Transport: "sata"}, false},
		{facts.BlockDevice{Name: "nvme0n1", Model: "QEMU NVMe Ctrl", Transport: "nvme"}, false},
	} {
		if got := paravirtual(&c.d); got != c.want {
			t.Errorf("%+v: paravirtual = %v, want %v", c.d, got, c.want)
		}
	}
}
