// Package calc holds the calculators shared by rules and by `nastune calc`:
// TCP buffers from bandwidth × RTT, and the unit parsing they need. Every
// function is pure arithmetic on its arguments.
package calc

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ErrUnit is wrapped by unit parse errors.
var ErrUnit = errors.New("bad unit")

// ParseBandwidth reads a rate in bits per second: "1Gbit", "2.5G",
// "100Mbit/s", "10gbps", "1000000". K, M and G are decimal (×1000), as
// link speeds are.
func ParseBandwidth(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"bit/s", "bits/s", "bps", "bits", "bit", "b/s"} {
		if strings.HasSuffix(t, suf) {
			t = strings.TrimSuffix(t, suf)
			break
		}
	}
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult, t = 1e3, t[:n-1]
		case 'm':
			mult, t = 1e6, t[:n-1]
		case 'g':
			mult, t = 1e9, t[:n-1]
		case 't':
			mult, t = 1e12, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: bandwidth %q: use a positive number with K, M or G and bit, e.g. 1Gbit, 100Mbit, 2.5G", ErrUnit, s)
	}
	return v * mult, nil
}

// ParseRTT reads a round-trip time: "500us", "0.5ms", "20ms", "1s".
func ParseRTT(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ReplaceAll(s, "µs", "us"))
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: rtt %q: use a positive duration in us, ms or s, e.g. 500us, 20ms, 1s", ErrUnit, s)
	}
	return d, nil
}
