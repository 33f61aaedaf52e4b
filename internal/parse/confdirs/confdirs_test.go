package confdirs

import (
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	dirs := []string{"/etc/x.d", "/run/x.d", "/usr/lib/x.d"}
	found := map[string][]string{
		"/usr/lib/x.d": {"50-default.conf", "10-a.conf", "README"},
		"/run/x.d":     {"50-default.conf", "99-z.conf"},
		"/etc/x.d":     {"10-a.conf", "60-b.conf.dpkg-old"},
	}
	got := Order(dirs, ".conf", found)
	want := []string{"/etc/x.d/10-a.conf", "/run/x.d/50-default.conf", "/run/x.d/99-z.conf"}
	if !slices.Equal(got, want) {
		t.Errorf("Order = %q, want %q", got, want)
	}
	if got := Order(dirs, ".conf", nil); len(got) != 0 {
		t.Errorf("nothing found: %q", got)
	}
}
