package storcmd

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Real zpool status outputs: openzfs/zfs#3267 (0.6, resilver after an
// attach, log mirror and cache devices) and the OpenZFS dRAID Howto (2.x
// format, "… resilvered, 99.44% done, 00:00:04 to go").
func TestZpoolScanAndClasses(t *testing.T) {
	read := func(tree, file string) []byte {
		a, err := txtar.ParseFile("../../../testdata/" + tree)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == file {
				return f.Data
			}
		}
		t.Fatalf("%s: no %s", tree, file)
		return nil
	}
	const st = ".nastune/commands/zpool_status_-P.txt"
	tests := []struct {
		name    string
		data    []byte
		pool    string
		percent float64
		toGo    string
		classes string // vdev name=class, in order
	}{
		{"zfs#3267 slog attach", read("real/attack-zfs-3267-slog-attach-resilver/tree.txtar", st), "tank", 0.39, "0h46m",
			"mirror-0=,mirror-1=logs,sda4=cache,sdb4=cache"},
		{"dRAID howto", read("hosts/real-states.txtar", st), "tank", 99.44, "00:00:04", ""},
		{"scrub done: nothing running", []byte("  pool: p\n state: ONLINE\n  scan: scrub repaired 0B in 00:01:02 with 0 errors on Sun Nov 12 00:25:03 2023\nconfig:\n\n\tNAME STATE READ WRITE CKSUM\n\tp ONLINE 0 0 0\n"), "", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ZpoolScan(tt.data)
			if tt.pool == "" {
				if len(sc) != 0 {
					t.Fatalf("scans: %+v", sc)
				}
				return
			}
			s, ok := sc[tt.pool]
			if !ok || s.Kind != "resilver" || s.Percent != tt.percent || s.ToGo != tt.toGo || !strings.Contains(s.DoneLine, "% done") {
				t.Fatalf("scan: %+v", sc)
			}
			if tt.classes == "" {
				return
			}
			pools, err := ZpoolStatus(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range pools[0].Vdevs {
				got = append(got, v.Name+"="+v.Class)
			}
			if strings.Join(got, ",") != tt.classes {
				t.Errorf("classes %s, want %s", strings.Join(got, ","), tt.classes)
			}
		})
	}
}
