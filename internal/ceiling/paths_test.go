package ceiling_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Golden paths for every fixture host (narrow HBA slot, slow SATA link,
// USB 2 and 3 docks, 1 and 10 GbE).
func TestGoldenPaths(t *testing.T) {
	for _, host := range fixture.HostNames(t) {
		t.Run(host, func(t *testing.T) {
			root, err := hostfs.Open(fixture.HostDir(t, host))
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			paths := ceiling.Paths(probe.Collect(context.Background(), root))
			got, err := json.MarshalIndent(paths, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", host+".json")
			if *update {
				_ = os.MkdirAll("testdata", 0o755)
				_ = os.WriteFile(file, append(got, '\n'), 0o644)
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./internal/ceiling -update)", err)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("%s differs:\n%s", file, got)
			}
		})
	}
}

// A virtio disk reports rotational=1 whatever the host stores it on: its
// media link says it is a virtual disk modelled as one rotating disk, and
// what raises it is the host's storage, not "an SSD" in the guest.
func TestVirtualDiskPath(t *testing.T) {
	rot := true
	h := &facts.Host{Block: []facts.BlockDevice{{Name: "vda", Kind: "disk", Rotational: &rot, Driver: "virtio_blk", Transport: "virtio"}}}
	ps := ceiling.Paths(h)
	if len(ps) != 1 || ps[0].Bottleneck != "vda virtual disk" || !strings.Contains(ps[0].Move, "host") {
		t.Fatalf("%+v", ps)
	}
	// The one reading above it is a cache; the one below stands for it.
	bench := []facts.BenchMeasure{{Device: "vda", Test: "seqread-direct", MBs: 1583.6}, {Device: "vda", Test: "seqread-direct", MBs: 150}, {Device: "vda", Test: "seqwrite-direct", MBs: 190}}
	m, ok, above := ceiling.BestRead(bench, ps[0])
	if !ok || m.MBs != 150 || above != 1583.6 {
		t.Errorf("BestRead: %+v %v %v", m, ok, above)
	}
}
