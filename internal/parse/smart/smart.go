// Package smart parses what smartctl prints for one device: the JSON of
// smartmontools ≥ 7 (`smartctl -x -j`) and the text of 6.x (`smartctl -x`),
// for ATA/SATA, NVMe and SAS/SCSI devices, into one facts.SMART.
//
// Values are read the way smartctl decodes them. An ATA attribute's raw
// field is often vendor-packed (temperature with min/max, power-on hours
// with minutes, Seagate error rates): the JSON's raw.value is then one huge
// number that means nothing as a count. The decoded raw.string (the text's
// RAW_VALUE column) is kept, and Attribute.Count is its leading number, the
// value smartctl shows first; Packed marks strings that hold more.
//
// Pure functions, no I/O. Errors wrap perr.ErrSyntax.
package smart

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
)

// Parse reads JSON or text output, whichever b holds.
func Parse(b []byte) (*facts.SMART, error) {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		return ParseJSON(b)
	}
	return ParseText(b)
}

var leadingNum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?\d+`) })

// decodeRaw returns the leading number of a decoded raw string and whether
// the string holds more than that one number.
func decodeRaw(s string, fallback int64) (int64, bool) {
	s = strings.TrimSpace(s)
	m := leadingNum().FindString(s)
	if m == "" {
		return fallback, s != ""
	}
	v, err := strconv.ParseInt(m, 10, 64)
	if err != nil {
		return fallback, true
	}
	return v, strings.TrimSpace(s[len(m):]) != ""
}

// powerOnFromRaw reads attribute 9's decoded forms: "12345", "12345h+23m+45.123s",
// "12345 (23 45 0)" (hours, then minutes where packed).
var pohHM = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)h\+(\d+)m`) })

func powerOn(s string) (int64, int, bool) {
	s = strings.TrimSpace(s)
	if m := pohHM().FindStringSubmatch(s); m != nil {
		h, _ := strconv.ParseInt(m[1], 10, 64)
		mi, _ := strconv.Atoi(m[2])
		return h, mi, true
	}
	if m := leadingNum().FindString(s); m != "" {
		h, err := strconv.ParseInt(m, 10, 64)
		return h, 0, err == nil
	}
	return 0, 0, false
}

// tempMinMax reads "34 (Min/Max 18/41)" and "34 (0 18 0 41 0)" forms.
var minMax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Min/Max (-?\d+)/(-?\d+)`) })

func tempMinMax(s string) (lo, hi *int) {
	if m := minMax().FindStringSubmatch(s); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		return &a, &b
	}
	return nil, nil
}

func intp(v int) *int       { return &v }
func int64p(v int64) *int64 { return &v }
func boolp(v bool) *bool    { return &v }

// gbps reads "6.0 Gb/s" → 6.
func gbps(s string) float64 {
	s = strings.TrimSpace(s)
	i := strings.Index(s, "Gb/s") // units:input
	if i < 0 {
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s[:i]), 64)
	if err != nil {
		return 0
	}
	return v
}

// finish derives what both formats derive the same way.
func finish(s *facts.SMART) {
	for _, a := range s.Attributes {
		switch a.ID {
		case 9:
			if s.PowerOnHours == nil {
				if h, m, ok := powerOn(a.Raw); ok {
					s.PowerOnHours, s.PowerOnMinutes = int64p(h), m
				}
			}
		case 194, 190:
			if a.ID == 190 && hasAttr(s, 194) {
				continue
			}
			if s.Temp == nil && a.Count > -60 && a.Count < 150 {
				s.Temp = intp(int(a.Count))
			}
			if s.TempMin == nil {
				s.TempMin, s.TempMax = tempMinMax(a.Raw)
			}
		}
	}
	if s.Protocol == "" {
		switch {
		case s.NVMe != nil:
			s.Protocol = "NVMe"
		case s.SCSI != nil:
			s.Protocol = "SCSI"
		case len(s.Attributes) > 0, s.ERC != nil, len(s.PhyEvents) > 0:
			s.Protocol = "ATA"
		}
	}
}

func hasAttr(s *facts.SMART, id int) bool {
	for _, a := range s.Attributes {
		if a.ID == id {
			return true
		}
	}
	return false
}

// Attr returns attribute id, nil when the drive does not report it.
func Attr(s *facts.SMART, id int) *facts.Attribute {
	for i := range s.Attributes {
		if s.Attributes[i].ID == id {
			return &s.Attributes[i]
		}
	}
	return nil
}

func errf(format string, a ...any) error {
	return perr.Input("not smartctl output: "+format, a...)
}
