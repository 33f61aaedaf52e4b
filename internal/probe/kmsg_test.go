package probe

import (
	"context"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
)

// mapperTree is a captured tree with the sysfs links of five disks: SATA
// on ata1, USB behind 2-1, two disks behind one port multiplier on ata3,
// NVMe; and an md array and a loop device, which are not disks.
const mapperTree = `
-- sys/block/sda -> ../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda --
-- sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/size --
7814037168
-- sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1/start --
2048
-- sys/block/sdb -> ../devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb --
-- sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb/size --
7814037168
-- sys/block/sdc -> ../devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sdc --
-- sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sdc/size --
7814037168
-- sys/block/sdd -> ../devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:1:0/2:1:0:0/block/sdd --
-- sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:1:0/2:1:0:0/block/sdd/size --
7814037168
-- sys/block/nvme0n1 -> ../devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1 --
-- sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1/size --
1000215216
-- sys/block/md0 -> ../devices/virtual/block/md0 --
-- sys/devices/virtual/block/md0/size --
7814037168
-- sys/block/loop0 -> ../devices/virtual/block/loop0 --
-- sys/devices/virtual/block/loop0/size --
1024
`

// TestKernelLogDisks maps kernel-log names to disks through the sysfs
// links a real tree has (read by the probe); names two disks share, and
// devices that are not disks, map to nothing.
func TestKernelLogDisks(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.Unpack(txtar.Parse([]byte(mapperTree)), dir); err != nil {
		t.Fatal(err)
	}
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h := Collect(context.Background(), root)
	got := KernelLogDisks(h)
	want := map[string]string{"sda": "sda", "sda1": "sda", "ata1": "sda", "host0": "sda", "0:0:0:0": "sda",
		"sdb": "sdb", "2-1": "sdb", "6:0:0:0": "sdb", "host6": "sdb",
		"sdc": "sdc", "2:0:0:0": "sdc", "sdd": "sdd", "2:1:0:0": "sdd",
		"nvme0n1": "nvme0n1", "nvme0": "nvme0n1"}
	for name, d := range want {
		if got[name] != d {
			t.Errorf("%s → %q, want %q", name, got[name], d)
		}
	}
	for name, d := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s → %q, want no mapping", name, d)
		}
	}
	// Every event the probe kept carries the same mapping.
	for _, ev := range kmsg.Parse([]byte("[1.0] ata3: hard resetting link\n[1.1] ata1.00: hard resetting link\n")) {
		if d := got[ev.Key]; (ev.Key == "ata1") != (d == "sda") {
			t.Errorf("%s → %q", ev.Key, d)
		}
	}
}

// Two namespaces on one controller: "nvme0" cannot say which.
func TestKernelLogDisksSharedController(t *testing.T) {
	h := &facts.Host{Block: []facts.BlockDevice{{Name: "nvme0n1", Kind: "disk"}, {Name: "nvme0n2", Kind: "disk"}, {Name: "nvme1n1", Kind: "disk"}}}
	got := KernelLogDisks(h)
	if _, ok := got["nvme0"]; ok || got["nvme1"] != "nvme1n1" {
		t.Errorf("got %v", got)
	}
}

// TestKmsgLinesDropsUserRecords: the live read (one record per read, as
// /dev/kmsg returns them) keeps the kernel's records and leaves out what
// user space wrote, however much it looks like a kernel message.
func TestKmsgLinesDropsUserRecords(t *testing.T) {
	recs := []string{
		"6,1,1000000,-;ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n SUBSYSTEM=scsi\n",
		"11,2,2000000,-;critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n",
		"12,3,3000000,-;ata1.00: error: { UNC }\n",
		"6,4,4000000,-;traps: a.out[4321] general protection fault ip:401000 sp:7ffd00000000 error:0 in critical medium error, dev sda, sector 2048[400000+1000]\n",
		"3,5,5000000,-;critical medium error, dev sdb, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n",
	}
	i := 0
	read := func(b []byte) (int, error) {
		if i == len(recs) {
			return 0, unix.EAGAIN
		}
		i++
		return copy(b, recs[i-1]), nil
	}
	b, err := hostfs.ReplayKernelLog(pathKmsg, read).Append(nil, kmsgMax)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "[    2.000000]") || strings.Contains(string(b), "UNC") {
		t.Errorf("user-space records kept:\n%s", b)
	}
	var kinds []string
	for _, ev := range kmsg.Parse(b) {
		kinds = append(kinds, ev.Kind+" "+ev.Key)
	}
	if strings.Join(kinds, ",") != "link-up ata1,media sdb" {
		t.Errorf("events %v, want the kernel's link-up on ata1 and medium error on sdb only", kinds)
	}
}
