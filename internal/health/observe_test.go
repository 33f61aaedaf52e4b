package health

import (
	"strings"
	"testing"
)

func TestNVMeWarningBits(t *testing.T) {
	if got := nvmeWarnings(0x3f); len(got) != 6 || !strings.Contains(got[3], "read-only") {
		t.Errorf("all bits: %v", got)
	}
	if got := nvmeWarnings(0x40); len(got) != 1 || !strings.Contains(got[0], "reserved") {
		t.Errorf("reserved: %v", got)
	}
}
