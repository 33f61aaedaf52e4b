package apply

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/plan"
)

// TestApplyRefusesLinesItsWritersWouldNotMake: apply checks every owned
// line and every edit with the config syntax's writer just before writing,
// whoever built the plan: a line holding more than the intended keys or a
// value outside the syntax's safe set changes nothing.
func TestApplyRefusesLinesItsWritersWouldNotMake(t *testing.T) {
	sched := func(p *plan.Persist) plan.Change {
		return plan.Change{ID: "sysfs-1", Kind: "sysfs", Target: "/sys/block/sda/queue/scheduler", From: "cfq", To: "deadline",
			Runtime: "/sys/block/sda/queue/scheduler", Persist: p}
	}
	udev := func(line string) plan.Change { return sched(&plan.Persist{File: plan.UdevFile, Line: line}) }
	edit := func(file, format, section, key, value string) plan.Change {
		return plan.Change{ID: "config-1", Kind: "config", Target: file, To: value,
			Persist: &plan.Persist{File: file, Edit: &plan.Edit{Format: format, Section: section, Key: key, Value: value}}}
	}
	for name, c := range map[string]plan.Change{
		"udev RUN after a quote": udev(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_WWN}=="naa.5", RUN+="/bin/sh -c id", ATTR{queue/scheduler}="deadline"`),
		"udev RUN no space":      udev(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_WWN}=="0x5",RUN+="/tmp/x", ATTR{queue/scheduler}="deadline"`),
		"udev newline":           udev("ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{ID_WWN}==\"a\"\nRUN+=\"/bin/sh\", ATTR{queue/scheduler}=\"deadline\""),
		"udev alternatives":      udev(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL}=="a|*", ATTR{queue/scheduler}="deadline"`),
		"udev PROGRAM":           udev(`ACTION=="add|change", SUBSYSTEM=="block", PROGRAM=="/bin/sh -c id", ATTR{queue/scheduler}="deadline"`),
		"udev other attribute":   udev(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL}=="a", ATTR{device/delete}="1"`),
		"udev substitution":      udev(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL}=="a", ATTR{queue/scheduler}="$env{X}"`),
		"udev ERC with extra":    udev(`ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{ID_SERIAL}=="a", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k; reboot"`),
		"sysctl newline": {ID: "sysctl-1", Kind: "sysctl", Target: "vm.vfs_cache_pressure", To: "100", Runtime: "/proc/sys/vm/vfs_cache_pressure",
			Persist: &plan.Persist{File: plan.SysctlFile, Line: "vm.vfs_cache_pressure = 100\nkernel.core_pattern = |/tmp/x"}},
		"modprobe install": sched(&plan.Persist{File: plan.ModprobeFile, Line: "install zfs /bin/sh -c id"}),
		"modprobe space":   sched(&plan.Persist{File: plan.ModprobeFile, Line: "options zfs zfs_arc_max=1 zfs_prefetch_disable=1"}),
		"smb.conf section": edit("/etc/samba/smb.conf", "smbconf", "global", "server signing", "mandatory\n[evil]\npath = /"),
		"smb.conf name":    edit("/etc/samba/smb.conf", "smbconf", "global", "include = /tmp/x\nserver signing", "mandatory"),
		"shell var":        edit("/etc/default/nfs-kernel-server", "shellvar", "", "RPCNFSDCOUNT", "8;id"),
		"nfs.conf":         edit("/etc/nfs.conf", "ini", "nfsd", "threads", "8\n[mountd]\nmanage-gids=y"),
	} {
		root := scratch(t)
		before := digest(t, root)
		_, err := Apply(plan.Plan{Changes: []plan.Change{c}}, Options{Root: root})
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: applied (err %v)", name, err)
		}
		if after := digest(t, root); after != before {
			t.Errorf("%s: the tree changed", name)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n\x1b\x00") {
			t.Errorf("%s: the error echoes a raw control byte: %q", name, err)
		}
	}
}
