package rules

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// sysctl-harmful-value judges runtime values and the file that sets them
// at boot against the knob table, and says who set a value.
func TestHarmfulValue(t *testing.T) {
	k510 := facts.Kernel{Release: "5.10.0", Major: 5, Minor: 10}
	k419 := facts.Kernel{Release: "4.19.0", Major: 4, Minor: 19}
	cfg := func(key, val string) []facts.SysctlSetting {
		return []facts.SysctlSetting{{Key: key, Value: val, File: "/etc/sysctl.d/99-speed.conf", Line: 3}}
	}
	tests := []struct {
		name     string
		kernel   facts.Kernel
		sysctls  facts.Sysctls
		config   []facts.SysctlSetting
		wantKind string // "" = no finding
		wantVal  string
		wantWhy  string
	}{
		{"runtime only, no file", k510, facts.Sysctls{"net.core.somaxconn": "1024"}, nil,
			rule.KindSysctl, "4096", "No sysctl file sets it"},
		{"same value on 4.19 is the default's side", k419, facts.Sysctls{"net.core.somaxconn": "1024"}, nil, "", "", ""},
		{"file-backed", k510, facts.Sysctls{"net.ipv4.tcp_window_scaling": "0"}, cfg("net.ipv4.tcp_window_scaling", "0"),
			rule.KindSysctl, "1", "/etc/sysctl.d/99-speed.conf:3 sets"},
		{"file only, takes effect at boot", k510, facts.Sysctls{"net.ipv4.tcp_sack": "1"}, cfg("net.ipv4.tcp_sack", "0"),
			rule.KindAdvice, "", "next boot"},
		{"runtime differs from a harmless file", k510, facts.Sysctls{"net.ipv4.tcp_sack": "0"}, cfg("net.ipv4.tcp_sack", "1"),
			rule.KindSysctl, "1", "changed it after boot"},
		{"tw_recycle live on 3.10", facts.Kernel{Release: "3.10.0", Major: 3, Minor: 10},
			facts.Sysctls{"net.ipv4.tcp_tw_recycle": "1"}, nil, rule.KindSysctl, "0", "NAT"},
		{"keys with their own rule are left to it", k510, facts.Sysctls{"net.ipv4.tcp_timestamps": "0"}, nil, "", "", ""},
		{"defaults: nothing", k510, facts.Sysctls{"net.core.somaxconn": "4096", "net.ipv4.tcp_sack": "1"}, nil, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &facts.Host{Kernel: tt.kernel, Sysctls: tt.sysctls, SysctlConfig: tt.config, Memory: facts.Memory{TotalBytes: 4 << 30}}
			fs := checkHarmful(rule.Input{Host: h})
			if tt.wantKind == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d: %+v", len(fs), fs)
			}
			f := fs[0]
			if f.Recommendation.Kind != tt.wantKind || f.Recommendation.Value != tt.wantVal || !strings.Contains(f.Why, tt.wantWhy) {
				t.Errorf("got %s %q, why %q; want %s %q containing %q", f.Recommendation.Kind, f.Recommendation.Value, f.Why, tt.wantKind, tt.wantVal, tt.wantWhy)
			}
		})
	}
}

// Dead keys come from the knob table: removed keys and no-ops, by version.
func TestDeadKeyFromTable(t *testing.T) {
	for _, tt := range []struct {
		key    string
		kernel facts.Kernel
		want   string // "" = no finding
	}{
		{"net.ipv4.tcp_tw_recycle", facts.Kernel{Release: "3.10.0", Major: 3, Minor: 10}, ""},
		{"net.ipv4.tcp_tw_recycle", facts.Kernel{Release: "4.12.0", Major: 4, Minor: 12}, "does not exist"},
		{"net.ipv4.tcp_fack", facts.Kernel{Release: "5.10.0", Major: 5, Minor: 10}, "ignores it"},
		{"net.ipv4.tcp_fack", facts.Kernel{Release: "4.14.0", Major: 4, Minor: 14}, ""},
		{"vm.nr_pdflush_threads", facts.Kernel{Release: "2.6.31", Major: 2, Minor: 6, Patch: 31}, ""},
		{"vm.nr_pdflush_threads", facts.Kernel{Release: "2.6.32", Major: 2, Minor: 6, Patch: 32}, "no-op since Linux 2.6.32"},
		// Mode 0444 on every kernel that has it: the write fails, it is
		// never "accepted and ignored".
		{"vm.nr_pdflush_threads", facts.Kernel{Release: "6.1.0", Major: 6, Minor: 1}, "the write fails at every boot (\"Permission denied\", even for root)"},
		{"net.ipv4.tcp_adv_win_scale", facts.Kernel{Release: "6.6.0", Major: 6, Minor: 6}, ""}, // its own rule
	} {
		h := &facts.Host{Kernel: tt.kernel, SysctlConfig: []facts.SysctlSetting{{Key: tt.key, Value: "1", File: "/etc/sysctl.conf", Line: 1}}}
		fs := checkDeadKey(rule.Input{Host: h})
		switch {
		case tt.want == "" && len(fs) != 0:
			t.Errorf("%s on %s: want nothing, got %q", tt.key, tt.kernel.Release, fs[0].Why)
		case tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Why, tt.want)):
			t.Errorf("%s on %s: want a finding saying %q, got %+v", tt.key, tt.kernel.Release, tt.want, fs)
		}
	}
}

// A key newer than the running kernel is named as such.
func TestUnknownKeyAddedLater(t *testing.T) {
	h := &facts.Host{Kernel: facts.Kernel{Release: "4.9.0", Major: 4, Minor: 9},
		SysctlConfig: []facts.SysctlSetting{{Key: "net.core.netdev_budget_usecs", Value: "8000", File: "/etc/sysctl.conf", Line: 2, Unknown: true}}}
	fs := checkUnknownKey(rule.Input{Host: h})
	if len(fs) != 1 || !strings.Contains(fs[0].Why, "added in Linux 4.12") {
		t.Errorf("got %+v", fs)
	}
}
