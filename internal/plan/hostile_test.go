package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/confsyntax/udevtok"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/rule"
)

// hostileIDs are serials, WWNs and models a device (a USB/UAS bridge, an
// iSCSI or SAS target) can report. Each is given to one disk as its sysfs
// wwid, serial, model and udev identifiers.
var hostileIDs = []string{
	`naa.5000c500", RUN+="/bin/sh -c 'id>/tmp/pwned'"`,
	`0x5",RUN+="/tmp/x`,
	"ZDH0\nRUN+=\"/bin/sh\"",
	"ZDH0|*",
	"ZDH0*", "ZDH?", "[Z]DH0",
	`ZDH0\`, `ZDH0\"`,
	"ZDH0\x00RUN",
	strings.Repeat("Z", 5000),
	"ZDH0_Ωμέγα",
	"ZDH0\x1b]0;owned\x07",
	"ZDH0, RUN+=\"x\"",
	"$env{HOME}", "%k",
}

var udevAttrs = map[string]bool{"queue/scheduler": true, "device/timeout": true, "queue/read_ahead_kb": true}

// hostileHost: disk i carries hostileIDs[i]; sdz is a clean disk (the
// positive control).
func hostileHost() (*facts.Host, []rule.Finding) {
	h := &facts.Host{}
	var fs []rule.Finding
	add := func(name string, d facts.BlockDevice) {
		d.Name, d.Kind = name, "disk"
		h.Block = append(h.Block, d)
		fs = append(fs, rule.Finding{ID: "blk-scheduler", Subject: name, Recommendation: &rule.Recommendation{
			Kind: rule.KindSysfs, Target: "/sys/block/" + name + "/queue/scheduler", Current: "cfq", Value: "mq-deadline"}})
	}
	for i, v := range hostileIDs {
		name := fmt.Sprintf("sd%c", 'a'+i)
		byid := fmt.Sprintf("scsi-35000c500a1b2c3%02d", i)
		d := facts.BlockDevice{WWN: v, Serial: v, Model: v, ByID: []string{byid}}
		setUdevID(&d, v, v, v)
		add(name, d)
		fs = append(fs, rule.Finding{ID: "health-erc-off", Subject: name, Recommendation: &rule.Recommendation{
			Kind: rule.KindERC, Target: "/dev/disk/by-id/" + byid, Current: "0,0", Value: "70,70"}})
	}
	clean := facts.BlockDevice{Serial: "ZDH04100", ByID: []string{"ata-ST4000VN008-2DR166_ZDH04100"}}
	setUdevID(&clean, "", "ZDH04100", "ST4000VN008-2DR166_ZDH04100")
	add("sdz", clean)
	fs = append(fs, rule.Finding{ID: "health-erc-off", Subject: "sdz", Recommendation: &rule.Recommendation{
		Kind: rule.KindERC, Target: "/dev/disk/by-id/ata-ST4000VN008-2DR166_ZDH04100", Current: "0,0", Value: "70,70"}})
	return h, fs
}

func checkRules(t *testing.T, where string, content string) int {
	t.Helper()
	rules := udevtok.ParseFile([]byte(content))
	for _, r := range rules {
		if err := udevtok.Intended(r, udevAttrs); err != nil {
			t.Errorf("%s: %v\n%q", where, err, content)
		}
	}
	return len(rules)
}

func clean(t *testing.T, what, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\n\r\x00\x1b\x07") {
		t.Errorf("%s holds a raw control byte: %q", what, s)
	}
}

// TestHostileDiskIDsNeverReachARule: whatever identifiers a disk reports,
// plan writes either a rule holding only the intended keys or a manual
// instruction, and the files apply writes hold only intended rules.
func TestHostileDiskIDsNeverReachARule(t *testing.T) {
	h, fs := hostileHost()
	p := plan.Make(h, fs)
	var controlRule, controlERC bool
	for _, c := range p.Changes {
		if c.Persist == nil || c.Persist.Line == "" {
			continue
		}
		clean(t, "line for "+c.Target, c.Persist.Line)
		if n := checkRules(t, c.Target, c.Persist.Line+"\n"); n != 1 {
			t.Errorf("%s: %d rules in one line: %q", c.Target, n, c.Persist.Line)
		}
		if c.Subject != "sdz" {
			t.Errorf("%s: a rule for a disk with hostile identifiers: %q", c.Subject, c.Persist.Line)
		}
		controlRule = controlRule || c.Persist.Line == `ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL_SHORT}=="ZDH04100", ATTR{queue/scheduler}="mq-deadline"`
		controlERC = controlERC || c.Persist.Line == `ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{ID_SERIAL}=="ST4000VN008-2DR166_ZDH04100", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k"`
	}
	if !controlRule || !controlERC {
		t.Errorf("the clean disk lost its rules (scheduler %v, ERC %v): %+v", controlRule, controlERC, p.Changes)
	}
	manual := map[string]int{}
	for _, m := range p.Manual {
		clean(t, "manual action", m.Action)
		manual[m.Subject]++
	}
	for i := range hostileIDs {
		if name := fmt.Sprintf("sd%c", 'a'+i); manual[name] == 0 {
			t.Errorf("%s (%q): no manual instruction", name, hostileIDs[i])
		}
	}

	// apply on a scratch root writes the rules files: every rule in them
	// is an intended one.
	root := t.TempDir()
	for _, d := range h.Block {
		f := filepath.Join(root, "sys/block", d.Name, "queue/scheduler")
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("cfq\n"), 0o644)
	}
	var noCmd plan.Plan
	for _, c := range p.Changes {
		c.Command = nil // smartctl is not run on a scratch root
		noCmd.Changes = append(noCmd.Changes, c)
	}
	if _, err := apply.Apply(noCmd, apply.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range []string{plan.UdevFile, plan.ERCUdevFile} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		clean(t, f, strings.TrimSuffix(strings.ReplaceAll(string(b), "\n", " "), " "))
		n += checkRules(t, f, string(b))
	}
	if n != 2 {
		t.Errorf("%d rules written, want the clean disk's 2", n)
	}
}

