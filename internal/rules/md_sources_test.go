package rules_test

import (
	"strings"
	"testing"
)

// One source per array: the md6 line of procfs's /proc/mdstat fixture
// with sysfs folders that agree, that disagree (procfs's own
// sys/block/md6/md describes a 4-disk raid6), or that claim no missing
// member while the status map shows one.
func TestMDMixedSources(t *testing.T) {
	const mdstat = `Personalities : [raid1] [raid6] [raid5] [raid4]
md6 : active raid1 sdb2[2](F) sdc[1](S) sda2[0]
      195310144 blocks [2/1] [U_]
      [=>...................]  recovery =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec

unused devices: <none>
`
	tests := []struct {
		name     string
		sysfs    map[string]string
		want     string // text of md-degraded
		conflict string // "" when the sources agree
	}{
		{"no sysfs", nil, "/dev/md6 (raid1) runs with 1 of its 2 members missing", ""},
		{"sysfs agrees", map[string]string{"level": "raid1\n", "raid_disks": "2\n", "degraded": "1\n"},
			"/dev/md6 (raid1) runs with 1 of its 2 members missing", ""},
		{"procfs's sysfs: another array", map[string]string{"level": "raid6\n", "raid_disks": "4\n", "degraded": "0\n", "sync_action": "idle\n"},
			"/dev/md6 (raid1) runs with 1 of its 2 members missing (per /proc/mdstat; /sys/block/md6/md disagrees: level raid6 there, raid1 in /proc/mdstat; raid_disks 4 there, [2/1] in /proc/mdstat)",
			"level raid6 there"},
		{"sysfs degraded 0, map [U_]: the map wins", map[string]string{"level": "raid1\n", "raid_disks": "2\n", "degraded": "0\n"},
			"/dev/md6 (raid1) runs with 1 of its 2 members missing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"proc/mdstat": mdstat}
			for k, v := range tt.sysfs {
				files["sys/block/md6/md/"+k] = v
			}
			h, fs := runTree(t, files)
			d := byID(fs, "md-degraded")
			if len(d) != 1 || !strings.Contains(text(d[0]), tt.want) {
				t.Fatalf("md-degraded: %+v\nwant %q", d, tt.want)
			}
			if !strings.Contains(text(d[0]), "recovery onto a new member is at 8.5%") {
				t.Errorf("recovery from the mdstat line lost: %s", text(d[0]))
			}
			a := h.MD[0]
			if (a.SysfsConflict == "") != (tt.conflict == "") || !strings.Contains(a.SysfsConflict, tt.conflict) {
				t.Errorf("conflict %q, want %q", a.SysfsConflict, tt.conflict)
			}
			noted := false
			for _, n := range h.NotCollected {
				noted = noted || (n.Source == "/sys/block/md6/md" && strings.Contains(n.Reason, "from /proc/mdstat alone"))
			}
			if noted != (tt.conflict != "") {
				t.Errorf("not-collected note %v, want %v: %+v", noted, tt.conflict != "", h.NotCollected)
			}
			if tt.conflict != "" && (a.Level != "raid1" || a.RaidDisks != 2) {
				t.Errorf("blended: level %s, raid_disks %d", a.Level, a.RaidDisks)
			}
		})
	}
}
