package storcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realZpoolStatus cuts the captured `zpool status -P` out of a corpus tree.
func realZpoolStatus(t *testing.T, tree string) string {
	t.Helper()
	// a tree of the corpus, sourced (testdata/real) or not (testdata/unsourced)
	b, err := os.ReadFile(filepath.Join("../../../testdata/real", tree, "tree.txtar"))
	if os.IsNotExist(err) {
		b, err = os.ReadFile(filepath.Join("../../../testdata/unsourced", tree, "tree.txtar"))
	}
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "-- .nastune/commands/zpool_status_-P.txt --\n")
	if !ok {
		t.Fatalf("%s has no zpool status", tree)
	}
	if i := strings.Index(rest, "\n-- "); i >= 0 {
		rest = rest[:i+1]
	}
	return rest
}

// TestZpoolStatusReal: real outputs (and the same outputs with their
// tabs turned into spaces, as pasted into docs and forums) give the same
// vdevs; replacing-N and spare-N hold one position each, and the device
// being replaced is marked as leaving.
func TestZpoolStatusReal(t *testing.T) {
	tests := []struct {
		tree string
		want []string // per pool: "pool vdev type width leaving"
	}{
		{"zfs-archwiki-raidz1-replacing", []string{"bigdata raidz1-0 raidz1 4 [ata-ST3000DM001-9YN166_S1F0KDGY]"}},
		{"zfs-draid-rebalance-replacing", []string{"tank draid1:4d:11c:1s-0 draid1 11 [sdg]", "tank draid1-0-0 draid-spare 1 []"}},
		{"zfs-web-mirror-replacing", []string{"Data mirror-0 mirror 2 [4676737554230074290]"}},
		{"zfs-web-replacing-single-disk", []string{"devel replacing-0 replacing 1 [scsi-35000c50047d16807]", "infra mirror-0 mirror 2 []"}},
		{"zfs-draid-online", nil},
	}
	for _, tt := range tests {
		in := realZpoolStatus(t, tt.tree)
		for _, variant := range []struct{ name, text string }{
			{"tabs", in},
			{"spaces", strings.ReplaceAll(in, "\t", "        ")},
			{"4-space paste", strings.ReplaceAll(in, "\t", "    ")},
		} {
			t.Run(tt.tree+"/"+variant.name, func(t *testing.T) {
				pools, err := ZpoolStatus([]byte(variant.text))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, p := range pools {
					for _, v := range p.Vdevs {
						leaving := v.Leaving
						if leaving == nil {
							leaving = []string{}
						}
						got = append(got, fmt.Sprintf("%s %s %s %d %v", p.Name, v.Name, v.Type, v.Width(), leaving))
					}
				}
				if tt.want == nil {
					if len(got) == 0 {
						t.Fatal("no vdevs")
					}
					return
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
			})
		}
	}
}
