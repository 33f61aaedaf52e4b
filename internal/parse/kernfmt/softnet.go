package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Softnet parses /proc/net/softnet_stat: one line per online CPU, columns
// in hex: processed, dropped, time_squeeze, then columns that vary by
// kernel. Kernels since 5.10 add the CPU number as column 13; older ones
// are numbered by line.
func Softnet(data []byte) ([]facts.SoftnetCPU, error) {
	var out []facts.SoftnetCPU
	var firstErr error
	bad := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 {
			bad(lineErr(n, "want at least 3 hex columns, got %d", len(f)))
			continue
		}
		var v [3]uint64
		ok := true
		for i := 0; i < 3 && ok; i++ {
			x, err := strconv.ParseUint(f[i], 16, 32)
			if err != nil {
				bad(lineErr(n, "column %d: %q is not a 32-bit hex number", i+1, clip(f[i])))
				ok = false
			}
			v[i] = x
		}
		if !ok {
			continue
		}
		cpu := len(out)
		if len(f) >= 13 {
			if x, err := strconv.ParseUint(f[12], 16, 32); err == nil {
				cpu = int(x)
			}
		}
		out = append(out, facts.SoftnetCPU{CPU: cpu, Processed: v[0], Dropped: v[1], TimeSqueeze: v[2]})
	}
	return out, firstErr
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
