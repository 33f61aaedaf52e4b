package render

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/audit"
)

// A virtual disk's ceiling is the model's guess (one rotating disk): the
// limit line says it is the host's storage, not that the disk caps
// service at that figure.
func TestLimitLineVirtualDisk(t *testing.T) {
	got := limitLine(&audit.Limit{Path: "vda", Kind: "storage", MBs: 200, Bottleneck: "vda virtual disk", Guess: true})
	if strings.Contains(got, "caps file service") || !strings.Contains(got, "host's storage") {
		t.Errorf("virtual disk: %s", got)
	}
	got = limitLine(&audit.Limit{Path: "md0", Kind: "storage", MBs: 400, Bottleneck: "sdb SATA 3.0 Gbit/s"})
	if !strings.Contains(got, "md0 caps file service at about 400 MB/s") {
		t.Errorf("real disk: %s", got)
	}
}
