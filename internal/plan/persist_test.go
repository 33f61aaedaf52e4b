package plan

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Persistence that is true: a sysctl change persists only when the boot
// model says 90-nastune.conf's line is the one in effect at boot.
func TestSysctlPersistence(t *testing.T) {
	set := func(file string, line int, key, val string) facts.SysctlSetting {
		return facts.SysctlSetting{Key: key, Value: val, File: file, Line: line}
	}
	const key = "vm.vfs_cache_pressure"
	tests := []struct {
		name      string
		applier   string
		config    []facts.SysctlSetting
		editFile  string // file the plan comments the key out of ("" none)
		overriden string // Persist.Overridden prefix ("" persistent)
	}{
		{"nothing else sets it", "systemd-sysctl", nil, "", ""},
		{"an earlier file loses to ours", "systemd-sysctl", []facts.SysctlSetting{set("/etc/sysctl.d/10-tune.conf", 2, key, "1000")}, "", ""},
		{"a later /etc file is commented out", "systemd-sysctl", []facts.SysctlSetting{set("/etc/sysctl.d/99-nas-tuning.conf", 4, key, "1000")},
			"/etc/sysctl.d/99-nas-tuning.conf", ""},
		{"a later file with our value is left alone", "systemd-sysctl", []facts.SysctlSetting{set("/etc/sysctl.d/99-nas-tuning.conf", 4, key, "100")}, "", ""},
		{"Debian's link: the real /etc/sysctl.conf is edited", "systemd-sysctl",
			[]facts.SysctlSetting{{Key: key, Value: "1000", File: "/etc/sysctl.d/99-sysctl.conf", Link: "/etc/sysctl.conf", Line: 30}},
			"/etc/sysctl.conf", ""},
		{"no link: systemd-sysctl never reads /etc/sysctl.conf", "systemd-sysctl", []facts.SysctlSetting{set("/etc/sysctl.conf", 30, key, "1000")}, "", ""},
		{"no link: sysctl --system reads it last", "", []facts.SysctlSetting{set("/etc/sysctl.conf", 30, key, "1000")}, "/etc/sysctl.conf", ""},
		{"a packaged file is not edited: not persistent", "systemd-sysctl", []facts.SysctlSetting{set("/usr/lib/sysctl.d/99-vendor.conf", 1, key, "1000")},
			"", "/usr/lib/sysctl.d/99-vendor.conf:1"},
		{"a /run file is not edited", "systemd-sysctl", []facts.SysctlSetting{set("/run/sysctl.d/95-x.conf", 1, key, "1000")},
			"", "/run/sysctl.d/95-x.conf:1"},
		// sysctl.d(5): an explicit key is excluded from every glob, whatever the order.
		{"a later glob loses to our explicit line", "systemd-sysctl", []facts.SysctlSetting{set("/etc/sysctl.d/99-all.conf", 1, "vm.vfs_cache_*", "1000")},
			"", ""},
		{"our old line in the file is replaced, not a rival", "systemd-sysctl", []facts.SysctlSetting{set(SysctlFile, 1, key, "50")}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &facts.Host{SysctlConfig: tt.config, SysctlApplier: tt.applier}
			f := rule.Finding{ID: "mem-vfs-cache-pressure", Subject: key,
				Recommendation: &rule.Recommendation{Kind: rule.KindSysctl, Target: key, Current: "1000", Value: "100"}}
			p := Make(h, []rule.Finding{f})
			var sc *Change
			edits := map[string]string{}
			for i := range p.Changes {
				c := &p.Changes[i]
				switch {
				case c.Kind == rule.KindSysctl:
					sc = c
				case c.Persist != nil && c.Persist.Edit != nil && c.Persist.Edit.Format == "sysctl":
					edits[c.Persist.File] = c.Persist.Edit.Key
				}
			}
			if sc == nil || sc.Persist == nil || sc.Persist.File != SysctlFile {
				t.Fatalf("no sysctl change persisted in %s: %+v", SysctlFile, p.Changes)
			}
			if tt.editFile == "" && len(edits) != 0 || tt.editFile != "" && (len(edits) != 1 || edits[tt.editFile] != key) {
				t.Errorf("edits = %v, want %q", edits, tt.editFile)
			}
			if !strings.HasPrefix(sc.Persist.Overridden, tt.overriden) || (tt.overriden == "") != (sc.Persist.Overridden == "") {
				t.Errorf("Overridden = %q, want %q", sc.Persist.Overridden, tt.overriden)
			}
			notes := strings.Join(p.Notes, "\n")
			if tt.overriden != "" && !strings.Contains(notes, "will NOT survive a reboot") {
				t.Errorf("notes do not say it will not survive a reboot: %q", notes)
			}
			if tt.editFile != "" && !strings.Contains(notes, "comments it out") {
				t.Errorf("notes do not explain the edit: %q", notes)
			}
		})
	}
}

// A later udev rules file writing the same attribute is named.
func TestUdevOverrides(t *testing.T) {
	h := &facts.Host{
		Block:     []facts.BlockDevice{{Name: "sda", Kind: "disk", Serial: "WD-1"}},
		UdevLater: []facts.UdevAssign{{File: "/etc/udev/rules.d/99-local.rules", Line: 3, Attr: "queue/read_ahead_kb", Value: "16384"}},
	}
	changes := []Change{{Kind: rule.KindSysfs, Target: "/sys/block/sda/queue/read_ahead_kb", To: "512",
		Persist: &Persist{File: UdevFile, Line: `ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="WD-1", ATTR{queue/read_ahead_kb}="512"`}}}
	notes := udevOverrides(h, changes)
	if len(notes) != 1 || !strings.Contains(notes[0], "/etc/udev/rules.d/99-local.rules:3") {
		t.Errorf("notes = %q", notes)
	}
	changes[0].Persist.Line = `ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="WD-1", ATTR{queue/scheduler}="deadline"`
	if notes := udevOverrides(h, changes); len(notes) != 0 {
		t.Errorf("another attribute: %q", notes)
	}
}
