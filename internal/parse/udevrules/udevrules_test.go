package udevrules

import (
	"reflect"
	"testing"
)

func TestAssignments(t *testing.T) {
	in := "# ATTR{queue/scheduler}=\"none\"\n" +
		"ACTION==\"add|change\", KERNEL==\"sd[a-z]\", ATTR{queue/rotational}==\"1\", ATTR{queue/scheduler}=\"bfq\"\n" +
		"SUBSYSTEM==\"net\", ATTR{address}!=\"00:00:00:00:00:00\", ATTR{tx_queue_len} := \"10000\"\r\n" +
		"KERNEL==\"sd*\", \\\n  ATTR{queue/read_ahead_kb}=\"16384\"\n"
	want := []Assign{{2, "queue/scheduler", "bfq"}, {3, "tx_queue_len", "10000"}, {4, "queue/read_ahead_kb", "16384"}}
	if got := Assignments([]byte(in)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	if a, v, ok := LastAssign(`ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="WD-1", ATTR{queue/scheduler}="deadline"`); !ok || a != "queue/scheduler" || v != "deadline" {
		t.Errorf("LastAssign = %q %q %v", a, v, ok)
	}
}

func TestOrder(t *testing.T) {
	found := map[string][]string{
		"/etc/udev/rules.d":     {"99-local.rules", "60-ioschedulers.rules", "README"},
		"/usr/lib/udev/rules.d": {"60-ioschedulers.rules", "95-dm-notify.rules", "99-systemd.rules"},
		"/run/udev/rules.d":     {"10-run.rules"},
	}
	want := []string{"/run/udev/rules.d/10-run.rules", "/etc/udev/rules.d/60-ioschedulers.rules",
		"/usr/lib/udev/rules.d/95-dm-notify.rules", "/etc/udev/rules.d/99-local.rules", "/usr/lib/udev/rules.d/99-systemd.rules"}
	if got := Order(found); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
}
