package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/render"
)

// TestDiskTableStripeCacheNotRead: an array whose stripe_cache_size was not
// read (raid1 has none; a capture of /proc/mdstat without sys/) shows "-",
// not a cache of 0 entries; a read value is shown as is.
func TestDiskTableStripeCacheNotRead(t *testing.T) {
	d := inventory.Disks{Arrays: []facts.MDArray{
		{Name: "md0", Level: "raid1", RaidDisks: 2, Status: "UU"},
		{Name: "md1", Level: "raid5", RaidDisks: 4, Status: "UUUU", StripeCacheSize: 4096},
	}}
	var buf bytes.Buffer
	if err := render.DiskTables(&buf, d); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "md0":
			if strings.Contains(" "+line+" ", " 0 ") {
				t.Errorf("md0 (no stripe cache read) shows 0: %q", line)
			}
		case "md1":
			if !strings.Contains(line, "4096") {
				t.Errorf("md1 lacks its stripe_cache_size 4096: %q", line)
			}
		}
	}
}
