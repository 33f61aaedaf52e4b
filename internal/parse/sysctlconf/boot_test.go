package sysctlconf

import (
	"fmt"
	"testing"
)

// The boot model against sysctl.d(5): file order (given), later
// assignments override earlier ones, explicit keys beat globs whatever
// their order, "-key" keeps globs away, /etc/sysctl.conf is read by
// `sysctl --system` only (last, even when Debian links it in as
// 99-sysctl.conf) and by systemd-sysctl only through that link.
func TestEffective(t *testing.T) {
	a := func(file string, line int, key, val string) Assignment {
		return Assignment{Key: key, Value: val, File: file, Line: line}
	}
	debLink := Assignment{Key: "vm.swappiness", Value: "60", File: "/etc/sysctl.d/99-sysctl.conf", Link: MainFile, Line: 3}
	tests := []struct {
		name string
		all  []Assignment
		key  string
		m    Manager
		want string // "file:line=value", or "" for unset
		lost int
	}{
		{"later file wins", []Assignment{a("/etc/sysctl.d/10-a.conf", 1, "vm.swappiness", "10"), a("/etc/sysctl.d/90-nastune.conf", 1, "vm.swappiness", "30")},
			"vm.swappiness", Systemd, "/etc/sysctl.d/90-nastune.conf:1=30", 1},
		{"same file, later line wins", []Assignment{a("/etc/sysctl.d/10-a.conf", 1, "vm.swappiness", "10"), a("/etc/sysctl.d/10-a.conf", 7, "vm.swappiness", "20")},
			"vm.swappiness", Procps, "/etc/sysctl.d/10-a.conf:7=20", 1},
		{"Debian link: systemd reads it at 99-sysctl.conf", []Assignment{debLink, a("/etc/sysctl.d/99-zfs.conf", 1, "vm.swappiness", "1")},
			"vm.swappiness", Systemd, "/etc/sysctl.d/99-zfs.conf:1=1", 1},
		{"Debian link: sysctl --system reads sysctl.conf last", []Assignment{debLink, a("/etc/sysctl.d/99-zfs.conf", 1, "vm.swappiness", "1")},
			"vm.swappiness", Procps, "/etc/sysctl.d/99-sysctl.conf:3=60", 1},
		{"no link: systemd never reads /etc/sysctl.conf", []Assignment{a("/etc/sysctl.d/90-nastune.conf", 1, "vm.swappiness", "30"), a(MainFile, 9, "vm.swappiness", "60")},
			"vm.swappiness", Systemd, "/etc/sysctl.d/90-nastune.conf:1=30", 0},
		{"no link: sysctl --system reads it last", []Assignment{a("/etc/sysctl.d/90-nastune.conf", 1, "vm.swappiness", "30"), a(MainFile, 9, "vm.swappiness", "60")},
			"vm.swappiness", Procps, "/etc/sysctl.conf:9=60", 1},
		{"explicit beats a later glob", []Assignment{a("/etc/sysctl.d/10-a.conf", 1, "net.ipv4.conf.eth0.rp_filter", "1"), a("/usr/lib/sysctl.d/50-default.conf", 2, "net.ipv4.conf.*.rp_filter", "2")},
			"net.ipv4.conf.eth0.rp_filter", Systemd, "/etc/sysctl.d/10-a.conf:1=1", 1},
		{"glob sets a key nobody names", []Assignment{a("/usr/lib/sysctl.d/50-default.conf", 2, "net.ipv4.conf.*.rp_filter", "2")},
			"net.ipv4.conf.eth0.rp_filter", Systemd, "/usr/lib/sysctl.d/50-default.conf:2=2", 0},
		{"glob does not cross components", []Assignment{a("/usr/lib/sysctl.d/50-default.conf", 2, "net.ipv4.conf.*.rp_filter", "2")},
			"net.ipv4.conf.eth0.x.rp_filter", Systemd, "", 0},
		{"-key keeps the glob away", []Assignment{a("/usr/lib/sysctl.d/50-default.conf", 2, "net.ipv4.conf.*.rp_filter", "2"),
			{Key: "net.ipv4.conf.all.rp_filter", File: "/usr/lib/sysctl.d/50-default.conf", Line: 3, Exclude: true}},
			"net.ipv4.conf.all.rp_filter", Systemd, "", 0},
		{"unset", []Assignment{a("/etc/sysctl.d/10-a.conf", 1, "vm.swappiness", "10")}, "vm.dirty_ratio", Procps, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			win, lost, ok := Effective(tt.all, tt.key, tt.m)
			got := ""
			if ok {
				got = fmt.Sprintf("%s:%d=%s", win.File, win.Line, win.Value)
			}
			if got != tt.want || len(lost) != tt.lost {
				t.Errorf("got %q overriding %d, want %q overriding %d", got, len(lost), tt.want, tt.lost)
			}
		})
	}
}

func TestParseExclude(t *testing.T) {
	got, err := Parse([]byte("-net.ipv4.conf.all.rp_filter\n"))
	if err != nil || len(got) != 1 || !got[0].Exclude || got[0].Key != "net.ipv4.conf.all.rp_filter" {
		t.Errorf("got %+v, %v", got, err)
	}
}

func TestDisableKey(t *testing.T) {
	in := "# tuning\nvm.swappiness = 10\r\nnet.core.somaxconn=1024\n  -net.core.somaxconn = 2048\n#net.core.somaxconn = 1\nnet.core.somaxconnx = 5"
	got, n := DisableKey([]byte(in), "net.core.somaxconn", "nastune: disabled")
	want := "# tuning\nvm.swappiness = 10\r\n# nastune: disabled\n# net.core.somaxconn=1024\n# nastune: disabled\n#   -net.core.somaxconn = 2048\n#net.core.somaxconn = 1\nnet.core.somaxconnx = 5"
	if string(got) != want || n != 2 {
		t.Errorf("got %d lines disabled:\n%s\nwant:\n%s", n, got, want)
	}
	// The result parses without the key.
	s, _ := Parse(got)
	for _, x := range s {
		if x.Key == "net.core.somaxconn" {
			t.Errorf("still set on line %d", x.Line)
		}
	}
	crlf, _ := DisableKey([]byte("a = 1\r\nnet.core.somaxconn = 1024\r\n"), "net.core.somaxconn", "n")
	if string(crlf) != "a = 1\r\n# n\r\n# net.core.somaxconn = 1024\r\n" {
		t.Errorf("CRLF file: %q", crlf)
	}
	if same, n := DisableKey([]byte(in), "vm.dirty_ratio", "x"); string(same) != in || n != 0 {
		t.Errorf("a key the file does not set changed it")
	}
}
