package rules_test

import (
	"strings"
	"testing"
)

// In a virtual machine the host schedules the real disks: a virtio, Xen,
// VMware or Hyper-V disk that says rotational=1 with scheduler none gets
// no scheduler warning. The virtio tree is laid out as the Debian 6.1
// kernel in the qemu lab shows it (virtio-blk on PCI 00:04.0); the
// VMware and Hyper-V vendor/model strings are what their virtual SCSI
// disks report in /sys/block/sdX/device/{vendor,model}.
func TestSchedulerVirtualDisks(t *testing.T) {
	disk := func(name, devpath, driver, vendor, model string) map[string]string {
		real := "sys/devices/" + devpath + "/block/" + name
		m := map[string]string{
			"sys/block/" + name + " -> ../devices/" + devpath + "/block/" + name: "",
			real + "/size":             "209715200\n",
			real + "/queue/scheduler":  "[none] mq-deadline\n",
			real + "/queue/rotational": "1\n",
		}
		if driver != "" {
			m[real+"/device/driver -> ../../../../bus/"+driver] = ""
		}
		if vendor != "" {
			m[real+"/device/vendor"] = vendor + "\n"
			m[real+"/device/model"] = model + "\n"
		}
		return m
	}
	tests := []struct {
		name  string
		files map[string]string
		dev   string
		warn  bool
	}{
		{"virtio-blk in qemu", disk("vda", "pci0000:00/0000:00:04.0/virtio1", "virtio/drivers/virtio_blk", "", ""), "vda", false},
		{"virtio-blk without the driver link", disk("vdb", "pci0000:00/0000:00:05.0/virtio2", "", "", ""), "vdb", false},
		{"Xen blkfront", disk("xvda", "vbd-51712", "xen/drivers/vbd", "", ""), "xvda", false},
		{"VMware pvscsi disk", disk("sda", "pci0000:00/0000:00:15.0/0000:03:00.0/host2/target2:0:0/2:0:0:0", "scsi/drivers/sd", "VMware", "Virtual disk"), "sda", false},
		{"Hyper-V storvsc disk", disk("sdb", "LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/host0/target0:0:0/0:0:0:0", "scsi/drivers/sd", "Msft", "Virtual Disk"), "sdb", false},
		{"QEMU emulated SATA disk", disk("sdc", "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0", "scsi/drivers/sd", "ATA", "QEMU HARDDISK"), "sdc", false},
		{"real SATA disk on none", disk("sdd", "pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0", "scsi/drivers/sd", "ATA", "WDC WD40EFRX-68N"), "sdd", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, fs := runTree(t, tt.files)
			found := false
			for _, d := range h.Block {
				found = found || d.Name == tt.dev
				for p := range tt.files {
					if _, target, ok := strings.Cut(p, "/device/driver -> "); ok && d.Name == tt.dev && !strings.HasSuffix(target, "/"+d.Driver) {
						t.Errorf("driver of %s read as %q, link %s", d.Name, d.Driver, target)
					}
				}
			}
			if !found {
				t.Fatalf("%s not probed: %+v", tt.dev, h.Block)
			}
			got := byID(fs, "blk-scheduler")
			warned := false
			for _, f := range got {
				if f.Subject == tt.dev && f.Severity.String() != "info" {
					warned = true
				}
			}
			if warned != tt.warn {
				t.Errorf("blk-scheduler warn on %s = %v, want %v (%d findings)", tt.dev, warned, tt.warn, len(got))
			}
			if tt.warn && (len(got) != 1 || !strings.Contains(got[0].Recommendation.Value, "mq-deadline")) {
				t.Errorf("real disk: %+v", got)
			}
		})
	}
}
