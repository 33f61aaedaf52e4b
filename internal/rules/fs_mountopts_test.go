package rules_test

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/rule"
)

// leapp's fstab line with every XFS option mainline removed, judged on
// the kernels around the removals: "the mount fails" only where it does,
// the advice names the fstab line and never a /proc file.
func TestMountOptionsByKernel(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		sev    rule.Severity
		want   []string
		not    []string
	}{
		{"3.10.0-1160.el7.x86_64", rule.Warn,
			[]string{"Linux 3.10 accepts delaylog, irixsgid, osyncisosync, nodelaylog, ihashsize, osyncisdsync and ignores them",
				"nobarrier: it turns off cache flushes", "from Linux 4.0 on, delaylog", "from Linux 4.19 on, barrier, nobarrier make the mount fail"},
			[]string{"refuses"}},
		{"4.14.0-3-amd64", rule.Crit,
			[]string{"Linux 4.14 refuses delaylog, irixsgid, osyncisosync, nodelaylog, ihashsize, osyncisdsync: the next mount fails",
				"Linux 4.14 accepts barrier, nobarrier and ignores them", "from Linux 4.19 on, barrier, nobarrier make the mount fail"},
			[]string{"cache flushes"}},
		{"6.1.0-18-amd64", rule.Crit, []string{"Linux 6.1 refuses delaylog, irixsgid, osyncisosync, barrier, nodelaylog, ihashsize, osyncisdsync, nobarrier: the next mount fails"}, nil},
		{"", rule.Warn, []string{"Linux 4.0 and later refuse", "Linux 4.19 and later refuse barrier, nobarrier (the running kernel's version was not read)"}, []string{"next mount fails"}},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			files := realTreeFiles(t, "fs-leapp-xfs-removed-options")
			if tc.kernel == "" {
				delete(files, "proc/sys/kernel/osrelease")
			} else {
				files["proc/sys/kernel/osrelease"] = tc.kernel + "\n"
			}
			_, fs := runTree(t, files)
			got := byID(fs, "fs-dead-mount-option")
			if len(got) != 1 {
				t.Fatalf("%d findings, want one for /boot: %v", len(got), got)
			}
			f := got[0]
			txt := text(f)
			if f.Severity != tc.sev {
				t.Errorf("severity %v, want %v: %s", f.Severity, tc.sev, txt)
			}
			for _, w := range tc.want {
				if !strings.Contains(txt, w) {
					t.Errorf("does not say %q:\n%s", w, txt)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(txt, w) {
					t.Errorf("says %q:\n%s", w, txt)
				}
			}
			if !strings.Contains(f.Recommendation.Target, "line 9 of /etc/fstab") || strings.Contains(f.Recommendation.Target, "/proc") {
				t.Errorf("advice %q does not name fstab line 9 (or names /proc)", f.Recommendation.Target)
			}
		})
	}
}

// From a live mount only options the owner set count: XFS prints attr2
// itself, so a live attr2 is not advice; ext4's nobarrier is.
func TestMountOptionsLive(t *testing.T) {
	files := map[string]string{
		"proc/sys/kernel/osrelease": "6.1.0-18-amd64\n",
		"proc/mounts": "/dev/md0 /srv/array xfs rw,noatime,attr2,inode64,logbufs=8,logbsize=256k,sunit=1024,swidth=7168,noquota 0 0\n" +
			"/dev/md1 /srv/scratch ext4 rw,relatime,nobarrier 0 0\n",
		"etc/fstab": "# /etc/fstab\n/dev/md1 /srv/scratch ext4 defaults,noacl 0 2\n",
	}
	_, fs := runTree(t, files)
	got := byID(fs, "fs-dead-mount-option")
	var subj []string
	for _, f := range got {
		subj = append(subj, f.Subject+": "+text(f))
	}
	if len(got) != 2 {
		t.Fatalf("want /srv/scratch from fstab (noacl) and live (nobarrier), got %q", subj)
	}
	if got[0].Severity != rule.Crit || !strings.Contains(got[0].Why, "Linux 6.1 refuses noacl") || !strings.Contains(got[0].Recommendation.Target, "line 2 of /etc/fstab") {
		t.Errorf("fstab noacl on 6.1: %q", subj[0])
	}
	if got[1].Severity != rule.Warn || !strings.Contains(got[1].Why, "cache flushes") || !strings.Contains(got[1].Recommendation.Target, "not in /etc/fstab") {
		t.Errorf("live nobarrier: %q", subj[1])
	}
}

