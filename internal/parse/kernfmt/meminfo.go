package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Meminfo parses /proc/meminfo into a map of field name to bytes. Fields
// with a "kB" unit are multiplied by 1024; unitless fields (HugePages_*)
// are kept as counts. A malformed line is skipped; the first one is
// returned as an error naming it, with every field that could be read.
func Meminfo(data []byte) (map[string]uint64, error) {
	out := make(map[string]uint64, 64)
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
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok || key == "" {
			bad(lineErr(n, "%q has no 'Name: value'", clip(line)))
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || len(f) > 2 {
			bad(lineErr(n, "%s: want a number and an optional unit, got %q", key, clip(rest)))
			continue
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			bad(lineErr(n, "%s: %q is not a number", key, clip(f[0])))
			continue
		}
		if len(f) == 2 {
			if f[1] != "kB" {
				bad(lineErr(n, "%s: unknown unit %q", key, clip(f[1])))
				continue
			}
			if v > (1<<64-1)/1024 {
				bad(lineErr(n, "%s: value out of range", key))
				continue
			}
			v *= 1024
		}
		out[key] = v
	}
	if err := sc.Err(); err != nil {
		bad(lineErr(n+1, "%v", err))
	}
	return out, firstErr
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
