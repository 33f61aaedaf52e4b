package apply

import (
	"os"
	"path/filepath"
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

// A user modprobe.d file that would override 90-nastune.conf when the
// module loads loses that parameter (its other options stay), and undo
// restores the file byte for byte.
func TestModprobeOverrideEditRoundTrip(t *testing.T) {
	root := scratch(t)
	const admin = "# tuning\r\noptions zfs zfs_arc_max=1073741824 zfs_txg_timeout=30\r\n"
	if err := os.MkdirAll(filepath.Join(root, "etc/modprobe.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/modprobe.d/99-zfs.conf"), []byte(admin), 0o644); err != nil {
		t.Fatal(err)
	}
	before := digest(t, root)
	p := plan.Plan{Changes: []plan.Change{
		{ID: "sysfs-z", Kind: "sysfs", Target: "/sys/module/zfs/parameters/zfs_txg_timeout", From: "5", To: "10",
			Persist: &plan.Persist{File: plan.ModprobeFile, Line: "options zfs zfs_txg_timeout=10"}},
		{ID: "config-z", Kind: "config", Target: "/etc/modprobe.d/99-zfs.conf", From: "zfs.zfs_txg_timeout=30 (line 2)", To: "option taken out",
			Persist: &plan.Persist{File: "/etc/modprobe.d/99-zfs.conf", Edit: &plan.Edit{Format: "modprobe", Section: "zfs", Key: "zfs_txg_timeout", Value: "10"}}},
	}}
	if _, err := Apply(p, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	got := read(t, root, "etc/modprobe.d/99-zfs.conf")
	if !strings.Contains(got, "# options zfs zfs_arc_max=1073741824 zfs_txg_timeout=30\r\noptions zfs zfs_arc_max=1073741824\r\n") || !strings.Contains(got, "nastune undo") {
		t.Errorf("99-zfs.conf after apply: %q", got)
	}
	if own := read(t, root, "etc/modprobe.d/90-nastune.conf"); !strings.Contains(own, "options zfs zfs_txg_timeout=10\n") {
		t.Errorf("90-nastune.conf: %q", own)
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "etc/modprobe.d/99-zfs.conf"); got != admin {
		t.Errorf("after undo: %q", got)
	}
	if digest(t, root) != before {
		t.Error("undo did not restore the tree")
	}
	// Outside /etc/modprobe.d nothing is edited, whatever a plan says.
	for _, f := range []string{"/lib/modprobe.d/zfs.conf", "/etc/samba/smb.conf"} {
		bad := plan.Plan{Changes: []plan.Change{{ID: "config-x", Kind: "config", Target: f,
			Persist: &plan.Persist{File: f, Edit: &plan.Edit{Format: "modprobe", Section: "zfs", Key: "zfs_txg_timeout", Value: "10"}}}}}
		if _, err := Apply(bad, Options{Root: root}); err == nil {
			t.Errorf("modprobe edit of %s: no error", f)
		}
	}
}
