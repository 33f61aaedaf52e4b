// Package ethtool parses the text that the ethtool(8) command prints, for
// captured machine trees where the ioctl cannot be asked: `ethtool IF`
// (link settings), `-i` (driver), `-k` (features), `-g` (rings), `-c`
// (coalescing) and `-S` (statistics). Live systems are read through the
// SIOCETHTOOL ioctl instead (internal/probe); both paths fill the same
// facts, and a test checks them against each other on this machine.
//
// The parsers are pure and forgiving: unknown lines are skipped, "n/a"
// values are absent. A leading "# command: …" line (how captures record
// their command) is ignored.
package ethtool

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/parse/perr"
)

func lines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// Driver is `ethtool -i`.
type Driver struct {
	Driver, Version, Firmware, BusInfo string
}

// ParseDriver reads `ethtool -i IF`.
func ParseDriver(data []byte) (Driver, error) {
	var d Driver
	for _, l := range lines(data) {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "driver":
			d.Driver = v
		case "version":
			d.Version = v
		case "firmware-version":
			d.Firmware = v
		case "bus-info":
			d.BusInfo = v
		}
	}
	if d.Driver == "" {
		return d, perr.Line(1, "no 'driver:' line")
	}
	return d, nil
}

// Features is `ethtool -k`: every feature by the name ethtool prints
// (legacy names such as tcp-segmentation-offload and kernel names such as
// tx-tcp-segmentation), which of them are fixed (cannot be changed), and
// which are "off [requested on]": wanted by the user but held off by the
// kernel (a dependency is missing, e.g. TSO without scatter-gather or
// checksum offload, or the driver refuses it in the current mode).
type Features struct {
	On        map[string]bool
	Fixed     map[string]bool
	Requested map[string]bool
}

// ParseFeatures reads `ethtool -k IF`. A line that is not "feature: on|off
// [annotations]" is skipped; the first such line is returned as the error
// together with every feature that could be read.
func ParseFeatures(data []byte) (Features, error) {
	f := Features{On: map[string]bool{}, Fixed: map[string]bool{}, Requested: map[string]bool{}}
	var firstErr error
	bad := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	for i, l := range lines(data) {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "Features for") {
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			bad(perr.Line(i+1, "%q is not 'feature: on|off'", clip(t)))
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			bad(perr.Line(i+1, "feature %q has no state", clip(k)))
			continue
		}
		switch fields[0] {
		case "on":
			f.On[k] = true
		case "off":
			f.On[k] = false
		default:
			bad(perr.Line(i+1, "feature %q: state %q is not on or off", clip(k), clip(fields[0])))
			continue
		}
		if strings.Contains(v, "[fixed]") {
			f.Fixed[k] = true
		}
		if fields[0] == "off" && strings.Contains(v, "[requested on]") {
			f.Requested[k] = true
		}
	}
	if len(f.On) == 0 && firstErr == nil {
		return f, perr.Line(1, "no features listed")
	}
	return f, firstErr
}

// Ring is `ethtool -g`; a zero field was "n/a".
type Ring struct {
	RX, RXMax, TX, TXMax int
}

// ParseRing reads `ethtool -g IF`.
func ParseRing(data []byte) (Ring, error) {
	var r Ring
	section := 0 // 1: maximums, 2: current
	seen := false
	for _, l := range lines(data) {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Pre-set maximums"):
			section = 1
			continue
		case strings.HasPrefix(t, "Current hardware settings"):
			section = 2
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || section == 0 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue // n/a, on/off
		}
		switch {
		case k == "RX" && section == 1:
			r.RXMax, seen = n, true
		case k == "TX" && section == 1:
			r.TXMax, seen = n, true
		case k == "RX" && section == 2:
			r.RX, seen = n, true
		case k == "TX" && section == 2:
			r.TX, seen = n, true
		}
	}
	if !seen {
		return r, perr.Line(1, "no RX/TX ring sizes")
	}
	return r, nil
}

// ParseCoalesce reads `ethtool -c IF` into its numeric settings
// ("rx-usecs": 3) plus "adaptive-rx"/"adaptive-tx" as 0/1. n/a values are
// left out.
func ParseCoalesce(data []byte) (map[string]int, error) {
	out := map[string]int{}
	for _, l := range lines(data) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Adaptive RX:") {
			f := strings.Fields(t) // Adaptive RX: on  TX: off
			if len(f) >= 3 {
				setOnOff(out, "adaptive-rx", f[2])
			}
			if len(f) >= 5 {
				setOnOff(out, "adaptive-tx", f[4])
			}
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.Contains(k, " ") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			out[k] = n
		}
	}
	if len(out) == 0 {
		return out, perr.Line(1, "no coalescing parameters")
	}
	return out, nil
}

func setOnOff(m map[string]int, k, v string) {
	switch v {
	case "on":
		m[k] = 1
	case "off":
		m[k] = 0
	}
}

// Settings is the plain `ethtool IF` output.
type Settings struct {
	Supported, Advertised, Partner []string // link modes as printed: 1000baseT/Full
	SpeedMbps                      int      // 0: unknown
	Duplex                         string   // "full", "half" or ""
	Autoneg                        *bool
	LinkDetected                   *bool
}

// ParseSettings reads `ethtool IF`.
func ParseSettings(data []byte) (Settings, error) {
	var s Settings
	var cur *[]string
	found := false
	for _, l := range lines(data) {
		t := strings.TrimSpace(l)
		k, v, hasColon := strings.Cut(t, ":")
		if !hasColon {
			if cur != nil {
				*cur = append(*cur, modes(t)...)
			}
			continue
		}
		cur = nil
		v = strings.TrimSpace(v)
		switch k {
		case "Supported link modes":
			cur = &s.Supported
		case "Advertised link modes":
			cur = &s.Advertised
		case "Link partner advertised link modes":
			cur = &s.Partner
		case "Speed":
			found = true
			if n, err := strconv.Atoi(strings.TrimSuffix(v, "Mb/s")); err == nil && n > 0 { // units:input
				s.SpeedMbps = n
			}
		case "Duplex":
			switch strings.ToLower(strings.Fields(v + " x")[0]) {
			case "full":
				s.Duplex = "full"
			case "half":
				s.Duplex = "half"
			}
		case "Auto-negotiation":
			b := v == "on"
			s.Autoneg = &b
		case "Link detected":
			b := v == "yes"
			s.LinkDetected = &b
		}
		if cur != nil {
			*cur = append(*cur, modes(v)...)
		}
	}
	if !found {
		return s, perr.Line(1, "no 'Speed:' line")
	}
	return s, nil
}

func modes(s string) []string {
	var out []string
	for _, m := range strings.Fields(s) {
		if m[0] >= '0' && m[0] <= '9' && strings.Contains(m, "base") {
			out = append(out, m)
		}
	}
	return out
}

// ModeSpeed returns the speed in Mbit/s a link mode name stands for
// ("2500baseT/Full" → 2500), 0 if none.
func ModeSpeed(mode string) int {
	i := 0
	for i < len(mode) && mode[i] >= '0' && mode[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(mode[:i])
	return n
}

// ParseStats reads `ethtool -S IF` into counter name → value.
func ParseStats(data []byte) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, l := range lines(data) {
		// The value follows the last colon: bnxt and others name
		// per-queue counters "[0]: rx_discards: 12".
		t := strings.TrimSpace(l)
		i := strings.LastIndex(t, ":")
		if i < 0 {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(t[i+1:]), 10, 64); err == nil {
			out[strings.TrimSpace(t[:i])] = n
		}
	}
	if len(out) == 0 {
		return out, perr.Line(1, "no statistics")
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
