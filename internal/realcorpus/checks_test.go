package realcorpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/rule"
)

// The checks themselves must catch what they claim to: each case is a
// report that breaks one invariant.
func TestDiskSpeedCheckCatchesTwoSpeeds(t *testing.T) {
	rep := &audit.Report{Findings: []rule.Finding{
		{ID: "bus-a", Why: "sda delivers up to about 200 MB/s, but eth0 carries 118 MB/s.",
			Evidence: []rule.Evidence{rule.Ev("storage path sda", "200 MB/s, bottleneck sda disk")}},
		{ID: "mem-b", Why: "22 s of writes at 150 MB/s",
			Recommendation: &rule.Recommendation{Basis: "the rotating disk sda (~150 MB/s)"}},
		{ID: "link-c", Why: "sdb's SATA link runs at 3.0 Gbps (about 276 MB/s usable)"},
		{ID: "disk-d", Evidence: []rule.Evidence{rule.Ev("storage path sdb", "550 MB/s")}},
		{ID: "bench-e", Why: "md0 reads 627 MB/s, 45% of its 1400 MB/s ceiling (bottleneck sdb disk (× 7)): 773 MB/s are lost above the links."},
	}}
	vs := checkDiskSpeed("t", run{rep: rep})
	if len(vs) != 1 || vs[0].subject != "sda" || !strings.Contains(vs[0].detail, "150 MB/s (mem-b)") || !strings.Contains(vs[0].detail, "200 MB/s (bus-a)") {
		t.Fatalf("want one conflict on sda (150 vs 200 MB/s) and none on sdb's link speed, got %+v", vs)
	}
}

func TestQuotes(t *testing.T) {
	for _, c := range []struct {
		content, value string
		want           bool
	}{
		{"Partner Mac Address: 00:00:00:00:00:00\n", "Partner Mac Address: 00:00:00:00:00:00", true},
		{"00001f3a 00000000 00000001\n", "cpu0 dropped=7994", true}, // softnet_stat prints hex
		{"MemTotal: 32780288 kB\n", "MemTotal: 32780288 kB", true},
		{"md0 : active raid1 sdb1[1] sda1[0]\n", "md7 [4/3] [U_UU]", false},
		{"md0 : active raid1 sdb1[1] sda1[0]\n      136448 blocks [2/2] [UU]\n", "md0 blocks 999999", false}, // a word matches, the number does not
		{"MemTotal: 32780288 kB\n", "MemTotal 31.3 GiB", true},                                               // converted, with its unit
		{"", "", true},
	} {
		if got := quotes([]byte(c.content), c.value); got != c.want {
			t.Errorf("quotes(%q, %q) = %v, want %v", c.content, c.value, got, c.want)
		}
	}
}

func TestProtoRank(t *testing.T) {
	if !(protoRank("SMB2", false) > protoRank("NT1", true)) {
		t.Error("SMB2 as a minimum must rank above NT1 as a maximum")
	}
	if protoRank("SMB3", true) != protoRank("SMB3_11", true) || protoRank("", true) != protoRank("SMB3_11", true) {
		t.Error("max SMB3 and the default max are SMB3_11")
	}
}

// recorded builds a run over a small tree in which the given files were
// read, with the findings given: the checks see exactly what a probe read.
func recorded(t *testing.T, files map[string]string, read []string, findings ...rule.Finding) run {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	rec := root.Record()
	for _, p := range read {
		if _, err := root.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	return run{dir: dir, rep: &audit.Report{Findings: findings}, rec: rec}
}

func checks(vs []violation) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.check+"/"+v.subject)
	}
	return strings.Join(s, " ")
}

func TestEvidenceCheck(t *testing.T) {
	files := map[string]string{"proc/mdstat": "md0 : active raid1 sdb1[1] sda1[0]\n      136448 blocks [2/2] [UU]\n",
		"proc/cpuinfo": "flags\t\t: fpu vme sse2\n"}
	r := recorded(t, files, []string{"/proc/mdstat", "/proc/cpuinfo"},
		rule.Finding{ID: "ok", Evidence: []rule.Evidence{rule.Ev("/proc/mdstat", "md0 [2/2] [UU]")}},
		rule.Finding{ID: "unread", Evidence: []rule.Evidence{rule.Ev("/sys/block/md0/md/degraded", "1")}},
		rule.Finding{ID: "misquoted", Evidence: []rule.Evidence{rule.Ev("/proc/mdstat", "md7 [4/3] [U_UU]")}},
		rule.Finding{ID: "absent-ok", Evidence: []rule.Evidence{rule.Ev("/proc/sys/net/bridge/bridge-nf-call-iptables", "(missing)")}},
		rule.Finding{ID: "absent-false", Evidence: []rule.Evidence{rule.Ev("/proc/mdstat", "(missing)")}},
		rule.Finding{ID: "no-flag-ok", Evidence: []rule.Evidence{rule.Ev("/proc/cpuinfo", "no aes flag")}},
		rule.Finding{ID: "no-flag-false", Evidence: []rule.Evidence{rule.Ev("/proc/cpuinfo", "no sse2 flag")}},
	)
	got := checks(checkEvidence("t", r))
	want := "evidence-not-read/unread evidence-not-quoted/misquoted evidence-absent-but-present/absent-false evidence-absence-false/no-flag-false"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPrivilegedAndActionableChecks(t *testing.T) {
	bond := "Bonding Mode: IEEE 802.3ad Dynamic link aggregation\n\nSlave Interface: eth0\nMII Status: up\n"
	r := recorded(t, map[string]string{"proc/net/bonding/bond0": bond}, []string{"/proc/net/bonding/bond0"},
		rule.Finding{ID: "lacp", Severity: rule.Warn, Why: "the switch did not answer LACP",
			Evidence: []rule.Evidence{rule.Ev("/proc/net/bonding/bond0", "Bonding Mode: IEEE 802.3ad Dynamic link aggregation")}},
		rule.Finding{ID: "hash", Severity: rule.Info, Why: "layer2 hashing",
			Evidence: []rule.Evidence{rule.Ev("/proc/net/bonding/bond0", "802.3ad")}},
		rule.Finding{ID: "smb", Recommendation: &rule.Recommendation{Target: "server multi channel support = yes"}},
		rule.Finding{ID: "mod", Recommendation: &rule.Recommendation{Target: "modprobe aesni_intel"}},
		rule.Finding{ID: "cpu", Why: "On this  with 0 core(s), smbd copies every byte"},
	)
	if got, want := checks(checkPrivileged("t", r)), "privileged-bond-partner/lacp privileged-not-reported//proc/net/bonding/bond0"; got != want {
		t.Errorf("privileged: got %q, want %q", got, want)
	}
	if got, want := checks(checkActionable("t", r)), "action-samba/smb action-modprobe/mod action-cpu-no-basis/cpu"; got != want {
		t.Errorf("actionable: got %q, want %q", got, want)
	}
}
