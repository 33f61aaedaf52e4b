package rules

import (
	"context"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/rule"
)

// TestFindingsNameTheirDevice: every finding outside the health family
// whose subject begins with a whole disk's or md array's name carries that
// device as its Device, so the sick-disk note (which joins by Device)
// reaches it; and no finding names a device its subject does not.
func TestFindingsNameTheirDevice(t *testing.T) {
	hosts, err := fixture.Hosts(fixture.HostsDir())
	if err != nil {
		t.Fatal(err)
	}
	withDevice := 0
	for name := range hosts {
		root, err := hostfs.Open(fixture.HostDir(t, name))
		if err != nil {
			t.Fatal(err)
		}
		h := probe.Collect(context.Background(), root)
		root.Close()
		devs := map[string]bool{}
		for _, d := range h.Block {
			if d.Kind == "disk" {
				devs[d.Name] = true
			}
		}
		for _, a := range h.MD {
			devs[a.Name] = true
		}
		for _, f := range Run(rule.Input{Host: h}) {
			if f.Family == "health" {
				continue
			}
			want := ""
			if w := strings.Fields(f.Subject); len(w) > 0 && devs[w[0]] {
				want = w[0]
			}
			if f.Device != "" && !devs[f.Device] {
				continue // a partition or pool: joins nothing
			}
			if f.Device != want {
				t.Errorf("%s: %s %q: Device %q, want %q", name, f.ID, f.Subject, f.Device, want)
			}
			if f.Device != "" {
				withDevice++
			}
		}
	}
	if withDevice == 0 {
		t.Fatal("no finding names a device")
	}
}

// TestSickNoteJoinsByDevice: the note goes by Device, not by wording.
func TestSickNoteJoinsByDevice(t *testing.T) {
	yes := false
	h := &facts.Host{Block: []facts.BlockDevice{{Name: "sda", Kind: "disk",
		Health: &facts.DiskHealth{SMART: &facts.SMART{Passed: &yes}}}}}
	fs := noteSickDisks(h, []rule.Finding{
		{ID: "blk-scheduler", Family: "block", Subject: "sda", Why: "w.", Device: "sda"},
		{ID: "blk-scheduler", Family: "block", Subject: "sda", Why: "w."},
		{ID: "x", Family: "block", Subject: "other", Why: "w.", Device: "sda"},
	})
	if !strings.Contains(fs[0].Why, "sda is failing") || fs[1].Why != "w." || !strings.Contains(fs[2].Why, "sda is failing") {
		t.Errorf("notes: %q / %q / %q", fs[0].Why, fs[1].Why, fs[2].Why)
	}
}
