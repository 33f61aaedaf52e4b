package facts

import "strings"

// Spins tells whether the disk spins, preferring what the drive itself
// told smartctl over the block queue's rotational flag: USB bridges (and
// some RAID controllers) report rotational=1 for every device behind them,
// NVMe SSDs included. SMART's answer wins when one was read: the NVMe
// protocol (NVMe has no rotating media; USB-NVMe bridges such as
// sntjmicron/sntasmedia/sntrealtek report protocol NVMe too), else the
// rotation rate ("Rotation Rate: Solid State Device", JSON rotation_rate 0
// for SSDs, the RPM for hard disks). nil when nothing says.
func (d BlockDevice) Spins() *bool {
	if d.Health != nil && d.Health.SMART != nil {
		s := d.Health.SMART
		if strings.EqualFold(s.Protocol, "NVMe") || s.NVMe != nil {
			f := false
			return &f
		}
		if s.RotationRPM != nil {
			r := *s.RotationRPM > 0
			return &r
		}
	}
	return d.Rotational
}

// Aligned reports whether partition p starts on a boundary of disk d:
// (start × 512 − alignment_offset) is a multiple of max(physical block,
// minimum I/O, 512).
func (d BlockDevice) Aligned(p Partition) bool {
	unit := max(d.PhysBlockSize, d.MinIOSize, 512)
	return (int64(p.StartSector)*512-int64(d.AlignmentOffset))%int64(unit) == 0
}

// Virtual reports a paravirtual or emulated disk of a virtual machine
// (virtio, Xen, VMware, Hyper-V, VirtualBox, QEMU's emulated disks): its
// I/O is queued and sorted again by the host, which knows the real disks.
// Known from the driver (/sys/block/X/device/driver), the name (vdX,
// xvdX), the bus in the device path, or the vendor and model strings
// the hypervisor reports.
func (d BlockDevice) Virtual() bool {
	switch d.Driver {
	case "virtio_blk", "vbd", "xen-blkfront", "xen_blkfront":
		return true
	}
	if d.Transport == "virtio" || strings.HasPrefix(d.Name, "vd") || strings.HasPrefix(d.Name, "xvd") {
		return true
	}
	vm := strings.ToLower(strings.TrimSpace(d.Vendor) + " " + strings.TrimSpace(d.Model))
	for _, s := range []string{"qemu", "vmware", "msft virtual", "virtual disk", "vbox", "xen"} {
		if strings.Contains(vm, s) {
			return true
		}
	}
	return false
}
