package tune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// TestStripeCacheDuringReshape: md/raid_disks reads "12 (11)" while a
// reshape changes the member count (kernfmt.ParseMDRaidDisks); the
// stripe cache's memory is counted for the larger count, and the knob is
// still offered (a plain integer read refused the file and dropped it).
func TestStripeCacheDuringReshape(t *testing.T) {
	sys := sysTree(t)
	if err := os.WriteFile(filepath.Join(sys, "devices/virtual/block/md0/md/raid_disks"), []byte("12 (11)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 2 << 30, AvailableBytes: 1 << 30}}
	// 2 GiB: 10% allows 214 MB; 4096 entries × 4 KiB × 12 disks = 201 MB.
	for _, k := range Knobs(sys, []Device{{Name: "md0", Kind: "md"}}, h) {
		if k.Attr == "stripe_cache_size" {
			if got := strings.Join(k.Values, ","); got != "1024,4096" {
				t.Errorf("values %s, want 1024,4096 (12 disks)", got)
			}
			return
		}
	}
	t.Error("no stripe_cache_size knob during a reshape")
}
