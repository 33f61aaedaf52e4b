package health

import (
	"encoding/json"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

func TestLevelJSON(t *testing.T) {
	for _, l := range []Level{Unknown, OK, Warn, Failing} {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var back Level
		if err := json.Unmarshal(b, &back); err != nil || back != l {
			t.Errorf("%s: %s → %s, %v", l, b, back, err)
		}
	}
	var l Level
	if err := json.Unmarshal([]byte(`"sick"`), &l); err == nil {
		t.Error("an unknown word was accepted")
	}
}

func TestAssess(t *testing.T) {
	no, temp, limit := false, 60, 55
	cases := []struct {
		name string
		d    facts.BlockDevice
		kl   []facts.KernelEvent
		want Level
		kind string
	}{
		{"no health read", facts.BlockDevice{Name: "sda", Kind: "disk"}, nil, Unknown, ""},
		{"asleep", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Standby: true}}}, nil, Unknown, ""},
		{"clean", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{}}}, nil, OK, ""},
		{"failed", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Passed: &no}}}, nil, Failing, ReasonSMARTFailed},
		{"hot", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Temp: &temp, TempLimit: &limit}}}, nil, Warn, ReasonHot},
		{"medium error, no SMART", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{}},
			[]facts.KernelEvent{{Disk: "sda", Kind: "media", Line: "x"}}, Failing, ReasonMedia},
		{"link up only", facts.BlockDevice{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{}},
			[]facts.KernelEvent{{Disk: "sda", Kind: "link-up", Line: "x"}}, Unknown, ""},
	}
	for _, c := range cases {
		h := &facts.Host{Block: []facts.BlockDevice{c.d}, KernelLog: &facts.KernelLog{Source: "dmesg", Events: c.kl}}
		v := Assess(h, c.d)
		if v.Level != c.want {
			t.Errorf("%s: level %s, want %s (%+v)", c.name, v.Level, c.want, v.Reasons)
		}
		if c.kind != "" && (len(v.Reasons) == 0 || v.Reasons[0].Kind != c.kind) {
			t.Errorf("%s: reasons %+v, want %s", c.name, v.Reasons, c.kind)
		}
		if c.kind == "" && len(v.Reasons) > 0 {
			t.Errorf("%s: reasons %+v, want none", c.name, v.Reasons)
		}
	}
}
