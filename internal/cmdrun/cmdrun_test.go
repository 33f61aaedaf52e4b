package cmdrun

import (
	"context"
	"errors"
	"testing"
)

func TestAllowed(t *testing.T) {
	for _, argv := range [][]string{
		{"zpool", "status", "-P"}, {"zdb", "-C", "tank"}, {"hdparm", "-B", "/dev/sda"}, {"hdparm", "-W", "/dev/disk/by-id/ata-X_1"},
	} {
		if !Allowed(argv) {
			t.Errorf("%v should be allowed", argv)
		}
	}
	for _, argv := range [][]string{
		{"zpool", "destroy", "tank"}, {"hdparm", "-B", "254", "/dev/sda"}, {"hdparm", "-B", "/etc/passwd"},
		{"hdparm", "-B", "/dev/../etc/shadow"}, {"zdb", "-C", "-e"}, {"rm", "-rf", "/"}, {"zpool", "status"}, {},
	} {
		if Allowed(argv) {
			t.Errorf("%v must not be allowed", argv)
		}
	}
}

func TestRunRefuses(t *testing.T) {
	if _, err := Run(context.Background(), "sh", "-c", "true"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("got %v", err)
	}
}

func TestCapped(t *testing.T) {
	c := capped{max: 4}
	c.Write([]byte("abc"))
	c.Write([]byte("def"))
	if c.String() != "abcd" || !c.over {
		t.Errorf("%q %v", c.String(), c.over)
	}
}
