package rules_test

import (
	"sort"
	"strings"
	"testing"
)

// procfsMDStat is /proc/mdstat from prometheus/procfs testdata/fixtures.ttar
// (fixtures/proc/mdstat, commit 3c943fdba94a, Apache-2.0): arrays collected
// from node_exporter bug reports in every state.
const procfsMDStat = `
Personalities : [linear] [multipath] [raid0] [raid1] [raid6] [raid5] [raid4] [raid10]

md3 : active raid6 sda1[8] sdh1[7] sdg1[6] sdf1[5] sde1[11] sdd1[3] sdc1[10] sdb1[9] sdd1[10](S) sdd2[11](S)
      5853468288 blocks super 1.2 level 6, 64k chunk, algorithm 2 [8/8] [UUUUUUUU]

md127 : active raid1 sdi2[0] sdj2[1]
      312319552 blocks [2/2] [UU]

md0 : active raid1 sdi1[0] sdj1[1]
      248896 blocks [2/2] [UU]

md4 : inactive raid1 sda3[0](F) sdb3[1](S)
      4883648 blocks [2/2] [UU]

md6 : active raid1 sdb2[2](F) sdc[1](S) sda2[0]
      195310144 blocks [2/1] [U_]
      [=>...................]  recovery =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec

md8 : active raid1 sdb1[1] sda1[0] sdc[2](S) sde[3](S)
      195310144 blocks [2/2] [UU]
      [=>...................]  resync =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec

md201 : active raid1 sda3[0] sdb3[1]
      1993728 blocks super 1.2 [2/2] [UU]
      [=>...................]  check =  5.7% (114176/1993728) finish=0.2min speed=114176K/sec

md7 : active raid6 sdb1[0] sde1[3] sdd1[2] sdc1[1](F)
      7813735424 blocks super 1.2 level 6, 512k chunk, algorithm 2 [4/3] [U_UU]
      bitmap: 0/30 pages [0KB], 65536KB chunk

md9 : active raid1 sdc2[2] sdd2[3] sdb2[1] sda2[0] sde[4](F) sdf[5](F) sdg[6](S)
      523968 blocks super 1.2 [4/4] [UUUU]
      resync=DELAYED

md10 : active raid0 sda1[0] sdb1[1]
       314159265 blocks 64k chunks

md11 : active (auto-read-only) raid1 sdb2[0] sdc2[1] sdc3[2](F) hda[4](S) ssdc2[3](S)
      4190208 blocks super 1.2 [2/2] [UU]
      resync=PENDING

md12 : active raid0 sdc2[0] sdd2[1]
      3886394368 blocks super 1.2 512k chunks

md126 : active raid0 sdb[1] sdc[0]
      1855870976 blocks super external:/md127/0 128k chunks

md219 : inactive sdb[2](S) sdc[1](S) sda[0](S)
        7932 blocks super external:imsm

md00 : active raid0 xvdb[0]
      4186624 blocks super 1.2 256k chunks

md120 : active linear sda1[1] sdb1[0]
        2095104 blocks super 1.2 0k rounding

md101 : active (read-only) raid0 sdb[2] sdd[1] sdc[0]
      322560 blocks super 1.2 512k chunks

md42 : active raid5 sda1[3](S) sdd1[0] sde1[1]
      1953381440 blocks super 1.2 level 5, 64k chunk, algorithm 2 [3/2] [UU_]
      [===========>.........]  reshape = 56.1% (1096879076/1953381440) finish=1868.1min speed=7640K/sec
      bitmap: 4/15 pages [16KB], 65536KB chunk
`

