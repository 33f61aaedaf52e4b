package calc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50,
}

// SizeHelp states the accepted size forms, for flag help and errors.
const SizeHelp = "a number with KB/MB/GB/TB (decimal, ×1000) or KiB/MiB/GiB/TiB (binary, ×1024), e.g. 4TB, 512KiB"

// ParseSize reads a byte size: "4TB" (decimal), "512KiB" (binary),
// "4096" (bytes). Bare K/M/G/T are refused: they are ambiguous between
// disk makers' decimal and the kernel's binary units.
func ParseSize(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult, ok := sizeUnits[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v <= 0 || math.IsInf(v*mult, 0) || v*mult >= 1<<63 {
		return 0, fmt.Errorf("%w: size %q: use %s", ErrUnit, s, SizeHelp)
	}
	return uint64(math.Round(v * mult)), nil
}
