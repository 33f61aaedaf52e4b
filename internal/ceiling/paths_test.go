package ceiling_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/ceiling"
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