// ext4 noacl and btrfs options around their removals: deprecated and
// "from Linux X on the mount fails" before, crit at and after.
func TestMountOptionsExt4Btrfs(t *testing.T) {
	for _, tc := range []struct {
		kernel, line string
		sev          rule.Severity
		want         string
	}{
		{"5.10.0-28-amd64", "/dev/md0 /srv ext4 defaults,noacl 0 2", rule.Warn, "noacl is deprecated; from Linux 6.1 on, noacl makes the mount fail"},
		{"6.1.0-18-amd64", "/dev/md0 /srv ext4 defaults,noacl 0 2", rule.Crit, "Linux 6.1 refuses noacl: the next mount fails"},
		{"5.4.0-150-generic", "/dev/sdb /data btrfs alloc_start=1G,inode_cache 0 0", rule.Warn,
			"Linux 5.4 accepts alloc_start=1G and ignores it; inode_cache is deprecated; from Linux 5.9 on, alloc_start=1G makes the mount fail; from Linux 6.8 on, inode_cache makes the mount fail"},
		{"6.8.0-45-generic", "/dev/sdb /data btrfs noatime,recovery 0 0", rule.Crit, "Linux 6.8 refuses recovery: the next mount fails"},
		{"6.6.0", "/dev/sdb /data btrfs noatime,compress=zstd 0 0", 0, ""},
	} {
		_, fs := runTree(t, map[string]string{"proc/sys/kernel/osrelease": tc.kernel + "\n", "etc/fstab": tc.line + "\n"})
		got := byID(fs, "fs-dead-mount-option")
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%s %q: %+v", tc.kernel, tc.line, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Severity != tc.sev || !strings.Contains(got[0].Why, tc.want) {
			t.Errorf("%s %q: %+v\nwant %v %q", tc.kernel, tc.line, got, tc.sev, tc.want)
		}
	}
}

// ext4 shows fstab's barrier=0 as nobarrier on the live mount: one option,
// one finding naming the fstab line, never a second one saying the live
// nobarrier is not in /etc/fstab.
func TestMountOptionsSpellings(t *testing.T) {
	files := realTreeFiles(t, "fs-blog-ext4-barrier0-gecko")
	_, fs := runTree(t, files)
	got := byID(fs, "fs-dead-mount-option")
	if len(got) != 2 {
		t.Fatalf("%d findings, want one for / and one for /home: %+v", len(got), got)
	}
	for i, f := range got {
		if !strings.Contains(f.Why, "barrier=0: the journal's cache flushes are off") || !strings.Contains(f.Recommendation.Target, "of /etc/fstab") {
			t.Errorf("finding %d: %s", i, text(f))
		}
		if strings.Contains(text(f), "not in /etc/fstab") {
			t.Errorf("finding %d calls the live nobarrier foreign to fstab: %s", i, text(f))
		}
	}
}

// ext4's discard is a flag: discard=async (btrfs's spelling, copied into
// ext4 fstab lines by SSD guides) fails the mount on every kernel; plain
// discard is not judged here.
func TestMountOptionFlagValue(t *testing.T) {
	for _, tc := range []struct{ kernel, line, want string }{
		{"6.18.0", "UUID=ROOT / ext4 defaults,noatime,discard=async,data=writeback 0 1", "Linux 6.18 refuses discard=async: the next mount fails"},
		{"5.4.0-150-generic", "UUID=ROOT / ext4 defaults,noatime,discard=async 0 1", "Linux 5.4 refuses discard=async"},
		{"", "UUID=ROOT / ext4 defaults,discard=async 0 1", "this kernel refuses discard=async"},
		{"6.18.0", "UUID=root / ext4 defaults,noatime,discard 0 1", ""},
		{"6.18.0", "UUID=root / btrfs compress=zstd,ssd,discard=async 0 0", ""},
		// Linux 6.18 refuses these two (TestMountOptionTableRealKernel
		// found it): never called "accepted and ignored".
		{"6.18.0", "/dev/md0 /srv ext4 defaults,check 0 2", ""},
		{"6.18.0", "/dev/md0 /srv ext4 defaults,journal=update 0 2", ""},
	} {
		files := map[string]string{"etc/fstab": tc.line + "\n"}
		if tc.kernel != "" {
			files["proc/sys/kernel/osrelease"] = tc.kernel + "\n"
		}
		_, fs := runTree(t, files)
		got := byID(fs, "fs-dead-mount-option")
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%q: %s", tc.line, text(got[0]))
			}
			continue
		}
		if len(got) != 1 || got[0].Severity != rule.Crit || !strings.Contains(got[0].Why, tc.want) ||
			!strings.Contains(got[0].Why, "ext4 takes discard without a value") || !strings.Contains(got[0].Recommendation.Target, "line 1 of /etc/fstab") {
			t.Errorf("%s %q: %v, want crit %q naming line 1", tc.kernel, tc.line, got, tc.want)
		}
	}
}
