package kernfmt

import (
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Softnet parses /proc/net/softnet_stat (ScanSoftnet) into one entry per
// CPU. A malformed line is skipped; the first one is returned as the error.
func Softnet(data []byte) ([]facts.SoftnetCPU, error) {
	var out []facts.SoftnetCPU
	err := ScanSoftnet(data, nil, func(cpu int, p, d, q uint64) {
		out = append(out, facts.SoftnetCPU{CPU: cpu, Processed: p, Dropped: d, TimeSqueeze: q})
	})
	return out, err
}

// Uptime reads /proc/uptime ("350735.47 234388.90"): seconds since boot.
func Uptime(data []byte) (float64, error) {
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, lineErr(1, "empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || v != v {
		return 0, lineErr(1, "%q is not a number of seconds", clip(f[0]))
	}
	return v, nil
}