// TestMDStatesProcfs: degraded means a missing member in the status map;
// (F) members of a complete array are md-failed-member; inactive arrays are
// critical; waiting syncs, reshapes and spares are explained.
func TestMDStatesProcfs(t *testing.T) {
	_, fs := runTree(t, map[string]string{"proc/mdstat": procfsMDStat})
	got := ids(fs, "md")
	sort.Strings(got)
	want := []string{
		"md-container-unused md219",
		"md-degraded md42", "md-degraded md6", "md-degraded md7",
		"md-failed-member md11", "md-failed-member md9",
		"md-hot-spare md11", "md-hot-spare md3", "md-hot-spare md8", "md-hot-spare md9",
		"md-inactive md4",
		"md-reshaping md42",
		"md-sync-waiting md11", "md-sync-waiting md9",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("md findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tests := []struct {
		id, subject string
		sev         string
		contains    []string
	}{
		{"md-degraded", "md7", "crit", []string{"/dev/md7", "1 of its 4 members missing", "sdc1", "mdadm /dev/md7 --remove /dev/sdc1; mdadm /dev/md7 --add", "[4/3] [U_UU]"}},
		{"md-degraded", "md6", "crit", []string{"recovery onto a new member is at 8.5%", "17.0min", "let the recovery of /dev/md6 finish"}},
		{"md-failed-member", "md9", "info", []string{"sde, sdf", "not degraded", "mdadm /dev/md9 --remove /dev/sde; mdadm /dev/md9 --remove /dev/sdf", "[4/4] [UUUU]", "sde[4](F)"}},
		{"md-container-unused", "md219", "info", []string{"/dev/md219 is an external-metadata (imsm) container", "no volume of it is assembled", "mdadm --assemble --scan", "super external:imsm"}},
		{"md-degraded", "md42", "crit", []string{"1 spare is attached (sda1)", "no disk to add", "once the reshape of /dev/md42 finishes", "sda1[3](S)"}},
		{"md-sync-waiting", "md9", "info", []string{"waits for another array", "=DELAYED"}},
		{"md-sync-waiting", "md11", "info", []string{"auto-read-only", "mdadm --readwrite /dev/md11"}},
		{"md-reshaping", "md42", "info", []string{"56.1% done", "1868.1min"}},
		{"md-hot-spare", "md3", "info", []string{"sdd1, sdd2", "hot spares of /dev/md3", "sdd1[10](S)"}},
	}
	for _, tt := range tests {
		var found bool
		for _, f := range byID(fs, tt.id) {
			if f.Subject != tt.subject {
				continue
			}
			found = true
			if f.Severity.String() != tt.sev || !hasAll(text(f), tt.contains...) {
				t.Errorf("%s %s (%s): %s\nwant %s with %q", tt.id, tt.subject, f.Severity, text(f), tt.sev, tt.contains)
			}
		}
		if !found {
			t.Errorf("no %s for %s", tt.id, tt.subject)
		}
	}
}

// A member-count reshape: md/raid_disks reads "new (old)" (md.c
// raid_disks_show) and the status line says reshape; a real growth of a
// 10-disk RAID6 to 11 disks.
func TestMDReshapeRaidDisks(t *testing.T) {
	h, fs := runTree(t, map[string]string{
		"proc/mdstat": `Personalities : [raid6] [raid5] [raid4]
md0 : active raid6 sdl1[11] sdk1[10] sdj1[9] sdi1[8] sdh1[7] sdg1[6] sdf1[5] sde1[4] sdd1[3] sdc1[2] sdb1[1]
      31255580672 blocks super 1.2 level 6, 512k chunk, algorithm 2 [11/11] [UUUUUUUUUUU]
      [>....................]  reshape =  1.9% (75013120/3906947584) finish=1421.2min speed=44932K/sec
      bitmap: 0/30 pages [0KB], 65536KB chunk

unused devices: <none>
`,
		"sys/block/md0/md/raid_disks":  "11 (10)\n",
		"sys/block/md0/md/sync_action": "reshape\n",
		"sys/block/md0/md/level":       "raid6\n",
	})
	if len(h.MD) != 1 || h.MD[0].RaidDisks != 11 || h.MD[0].RaidDisksBefore != 10 {
		t.Fatalf("md facts: %+v", h.MD)
	}
	r := byID(fs, "md-reshaping")
	if len(r) != 1 || !hasAll(text(r[0]), "from 10 to 11 members", "1.9% done", "11 (10)") {
		t.Fatalf("reshape finding: %+v", r)
	}
	if len(byID(fs, "md-degraded")) != 0 {
		t.Errorf("a reshape with all members is not degraded: %v", ids(fs, "md"))
	}
}

// Two arrays sharing disks during a rebuild (a forum capture, 2012): the
// second waits (resync=DELAYED) and is degraded too.
func TestMDDelayedRecovery(t *testing.T) {
	_, fs := runTree(t, map[string]string{"proc/mdstat": `Personalities : [linear] [multipath] [raid0] [raid1] [raid6] [raid5] [raid4] [raid10]
md0 : active raid1 sda3[2] sdb3[1]
      479008632 blocks super 1.2 [2/1] [_U]
      [=>...................]  recovery =  7.8% (37384832/479008632) finish=61.8min speed=119022K/sec

md1 : active raid1 sda1[2] sdb1[1]
      975860 blocks super 1.2 [2/1] [_U]
        resync=DELAYED

unused devices: <none>
`})
	got := ids(fs, "md")
	sort.Strings(got)
	if strings.Join(got, ",") != "md-degraded md0,md-degraded md1,md-sync-waiting md1" {
		t.Fatalf("got %v", got)
	}
	for _, f := range byID(fs, "md-sync-waiting") {
		if !strings.Contains(f.Why, "recovery of /dev/md1 waits") {
			t.Errorf("md1 waits to recover, not resync: %s", f.Why)
		}
	}
}

// External-metadata containers and spares that cover missing members, on
// real /proc/mdstat captures (testdata/real/attack-md-*: check_raid issues
// 34 and 43). A container with a running volume is no fault and must never
// get "mdadm --stop"; a degraded array whose attached spares cover the
// missing members needs no disk added.
func TestMDContainerAndSparesReal(t *testing.T) {
	tests := []struct {
		name, mdstat string
		want         []string // ids of md findings
		check        string   // finding id whose text is checked
		contains     []string
		absent       []string
	}{
		{name: "imsm container with running volume", mdstat: `Personalities : [raid1]
md127 : active raid1 sda[1] sdb[0]
      976759808 blocks super external:/md0/0 [2/2] [UU]

md0 : inactive sda[1](S) sdb[0](S)
      5288 blocks super external:imsm

unused devices: <none>
`, want: nil, absent: []string{"mdadm --stop"}},
		{name: "imsm container, volume held read-only by mdmon", mdstat: `Personalities : [raid1]
md126 : active (read-only) raid1 sda[1] sdb[0]
      976759808 blocks super external:-md127/0 [2/2] [UU]

md127 : inactive sda[1](S) sdb[0](S)
      5288 blocks super external:imsm

unused devices: <none>
`, want: nil},
		{name: "imsm container alone", mdstat: `Personalities :
md127 : inactive sdb[1](S) sda[0](S)
      10402 blocks super external:imsm

unused devices: <none>
`, want: []string{"md-container-unused md127"}, check: "md-container-unused",
			contains: []string{"/dev/md127 is an external-metadata (imsm) container", "always listed inactive", "super external:imsm", "mdadm --detail /dev/md127"},
			absent:   []string{"unavailable", "mdadm --stop"}},
		{name: "reshape with two spares", mdstat: `Personalities : [raid6] [raid5] [raid4]
md0 : active raid6 sde1[6](S) sdf1[7](S) sdb1[0] sdg1[3] sdd1[2] sdc[1]
  5860543744 blocks super 0.91 level 6, 4k chunk, algorithm 18 [6/4] [UUUU__]
  [=========>...........]  reshape = 48.4% (709745748/1465135936) finish=1271.8min speed=9898K/sec

unused devices: <none>
`, want: []string{"md-degraded md0", "md-reshaping md0"}, check: "md-degraded",
			contains: []string{"2 of its 6 members missing", "2 spares are attached (sde1, sdf1)", "no disk to add", "once the reshape of /dev/md0 finishes", "sde1[6](S)", "sdf1[7](S)"},
			absent:   []string{"--add"}},
		{name: "one spare for two missing", mdstat: `Personalities : [raid6]
md0 : active raid6 sde1[6](S) sdb1[0] sdg1[3] sdd1[2] sdc[1]
  5860543744 blocks super 1.2 level 6, 512k chunk, algorithm 2 [6/4] [UUUU__]

unused devices: <none>
`, want: []string{"md-degraded md0"}, check: "md-degraded",
			contains: []string{"mdadm /dev/md0 --add"}, absent: []string{"no disk to add"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := runTree(t, map[string]string{"proc/mdstat": tt.mdstat})
			got := ids(fs, "md")
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("md findings %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				txt := text(f)
				if tt.check != "" && f.ID == tt.check && !hasAll(txt, tt.contains...) {
					t.Errorf("%s: %s\nwant %q", f.ID, txt, tt.contains)
				}
				for _, a := range tt.absent {
					if strings.Contains(txt, a) {
						t.Errorf("%s says %q: %s", f.ID, a, txt)
					}
				}
			}
		})
	}
}
