// Package calc holds the calculators shared by rules and by `nastune calc`:
// TCP buffers from bandwidth × RTT, and the unit parsing they need. Every
// function is pure arithmetic on its arguments.
package calc

import (
	"fmt"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/units"
)

// ErrUnit is wrapped by unit parse errors (the same error as units.ErrUnit).
var ErrUnit = units.ErrUnit

// ParseBandwidth reads a rate and returns bits per second, as
// units.ParseRate: "1Gbit", "2.5G", "100Mbit/s", "10gbps" are bits (iperf3
// -b); "125MB/s" is bytes per second, 1 Gbit/s.
func ParseBandwidth(s string) (float64, error) { return units.ParseRate(s) }

// ParseRTT reads a round-trip time: "500us", "0.5ms", "20ms", "1s". A bare
// number is refused here although other durations read it as seconds: ping
// prints RTTs in ms, and --rtt 20 meaning 20 s would size buffers 1000×
// too large.
func ParseRTT(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ReplaceAll(s, "µs", "us"))
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		hint := ""
		if _, e := units.ParseDuration(t); e == nil {
			hint = fmt.Sprintf(" (%sms as ping prints it?)", t)
		}
		return 0, fmt.Errorf("%w: rtt %q: use a positive duration in us, ms or s, e.g. 500us, 20ms, 1s%s", ErrUnit, s, hint)
	}
	return d, nil
}
