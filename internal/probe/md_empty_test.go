package probe

import (
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// An md array whose sync_speed_min/max files are empty (a truncated
// capture) is still described from /proc/mdstat: the probe must not panic.
func TestMDEmptySpeedLimit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"proc/mdstat":                     "Personalities : [raid1]\nmd0 : active raid1 sdb1[1] sda1[0]\n      1046528 blocks super 1.2 [2/2] [UU]\n\nunused devices: <none>\n",
		"sys/block/md0/md/level":          "raid1\n",
		"sys/block/md0/md/raid_disks":     "2\n",
		"sys/block/md0/md/sync_speed_min": "",
		"sys/block/md0/md/sync_speed_max": "",
	}
	fixture.WriteTree(t, dir, files)
	h := collect(t, dir)
	if len(h.MD) != 1 || h.MD[0].Name != "md0" {
		t.Fatalf("want md0 described, got %+v", h.MD)
	}
}
