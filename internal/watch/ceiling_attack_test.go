package watch

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/ceiling"
)

// Staged: a tune's direct reads through a loop device on this VM's virtio
// disk, which reports itself rotational and is modelled at 200 MB/s. The
// disk moved 247-340 MB/s at 55% busy with queue depth 1; watch named it
// first, "142% of what its path can carry: vda disk sets the pace". A
// device that moves more than its modelled ceiling proves the model wrong
// for it: that is no ceiling verdict (and not above the threads).
func TestRateAboveModelledCeilingIsNoCeilingVerdict(t *testing.T) {
	paths := []ceiling.Path{{Name: "vda", Kind: "disk", CeilingMBs: 200, Bottleneck: "vda disk", Move: "a faster disk (an SSD)"}}
	var ss []Sample
	for _, r := range []float64{289e6, 254e6, 324e6, 340e6, 123e6} {
		ss = append(ss, Sample{Disks: []DiskSample{{Name: "vda", UtilPct: 55, ReadBps: r, QueueDepth: 1}}})
	}
	if got := BottlenecksWith(ss, CeilingsFrom(paths)); len(got) != 0 {
		t.Errorf("a disk faster than its modelled ceiling was named: %+v", got)
	}
	// One sample well above the ceiling shows the path carries more, though
	// the average sits at 90% of the model.
	ss = nil
	for _, r := range []float64{100e6, 300e6, 200e6, 120e6, 180e6} {
		ss = append(ss, Sample{Disks: []DiskSample{{Name: "vda", UtilPct: 50, ReadBps: r, QueueDepth: 1}}})
	}
	if got := BottlenecksWith(ss, CeilingsFrom(paths)); len(got) != 0 {
		t.Errorf("a sample at 150%% of the ceiling still named it: %+v", got)
	}
	// The control: steadily at 95-99% of the ceiling, it is named (else
	// the two checks above would pass with no ceiling verdict at all).
	ss = nil
	for _, r := range []float64{190e6, 195e6, 192e6, 198e6, 191e6} {
		ss = append(ss, Sample{Disks: []DiskSample{{Name: "vda", UtilPct: 55, ReadBps: r, QueueDepth: 1}}})
	}
	if got := BottlenecksWith(ss, CeilingsFrom(paths)); len(got) != 1 || got[0].Subject != "vda" || !strings.Contains(got[0].Why, "of what its path can carry") {
		t.Errorf("a disk at 97%% of its ceiling was not named for it: %+v", got)
	}
}
