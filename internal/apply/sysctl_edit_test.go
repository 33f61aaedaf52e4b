package apply

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/plan"
)

// A user sysctl file that would override 90-nastune.conf at boot has its
// line commented out by apply, and undo restores the file byte for byte.
func TestSysctlOverrideEditRoundTrip(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	p := plan.Plan{Changes: []plan.Change{
		{ID: "sysctl-2", Kind: "sysctl", Target: "vm.vfs_cache_pressure", From: "1000", To: "100", Runtime: "/proc/sys/vm/vfs_cache_pressure",
			Persist: &plan.Persist{File: plan.SysctlFile, Line: "vm.vfs_cache_pressure = 100"}},
		{ID: "config-9", Kind: "config", Target: "/etc/sysctl.d/99-nas-tuning.conf", From: "vm.vfs_cache_pressure = 1000 (line 1)", To: "line commented out",
			Persist: &plan.Persist{File: "/etc/sysctl.d/99-nas-tuning.conf", Edit: &plan.Edit{Format: "sysctl", Key: "vm.vfs_cache_pressure", Value: "100"}}},
	}}
	if _, err := Apply(p, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	got := read(t, root, "etc/sysctl.d/99-nas-tuning.conf")
	if !strings.Contains(got, "# vm.vfs_cache_pressure = 1000\n") || !strings.Contains(got, "nastune undo") {
		t.Errorf("99-nas-tuning.conf after apply: %q", got)
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "etc/sysctl.d/99-nas-tuning.conf"); got != "vm.vfs_cache_pressure = 1000\n" {
		t.Errorf("after undo: %q", got)
	}
	if digest(t, root) != before {
		t.Error("undo did not restore the tree")
	}
	// Outside /etc nothing is edited, whatever a plan says.
	bad := plan.Plan{Changes: []plan.Change{{ID: "config-x", Kind: "config", Target: "/usr/lib/sysctl.d/99-x.conf",
		Persist: &plan.Persist{File: "/usr/lib/sysctl.d/99-x.conf", Edit: &plan.Edit{Format: "sysctl", Key: "vm.swappiness", Value: "10"}}}}}
	if _, err := Apply(bad, Options{Root: root}); err == nil || !strings.Contains(err.Error(), "not a file nastune writes") {
		t.Errorf("edit of a packaged file: %v", err)
	}
}
