package cli

import (
	"context"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/tune"
)

// readRegular reads a regular file of at most limit bytes (a saved
// result), never through a FIFO or a device (hostfs.ReadRegular).
func readRegular(name string, limit int64) ([]byte, error) { return hostfs.ReadRegular(name, limit) }

// liveMeminfo is this machine's /proc/meminfo.
func liveMeminfo() ([]byte, error) { return hostfs.Live().ReadFile("/proc/meminfo") }

// runIperf3 measures with iperf3 (--engine iperf3).
func runIperf3(ctx context.Context, o bench.NetOptions) (*bench.NetResult, error) {
	return bench.RunIperf3(ctx, o)
}

// iperf3ServerHint says what to start on the server for --engine iperf3.
func iperf3ServerHint(server string) string { return bench.Iperf3ServerHint(server) }

// shareDevices is the server's share folder → block devices mapping for
// bench share attribution: tune's resolver (md, dm, loop, partitions).
func shareDevices(path string) ([]string, error) {
	devs, err := tune.DefaultResolver.Resolve(path)
	var out []string
	for _, d := range devs {
		out = append(out, d.Name)
	}
	return out, err
}
