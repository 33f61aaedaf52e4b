package cmdrun

import (
	"context"
	"errors"
	"testing"
)

func TestParseSCTERC(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"smartctl 7.3\n\nSCT Error Recovery Control:\n           Read:     70 (7.0 seconds)\n          Write:     70 (7.0 seconds)\n", "70,70"},
		{"SCT Error Recovery Control:\n           Read: Disabled\n          Write: Disabled\n", "0,0"},
		{"SCT Error Recovery Control set to:\n           Read:     70 (7.0 seconds)\n          Write:    100 (10.0 seconds)\n", "70,100"},
	} {
		got, err := ParseSCTERC(c.out)
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.out, got, err, c.want)
		}
	}
	if _, err := ParseSCTERC("SCT Error Recovery Control command not supported\n"); !errors.Is(err, ErrNoERC) {
		t.Errorf("unsupported: %v", err)
	}
	if _, err := ParseSCTERC("Read: 70 (7.0 seconds)\n"); err == nil {
		t.Error("half an answer accepted")
	}
}

func TestSCTERCRefuses(t *testing.T) {
	for _, c := range []struct{ dev, set string }{
		{"/dev/sda", ""},
		{"/dev/disk/by-id/../../sda", ""},
		{"/dev/disk/by-id/ata-X;rm", ""},
		{"/dev/disk/by-id/ata-X", "70"},
		{"/dev/disk/by-id/ata-X", "70,70,70"},
		{"/dev/disk/by-id/ata-X", "99999,1"},
		{"/dev/disk/by-id/ata-X", "-1,70"},
	} {
		if _, err := SCTERC(context.Background(), Limits{}, c.dev, c.set); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("%s %s: %v, want ErrNotAllowed", c.dev, c.set, err)
		}
	}
}
