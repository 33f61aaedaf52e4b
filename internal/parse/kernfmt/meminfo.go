package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Meminfo parses /proc/meminfo into a map of field name to bytes. Fields
// with a "kB" unit are multiplied by 1024; unitless fields (HugePages_*)
// are kept as counts. A malformed line is an error naming it, but the
// fields parsed before it are returned too, so a caller can use them.
func Meminfo(data []byte) (map[string]uint64, error) {
	out := make(map[string]uint64, 64)
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok || key == "" {
			return out, lineErr(n, "%q has no 'Name: value'", clip(line))
		}
		f := strings.Fields(rest)
		if len(f) == 0 || len(f) > 2 {
			return out, lineErr(n, "%s: want a number and an optional unit, got %q", key, clip(rest))
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return out, lineErr(n, "%s: %q is not a number", key, clip(f[0]))
		}
		if len(f) == 2 {
			if f[1] != "kB" {
				return out, lineErr(n, "%s: unknown unit %q", key, clip(f[1]))
			}
			if v > (1<<64-1)/1024 {
				return out, lineErr(n, "%s: value out of range", key)
			}
			v *= 1024
		}
		out[key] = v
	}
	if err := sc.Err(); err != nil {
		return out, lineErr(n+1, "%v", err)
	}
	return out, nil
}

// clip shortens a string quoted in an error so a garbled file cannot flood
// the terminal.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
