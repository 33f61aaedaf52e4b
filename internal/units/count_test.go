package units

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 disks"}, {1, "1 disk"}, {2, "2 disks"}, {15, "15 disks"}} {
		if got := Count(tt.n, "disk", "disks"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
