package plan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/modprobed"
	"github.com/nastune/nastune/internal/rule"
)

// A zfs option in 90-nastune.conf persists only when no option modprobe
// applies after it sets the same parameter. A later admin file in
// /etc/modprobe.d loses the parameter (a config change, made here as
// apply makes it); any other later file leaves the change runtime-only,
// said plainly. The oracle is the real modprobe's order (--showconfig on
// a scratch tree with nastune's line and the edits in place); the kernel
// keeps the last value of a parameter (parse_args sets it once per
// occurrence).
func TestModprobePersistence(t *testing.T) {
	mp, err := exec.LookPath("modprobe")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("modprobe not installed (Debian package kmod)")
		}
		t.Skip("modprobe not installed (Debian package kmod)")
	}
	const param = "zfs_txg_timeout"
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string // /etc name → target
		lost  string            // Persist.Overridden prefix ("" persistent)
		edits []string          // files the plan edits
	}{
		{"nothing else", nil, nil, "", nil},
		{"an earlier file", map[string]string{"/etc/modprobe.d/10-zfs.conf": "options zfs zfs_txg_timeout=30\n"}, nil, "", nil},
		{"a later /etc file", map[string]string{"/etc/modprobe.d/99-zfs.conf": "options zfs zfs_arc_max=1 zfs_txg_timeout=30\n"}, nil,
			"", []string{"/etc/modprobe.d/99-zfs.conf"}},
		{"two later /etc files", map[string]string{
			"/etc/modprobe.d/95-zfs.conf": "options zfs zfs_txg_timeout=20\noptions zfs zfs-txg-timeout=25\n",
			"/etc/modprobe.d/99-zfs.conf": "options zfs zfs_arc_max=1 \\\n  zfs_txg_timeout=30\n"}, nil,
			"", []string{"/etc/modprobe.d/99-zfs.conf", "/etc/modprobe.d/95-zfs.conf"}},
		{"a later packaged file, dashes for underscores", map[string]string{"/usr/lib/modprobe.d/zfs.conf": "# pkg\noptions zfs zfs-txg-timeout=30\n"}, nil,
			"/usr/lib/modprobe.d/zfs.conf:2", nil},
		{"a later /etc file and a packaged file after it", map[string]string{
			"/etc/modprobe.d/95-zfs.conf": "options zfs zfs_txg_timeout=20\n",
			"/lib/modprobe.d/zfs.conf":    "options zfs zfs_txg_timeout=30\n"}, nil,
			"/lib/modprobe.d/zfs.conf:1", nil},
		{"a later /etc link to a packaged file", map[string]string{"/usr/lib/modprobe.d/zfs-pkg.conf": "options zfs zfs_txg_timeout=30\n"},
			map[string]string{"/etc/modprobe.d/zfs.conf": "/usr/lib/modprobe.d/zfs-pkg.conf"}, "/etc/modprobe.d/zfs.conf:1", nil},
		{"a later file with our value", map[string]string{"/etc/modprobe.d/99-zfs.conf": "options zfs zfs_txg_timeout=10\n"}, nil, "", nil},
		{"a later file masked by an /etc file of that name", map[string]string{
			"/usr/lib/modprobe.d/99-zfs.conf": "options zfs zfs_txg_timeout=30\n",
			"/etc/modprobe.d/99-zfs.conf":     "options zfs zfs_arc_max=1\n"}, nil, "", nil},
		{"another module's parameter of that name", map[string]string{"/etc/modprobe.d/99-x.conf": "options spl zfs_txg_timeout=30\n"}, nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			h := &facts.Host{}
			f := rule.Finding{ID: "zfs-txg", Subject: "zfs", Recommendation: &rule.Recommendation{
				Kind: rule.KindSysfs, Target: "/sys/module/zfs/parameters/" + param, Current: "5", Value: "10"}}
			// Facts as the probe records them: the files after ours.
			found := map[string][]string{}
			for name, body := range tt.files {
				writeIn(t, root, name, body)
				found[filepath.Dir(name)] = append(found[filepath.Dir(name)], filepath.Base(name))
			}
			for name, to := range tt.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(root, to), filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
				found[filepath.Dir(name)] = append(found[filepath.Dir(name)], filepath.Base(name))
			}
			seen := map[string]bool{}
			for _, name := range modprobed.Order(found) {
				if filepath.Base(name) <= "90-nastune.conf" {
					continue
				}
				link := tt.links[name]
				if seen[link] && link != "" {
					continue
				}
				seen[link] = true
				b, _ := os.ReadFile(filepath.Join(root, name))
				for _, o := range modprobed.Options(b) {
					h.ModprobeLater = append(h.ModprobeLater, facts.ModprobeOption{File: name, Link: link, Line: o.Line, Module: o.Module, Param: o.Param, Value: o.Value})
				}
			}
			p := Make(h, []rule.Finding{f})
			if len(p.Changes) != 1+len(tt.edits) || p.Changes[0].Persist == nil {
				t.Fatalf("plan: %+v %+v", p.Changes, p.Manual)
			}
			ps := p.Changes[0].Persist
			if !strings.HasPrefix(ps.Overridden, tt.lost) || (tt.lost == "") != (ps.Overridden == "") {
				t.Errorf("Overridden = %q, want prefix %q", ps.Overridden, tt.lost)
			}
			for i, want := range tt.edits {
				c := p.Changes[1+i]
				if c.Kind != "config" || c.Target != want || c.Persist.Edit == nil || c.Persist.Edit.Format != "modprobe" {
					t.Fatalf("change %d: %+v, want the modprobe edit of %s", 1+i, c, want)
				}
				// As apply edits it (internal/apply's "modprobe" format).
				e := c.Persist.Edit
				b, err := os.ReadFile(filepath.Join(root, c.Target))
				if err != nil {
					t.Fatal(err)
				}
				b, n := modprobed.DisableOption(b, e.Section, e.Key, "nastune: test")
				if n == 0 {
					t.Errorf("%s: nothing taken out", c.Target)
				}
				writeIn(t, root, c.Target, string(b))
			}
			if tt.lost != "" && !strings.Contains(strings.Join(p.Notes, "\n"), "will NOT survive a reboot: "+tt.lost) {
				t.Errorf("notes %q do not name %s", p.Notes, tt.lost)
			}

			// The oracle: the value zfs would get from the real modprobe's
			// option order, nastune's file written as apply writes it.
			writeIn(t, root, ModprobeFile, ps.Line+"\n")
			var args []string
			for _, d := range modprobed.Dirs {
				args = append(args, "-C", filepath.Join(root, d))
			}
			out, err := exec.Command(mp, append(args, "--showconfig")...).Output()
			if err != nil {
				t.Fatalf("modprobe --showconfig: %v", err)
			}
			last := ""
			for _, l := range strings.Split(string(out), "\n") {
				if rest, ok := strings.CutPrefix(l, "options zfs "); ok {
					for _, w := range strings.Fields(rest) {
						if k, v, _ := strings.Cut(w, "="); modprobed.Name(k) == param {
							last = v
						}
					}
				}
			}
			if persistent := last == "10"; persistent != (ps.Overridden == "") {
				t.Errorf("modprobe's order gives %s=%s; plan says overridden %q", param, last, ps.Overridden)
			}
		})
	}
}

