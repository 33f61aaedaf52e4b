package render_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
)

// TestDiskTableHealth pins `inventory disks` on the health fixture: the
// HEALTH, TEMP and POWER-ON columns in human units, a sleeping disk shown
// as standby, a disk without SMART as "-".
func TestDiskTableHealth(t *testing.T) {
	root, err := hostfs.Open(fixture.HostDir(t, "health-raid"))
	if err != nil {
		t.Fatal(err)
	}
	h := probe.Collect(context.Background(), root)
	root.Close()
	var buf bytes.Buffer
	if err := render.DiskTables(&buf, inventory.DiskTable(h)); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "inventory-disks-health-raid.txt"), buf.Bytes())
	for _, want := range []string{"HEALTH", "failing", "standby", "53°C", "7.5y"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("inventory disks lacks %q:\n%s", want, buf.String())
		}
	}
}
