package sysctlconf

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
)

func TestParse(t *testing.T) {
	in := "# comment\n; also comment\n\nvm.swappiness=10\n  net.ipv4.tcp_rmem =  4096\t87380   6291456  \n" +
		"-net.bridge.bridge-nf-call-iptables = 0\nnet/ipv4/conf/eth0.100/rp_filter = 1\nthis is garbage\nkernel.msg = a = b\n"
	got, err := Parse([]byte(in))
	want := []Setting{
		{Key: "vm.swappiness", Value: "10", Line: 4},
		{Key: "net.ipv4.tcp_rmem", Value: "4096 87380 6291456", Line: 5},
		{Key: "net.bridge.bridge-nf-call-iptables", Value: "0", Line: 6, Optional: true},
		{Key: "net.ipv4.conf.eth0/100.rp_filter", Value: "1", Line: 7},
		{Key: "kernel.msg", Value: "a = b", Line: 9},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	var pe *perr.Error
	if !errors.As(err, &pe) || pe.Line != 8 || !errors.Is(err, perr.ErrSyntax) {
		t.Errorf("err = %v, want a syntax error on line 8", err)
	}
}

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"vm.swappiness":                    "vm.swappiness",
		"vm/swappiness":                    "vm.swappiness",
		"net/ipv4/conf/eth0.100/rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"net.ipv4.conf.eth0/100.rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"kernel":                           "kernel",
	} {
		if got := NormalizeKey(in); got != want {
			t.Errorf("NormalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOrder(t *testing.T) {
	found := map[string][]string{
		"/etc/sysctl.d":     {"99-sysctl.conf", "10-local.conf", "README", "50-pid-max.conf"},
		"/usr/lib/sysctl.d": {"50-pid-max.conf", "50-default.conf", "99-protect.conf"},
		"/run/sysctl.d":     {"20-run.conf"},
	}
	got := Order(found, true)
	want := []string{
		"/etc/sysctl.d/10-local.conf", "/run/sysctl.d/20-run.conf", "/usr/lib/sysctl.d/50-default.conf",
		"/etc/sysctl.d/50-pid-max.conf", "/usr/lib/sysctl.d/99-protect.conf", "/etc/sysctl.d/99-sysctl.conf", "/etc/sysctl.conf",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("vm.swappiness = 10\n# c\n-net.x=1\n"))
	f.Add([]byte("=\n==\n\x00\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, _ := Parse(b)
		for _, x := range s {
			if x.Key == "" {
				t.Fatalf("empty key from %q", b)
			}
		}
	})
}
