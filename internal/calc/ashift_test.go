package calc

import (
	"errors"
	"testing"
)

func TestAshifts(t *testing.T) {
	for _, tt := range []struct {
		logical, physical int
		min, rec          int
		err               bool
	}{
		{512, 512, 9, 12, false},    // 512n: 9 accepted, 12 for later 4K replacements
		{512, 4096, 9, 12, false},   // 512e
		{4096, 4096, 12, 12, false}, // 4Kn
		{4096, 0, 12, 12, false},    // physical defaults to logical
		{512, 16384, 9, 14, false},  // above zfs_vdev_max_auto_ashift: still the physical sector
		{512, 65536, 9, 16, false},
		{4096, 512, 0, 0, true}, // physical below logical
		{1000, 1000, 0, 0, true},
		{512, 1 << 17, 0, 0, true}, // above OpenZFS's 64 KiB
	} {
		c, err := Ashifts(tt.logical, tt.physical)
		if tt.err {
			if !errors.Is(err, ErrZFS) {
				t.Errorf("%d/%d: err %v, want ErrZFS", tt.logical, tt.physical, err)
			}
			continue
		}
		if err != nil || c.Min != tt.min || c.Max != 16 || c.Recommended != tt.rec || c.Why == "" {
			t.Errorf("%d/%d: %+v %v", tt.logical, tt.physical, c, err)
		}
	}
}

func TestPlanVPNLink(t *testing.T) {
	l, err := PlanVPNLink(VPNInput{Cipher: "AES-256-GCM", PeerID: true}, 1500)
	if err != nil || l.MSSFix != 1500 || l.MSSFixLegacy != 1472 || l.MSS != 1408 || l.TunMTUNoFragment != 1448 {
		t.Errorf("%+v %v", l, err)
	}
	// The link answer and the mssfix answer agree: 2.6's "mssfix 1500 mtu"
	// and the legacy "mssfix 1472" clamp to the same MSS.
	legacy, err := PlanVPN(VPNInput{Cipher: "AES-256-GCM", PeerID: true, MSSFix: l.MSSFixLegacy, Legacy: true})
	if err != nil || legacy.MSS != l.MSS {
		t.Errorf("legacy mssfix %d: MSS %d, want %d (%v)", l.MSSFixLegacy, legacy.MSS, l.MSS, err)
	}
	if _, err := PlanVPNLink(VPNInput{Cipher: "AES-256-GCM"}, 100); !errors.Is(err, ErrVPN) {
		t.Errorf("link MTU 100: %v", err)
	}
}