// TestHostileValuesInOtherSyntaxes: a sysctl key or value, a module
// option, a smb.conf section or value and nfsd's thread count that would
// break their file's syntax become manual instructions.
func TestHostileValuesInOtherSyntaxes(t *testing.T) {
	h := &facts.Host{NFS: &facts.NFS{ConfigFile: "/etc/default/nfs-kernel-server"}}
	rec := func(kind, target, value string) rule.Finding {
		return rule.Finding{ID: "x", Subject: target, Recommendation: &rule.Recommendation{Kind: kind, Target: target, Value: value}}
	}
	fs := []rule.Finding{
		rec(rule.KindSysctl, "vm.swappiness\nkernel.core_pattern", "|/tmp/x"),
		rec(rule.KindSysctl, "vm.swappiness", "10\nkernel.core_pattern = |/tmp/x"),
		rec(rule.KindSysctl, "-vm.swappiness", "10"),
		rec(rule.KindSysfs, "/sys/module/zfs/parameters/zfs_arc_max", "1 zfs_prefetch_disable=1"),
		rec(rule.KindSysfs, "/sys/module/zfs/parameters/zfs_arc_max", "1\ninstall zfs /bin/sh -c id"),
		rec(rule.KindConfig, "/etc/samba/smb.conf:[global]:server signing", "mandatory\n[evil]\npath = /\nwritable = yes"),
		rec(rule.KindConfig, "/etc/samba/smb.conf:[glo\nbal]:server signing", "mandatory"),
		rec(rule.KindConfig, "/etc/samba/smb.conf:[global]:server signing", "mandatory \\"),
		rec(rule.KindService, "/proc/fs/nfsd/threads", "8$(id>/tmp/x)"),
		rec(rule.KindService, "/proc/fs/nfsd/threads", "8\nRPCMOUNTDOPTS=--manage-gids"),
		rec(rule.KindSysctl, "vm.swappiness", "10"), // positive control
	}
	p := plan.Make(h, fs)
	if len(p.Changes) != 1 || p.Changes[0].Persist == nil || p.Changes[0].Persist.Line != "vm.swappiness = 10" {
		t.Errorf("changes: %+v", p.Changes)
	}
	if len(p.Manual) != len(fs)-1 {
		t.Errorf("%d manual instructions, want %d: %+v", len(p.Manual), len(fs)-1, p.Manual)
	}
	for _, m := range p.Manual {
		clean(t, "manual action", m.Action)
	}
	nfs := &facts.Host{}
	p = plan.Make(nfs, []rule.Finding{rec(rule.KindService, "/proc/fs/nfsd/threads", "8\n[mountd]\nmanage-gids = y")})
	if len(p.Changes) != 0 || len(p.Manual) != 1 {
		t.Errorf("nfs.conf: %+v", p)
	}
}

// TestManualCommandsAreInertShellWords: a manual instruction is a command
// the admin pastes into a root shell, so a device name a captured tree
// chose is one quoted word in it, never an expansion or a second command.
func TestManualCommandsAreInertShellWords(t *testing.T) {
	for _, dev := range []string{"/dev/disk/by-id/ata-x;reboot;$(id)`id`", "/dev/disk/by-id/ata-a b", "/dev/disk/by-id/ata-x'$(id)'"} {
		h := &facts.Host{}
		p := plan.Make(h, []rule.Finding{{ID: "health-erc-off", Subject: "sda", Recommendation: &rule.Recommendation{
			Kind: rule.KindERC, Target: dev, Current: "0,0", Value: "70,70"}}})
		if len(p.Manual) != 1 || len(p.Changes) != 0 {
			t.Fatalf("%q: want one manual step, got %+v", dev, p)
		}
		want := "smartctl -l scterc,70,70 '" + strings.ReplaceAll(dev, "'", `'\''`) + "'"
		if p.Manual[0].Action != want {
			t.Errorf("%q: manual step %s, want %s", dev, p.Manual[0].Action, want)
		}
	}
}
