package kernfmt

import (
	"strings"
	"testing"
)

const mdstatSample = `Personalities : [raid6] [raid5] [raid4] [raid1]
md0 : active raid6 sdj1[9](S) sdi1[8] sdh1[7] sdg1[6] sdf1[5](F) sde1[4] sdd1[3] sdc1[2] sdb1[1] sda1[0]
      27348055552 blocks super 1.2 level 6, 512k chunk, algorithm 2 [9/8] [UUUUU_UUU]
      [==>..................]  recovery = 12.3% (480612352/3907007744) finish=2873.5min speed=19873K/sec
      bitmap: 2/30 pages [8KB], 65536KB chunk

md1 : active (auto-read-only) raid1 sdb2[1] sda2[0]
      1048512 blocks [2/2] [UU]
      	resync=PENDING

md127 : inactive sdk[0](S)
      7813894488 blocks super 1.2

unused devices: <none>
`

func TestParseMDStat(t *testing.T) {
	a, err := ParseMDStat([]byte(mdstatSample))
	if err != nil || len(a) != 3 {
		t.Fatalf("%+v %v", a, err)
	}
	m := a[0]
	if m.Name != "md0" || !m.Active || m.Level != "raid6" || len(m.Members) != 10 || m.Blocks != 27348055552 ||
		m.Metadata != "1.2" || m.ChunkKB != 512 || m.RaidDisks != 9 || m.ActiveDisks != 8 || m.Status != "UUUUU_UUU" ||
		m.Action != "recovery" || m.ProgressPercent != 12.3 || m.SpeedKBs != 19873 || m.Finish != "2873.5min" || m.Bitmap == "" {
		t.Errorf("md0: %+v", m)
	}
	if m.Members[0] != (MDStatMember{Name: "sdj1", Index: 9, Flags: "S"}) || m.Members[4].Flags != "F" {
		t.Errorf("members: %+v", m.Members)
	}
	if !a[1].ReadOnly || a[1].Level != "raid1" || a[1].Action != "resync" || a[1].Waiting != "PENDING" {
		t.Errorf("md1: %+v", a[1])
	}
	if a[2].Active || a[2].Level != "" || len(a[2].Members) != 1 {
		t.Errorf("md127: %+v", a[2])
	}
}

func TestParseMDStatDamaged(t *testing.T) {
	for _, in := range []string{
		"md0 : active raid5 sda1 sdb1[1]\n", // member without [N]
		"md0 : \n",                          // no state
		"md0 : active raid1 sda1[x]\n",      // index not a number
	} {
		if _, err := ParseMDStat([]byte(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: want an error naming line 1, got %v", in, err)
		}
	}
	// Good arrays around a damaged member are kept; the member is skipped.
	a, err := ParseMDStat([]byte("md0 : active raid1 sda1[0] sdb1[1]\n      100 blocks [2/2] [UU]\nmd1 : active raid1 ??\n"))
	if err == nil || len(a) != 2 || a[0].Name != "md0" || len(a[0].Members) != 2 || len(a[1].Members) != 0 {
		t.Errorf("%+v %v", a, err)
	}
}

func TestCryptoAndKStat(t *testing.T) {
	c, err := Crypto([]byte("name         : aes\ndriver       : aes-aesni\nmodule       : aesni_intel\npriority     : 300\nselftest     : passed\ntype         : cipher\n\nname         : aes\ndriver       : aes-generic\nmodule       : kernel\npriority     : 100\n"))
	if err != nil || len(c) != 2 || c[0].Driver != "aes-aesni" || c[0].Priority != 300 || c[0].SelfTest != "passed" || c[1].Module != "kernel" {
		t.Errorf("%+v %v", c, err)
	}
	if _, err := Crypto([]byte("driver : x\n")); err == nil {
		t.Error("a stanza without name must fail")
	}
	k, err := KStat([]byte("13 1 0x01 123 33456 60 12\nname                            type data\nhits                            4    8812331\nsize                            4    34359738368\nc_max                           4    33712140288\n"))
	if err != nil || k["size"] != 34359738368 || k["c_max"] != 33712140288 {
		t.Errorf("%v %v", k, err)
	}
}

func TestParseMDRaidDisks(t *testing.T) {
	tests := []struct {
		in          string
		now, before int
		ok          bool
	}{
		{"4\n", 4, 4, true},
		{"11 (10)\n", 11, 10, true}, // growing reshape
		{"4 (5)", 4, 5, true},       // shrinking reshape
		{"", 0, 0, false},
		{"11 10", 0, 0, false},
		{"x", 0, 0, false},
		{"11 (10", 0, 0, false},
	}
	for _, tt := range tests {
		now, before, err := ParseMDRaidDisks(tt.in)
		if (err == nil) != tt.ok || now != tt.now || before != tt.before {
			t.Errorf("%q: %d %d %v", tt.in, now, before, err)
		}
	}
}

// A garbled member costs that member, not the arrays after it; the error
// names the line. raid10 and raid0 write "512K chunks".
func TestParseMDStatSkipsBadEntry(t *testing.T) {
	in := `Personalities : [raid1] [raid10]
md0 : active raid1 sda1[0] garbage sdb1[1]
      1048512 blocks [2/2] [UU]

md1 : active raid10 sdd[3] sdc[2] sdb[1] sda[0]
      1953262592 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]
      bitmap: 0/15 pages [0KB], 65536KB chunk

md2 : active raid1 sdf1[1](W) sde1[0]
      1048512 blocks [2/2] [UU]

unused devices: <none>
`
	a, err := ParseMDStat([]byte(in))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
	if len(a) != 3 || len(a[0].Members) != 2 || a[1].ChunkKB != 512 || a[1].RaidDisks != 4 || a[2].Members[0].Flags != "W" {
		t.Fatalf("%+v", a)
	}
}