func TestModprobeCmdlineOverrides(t *testing.T) {
	h := &facts.Host{ModprobeLater: []facts.ModprobeOption{{File: "/proc/cmdline", Module: "zfs", Param: "zfs_txg_timeout", Value: "30"}}}
	f := rule.Finding{ID: "zfs-txg", Subject: "zfs", Recommendation: &rule.Recommendation{
		Kind: rule.KindSysfs, Target: "/sys/module/zfs/parameters/zfs_txg_timeout", Current: "5", Value: "10"}}
	p := Make(h, []rule.Finding{f})
	if len(p.Changes) != 1 || !strings.HasPrefix(p.Changes[0].Persist.Overridden, "the kernel command line") {
		t.Fatalf("plan: %+v", p.Changes)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "boot loader") {
		t.Errorf("notes: %q", p.Notes)
	}
}

func writeIn(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// zfs with / on ZFS loads from the initramfs, which holds its own copy of
// modprobe.d: the change says the initramfs must be rebuilt; with / on
// another file system it does not.
func TestModprobeInitramfs(t *testing.T) {
	f := rule.Finding{ID: "zfs-txg", Subject: "zfs", Recommendation: &rule.Recommendation{
		Kind: rule.KindSysfs, Target: "/sys/module/zfs/parameters/zfs_txg_timeout", Current: "5", Value: "10"}}
	for _, fstype := range []string{"zfs", "ext4"} {
		h := &facts.Host{Mounts: []facts.Mount{{Device: "rpool/ROOT/debian", MountPoint: "/", FSType: fstype}}}
		p := Make(h, []rule.Finding{f})
		needs := strings.Join(p.Changes[0].Needs, "; ")
		if got := strings.Contains(needs, "update-initramfs -u"); got != (fstype == "zfs") {
			t.Errorf("/ on %s: needs %q", fstype, needs)
		}
	}
}
