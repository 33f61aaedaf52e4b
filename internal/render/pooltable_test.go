package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/inventory"
)

// The pool table: an ashift zdb did not report is the pool's default, never
// "0"; a replacing-N position counts once in DEVICES.
func TestPoolTableAshiftAndWidth(t *testing.T) {
	tests := []struct {
		vdev facts.Vdev
		want string
	}{
		{facts.Vdev{Name: "raidz2-0", Type: "raidz2", Devices: []string{"a", "b", "c", "d-old", "d", "e"}, Slots: 5}, "raidz2-0  data  raidz2  pool default  5"},
		{facts.Vdev{Name: "mirror-1", Type: "mirror", Devices: []string{"x", "y"}, Ashift: 12}, "mirror-1  data  mirror  12            2"},
		// openzfs/zfs#3267: a log mirror and cache devices are not data vdevs.
		{facts.Vdev{Name: "mirror-1", Type: "mirror", Class: "logs", Devices: []string{"sda3", "sdb3"}}, "mirror-1 log mirror pool default 2"},
		{facts.Vdev{Name: "sda4", Type: "disk", Class: "cache", Devices: []string{"sda4"}}, "sda4 cache disk pool default 1"},
		{facts.Vdev{Name: "sdz", Type: "disk", Class: "spares", Devices: []string{"sdz"}}, "sdz spare disk pool default 1"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		d := inventory.Disks{Pools: []facts.Pool{{Name: "tank", Health: "DEGRADED", Vdevs: []facts.Vdev{tt.vdev}}}}
		if err := DiskTables(&b, d); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), strings.Join(strings.Fields(tt.want), " ")) {
			t.Errorf("got\n%s\nwant a row with %q", b.String(), tt.want)
		}
	}
}

// check_raid issue 34 (testdata/real/attack-md-imsm-container-volume-active):
// the IMSM container is shown as a container, not a level-less array of
// spares; its volume names it.
func TestMDContainerRow(t *testing.T) {
	d := inventory.Disks{Arrays: []facts.MDArray{
		{Name: "md127", Level: "raid1", Metadata: "external:/md0/0", Status: "UU", RaidDisks: 2,
			Members: []facts.MDMember{{Device: "sda", Role: "active"}, {Device: "sdb", Role: "active"}}},
		{Name: "md0", Metadata: "external:imsm", Inactive: true,
			Members: []facts.MDMember{{Device: "sda", Role: "spare"}, {Device: "sdb", Role: "spare"}}},
		{Name: "md1", Level: "raid5", Metadata: "1.2", Members: []facts.MDMember{{Device: "sdc", Role: "spare"}}},
	}}
	var b bytes.Buffer
	if err := DiskTables(&b, d); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{"md127 raid1 in md0", "md0 container imsm", "sda sdb", "sdc(spare)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "sda(spare)") {
		t.Errorf("container members shown as spares:\n%s", b.String())
	}
}
