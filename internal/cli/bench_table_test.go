package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/bench"
)

// The bench disk text, from fixed results (golden): one run per test with a
// skipped test, and three runs per test (the spread columns).
func TestPrintDiskGolden(t *testing.T) {
	tests := func(runs int) []bench.TestResult {
		return []bench.TestResult{
			{Name: "seqwrite", MiBPerS: 181.25, IOPS: 181.25, LatUS: bench.Lat{P50: 5400, P99: 12800}, Runs: runs, SpreadLo: 175.5, SpreadHi: 186},
			{Name: "randread", Skipped: "O_DIRECT not supported on tmpfs"},
			{Name: "randwrite", MiBPerS: 12.5, IOPS: 3200, LatUS: bench.Lat{P50: 290, P99: 1450}, Runs: runs, SpreadLo: 12.1, SpreadHi: 13},
		}
	}
	var b strings.Builder
	for _, runs := range []int{1, 3} {
		printDisk(&b, &bench.DiskResult{Kind: "disk", File: "/srv/nastune-bench.dat", Device: "sda", Host: "nas", Size: 1 << 30, Engine: "builtin",
			Tests: tests(runs), Interrupted: runs == 3})
		b.WriteString("----\n")
	}
	golden(t, filepath.Join("testdata", "bench_disk.txt"), b.String())
}
