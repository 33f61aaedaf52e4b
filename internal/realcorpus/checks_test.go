package realcorpus_test

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/audit"
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
