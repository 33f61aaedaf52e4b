package watch

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
)

// The devices under md and dm are whole disks (a member partition is its
// disk); a loop device's backing file is followed on the live system
// only (a tree's files have the analysing machine's device numbers).
func TestBelow(t *testing.T) {
	dir := t.TempDir()
	v := "sys/devices/virtual/block/"
	sd := "sys/devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/"
	fixture.WriteTree(t, dir, map[string]string{
		sd + "sda/sda1/partition":                                    "1\n",
		sd + "sdb/sdb1/partition":                                    "1\n",
		"sys/class/block/sda1 -> ../../" + sd[4:] + "sda/sda1":       "",
		"sys/class/block/sdb1 -> ../../" + sd[4:] + "sdb/sdb1":       "",
		"sys/class/block/loop0 -> ../../devices/virtual/block/loop0": "",
		v + "md0/md/level":                                           "raid1\n",
		v + "md0/slaves/sda1 -> ../../../../pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1": "",
		v + "md0/slaves/sdb1 -> ../../../../pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sdb/sdb1": "",
		v + "dm-0/dm/name":                                  "crypt\n",
		v + "dm-0/slaves/loop0 -> ../../loop0":              "",
		v + "loop0/loop/backing_file":                       "/srv/disk.img\n",
		"srv/disk.img":                                      "x",
		"sys/block/md0 -> ../devices/virtual/block/md0":     "",
		"sys/block/dm-0 -> ../devices/virtual/block/dm-0":   "",
		"sys/block/loop0 -> ../devices/virtual/block/loop0": "",
	})
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sys := blockdev.New(root)
	for n, want := range map[string]string{"md0": "sda sdb", "dm-0": "loop0", "loop0": ""} {
		if got := strings.Join(below(sys, n), " "); got != want {
			t.Errorf("below %s: %q, want %q", n, got, want)
		}
	}
}
