package kernfmt

// Meminfo parses /proc/meminfo into a map of field name to bytes. Fields
// with a "kB" unit are multiplied by 1024; unitless fields (HugePages_*)
// are kept as counts. A malformed line is skipped; the first one is
// returned as an error naming it, with every field that could be read.
func Meminfo(data []byte) (map[string]uint64, error) {
	out := make(map[string]uint64, 64)
	err := ScanMeminfo(data, nil, func(key []byte, v uint64) { out[string(key)] = v })
	return out, err
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
