package smart

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
)

var (
	sctCaps     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^SCT capabilities:\s*\(0x([0-9a-fA-F]{1,4})\)`) })
	textVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^smartctl (\d+\.\d+)`) })
	// -a: ID# ATTRIBUTE_NAME FLAG VALUE WORST THRESH TYPE UPDATED WHEN_FAILED RAW_VALUE
	attrLong = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s+0x[0-9a-fA-F]+\s+(\d+)\s+(\d+)\s+(\S+)\s+(Pre-fail|Old_age)\s+\S+\s+(\S+)\s+(.*)$`)
	})
	// -x: ID# ATTRIBUTE_NAME FLAGS VALUE WORST THRESH FAIL RAW_VALUE
	attrBrief = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s+([PO-][OS-][SR-][RE-][EC-][CK+-]\S*)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(.*)$`)
	})
	// SCSI: "# 1  Background short  Completed                   -     134                 - [-   -    -]"
	scsiSelfTest = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^#\s*\d+\s+(\S.*?)\s{2,}(\S.*?)\s{2,}(?:\d+|-)\s+(\d+|NOW)\s+(?:\d+|-)\s+\[.*\]\s*$`)
	})
	// SCSI environmental log page (SSDs, smartctl ≥ 7.3): "Current temperature = 25".
	scsiEnvTemp = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(Current temperature|Lifetime maximum temperature|Lifetime minimum temperature) = (-?\d+)\s*$`)
	})
	selfTest = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^#\s*\d+\s+(\S.*?)\s{2,}(\S.*?)\s{2,}(?:\d+%|-)?\s*(\d+)\s+(\S+)\s*$`)
	})
	phyEvent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0x([0-9a-fA-F]{4})\s+\d+\s+(\d+)\+?\s+(.*)$`) })
	sataVer  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`SATA [^,]*, ([\d.]+ Gb/s)(?: \(current: ([\d.]+ Gb/s)\))?`) // units:input
	})
	ercLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(Read|Write):\s+(Disabled|\d+)`) })
	numRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-?[\d,]+`) })
)

// ParseText reads the text smartctl prints (5.x/6.x/7.x without -j),
// whatever of -i/-H/-A/-x it holds.
func ParseText(b []byte) (*facts.SMART, error) {
	s := &facts.SMART{Format: "text"}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, min(len(b)+1, 64<<10)), 1<<20)
	section := ""
	sctCapsKnown, sctCapsERC := false, false
	seen := false
	var nvme facts.NVMeHealth
	nvmeSeen := false
	var scsi facts.SCSIHealth
	scsiSeen := false
	var uncorrected int64
	extLog := false
	scsiVendor := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		key, val, hasColon := strings.Cut(line, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if m := textVersion().FindStringSubmatch(line); m != nil {
			s.Version, seen = m[1], true
			continue
		}
		noteMessage(s, line)
		switch {
		case strings.HasPrefix(line, "=== START OF"):
			seen = true
			section = line
			continue
		case strings.HasPrefix(line, "ID# ATTRIBUTE_NAME"):
			section = "attrs"
			continue
		case strings.HasPrefix(line, "SMART Extended Self-test Log"):
			// -x prints the extended log (48-bit LBAs) and then the
			// standard one; the extended one is kept.
			s.SelfTestLog, s.SelfTests, extLog = true, nil, true
			s.SelfTestLogQuote = strings.TrimSpace(line)
			section = "selftest-ext"
			continue
		case strings.HasPrefix(line, "SMART Self-test log"):
			s.SelfTestLog = true
			if !extLog {
				s.SelfTestLogQuote = strings.TrimSpace(line)
			}
			section = "selftest-std-ignored"
			if !extLog {
				section = "selftest"
			}
			continue
		case strings.HasPrefix(strings.ToLower(line), "no self-tests have been logged"):
			s.SelfTestLog = true
			s.SelfTestLogQuote = strings.TrimSpace(line)
			continue
		case strings.HasPrefix(line, "Error counter log"):
			section = "errlog"
			continue
		case strings.HasPrefix(line, "SATA Phy Event Counters"):
			section = "phy"
			continue
		case strings.HasPrefix(line, "SCT capabilities:"):
			// smartctl -c/-a/-x, 5.x on: "SCT capabilities: (0x003d) SCT
			// Status supported. SCT Error Recovery Control supported. …";
			// bit 3 (0x0008) is ERC (ataprint.cpp, ATA8-ACS word 206).
			if m := sctCaps().FindStringSubmatch(line); m != nil {
				if v, err := strconv.ParseUint(m[1], 16, 16); err == nil {
					sctCapsKnown, sctCapsERC = true, v&0x0008 != 0
				}
			}
			continue
		case strings.Contains(line, "does not support SCT Error Recovery Control"):
			// smartctl 5.x: "Warning: device does not support SCT Error Recovery Control command"
			s.ERC = &facts.ERC{}
			continue
		case strings.HasPrefix(line, "SCT Error Recovery Control"):
			if strings.Contains(line, "not supported") {
				s.ERC = &facts.ERC{}
			} else {
				s.ERC = &facts.ERC{Supported: true}
				section = "erc"
			}
			continue
		case line == "":
			if section != "erc" {
				section = ""
			}
			continue
		}
		switch section {
		case "attrs":
			if a, ok := textAttr(line); ok {
				s.Attributes = append(s.Attributes, a)
				continue
			}
		case "selftest", "selftest-ext":
			if m := scsiSelfTest().FindStringSubmatch(line); m != nil {
				// SCSI results: "Completed" passed; "Completed, segment
				// failed", "Failed in …", "Aborted …" did not.
				h, _ := strconv.ParseInt(m[3], 10, 64)
				st := strings.TrimSpace(m[2])
				s.SelfTests = append(s.SelfTests, facts.SelfTest{Type: strings.TrimSpace(m[1]), Status: st, Passed: st == "Completed", Hours: h})
				continue
			}
			if m := selfTest().FindStringSubmatch(line); m != nil {
				h, _ := strconv.ParseInt(m[3], 10, 64)
				st := strings.TrimSpace(m[2])
				s.SelfTests = append(s.SelfTests, facts.SelfTest{Type: strings.TrimSpace(m[1]), Status: st,
					Passed: strings.HasPrefix(st, "Completed without error"), Hours: h})
				continue
			}
		case "phy":
			if m := phyEvent().FindStringSubmatch(line); m != nil {
				id, _ := strconv.ParseInt(m[1], 16, 32)
				v, _ := strconv.ParseInt(m[2], 10, 64)
				s.PhyEvents = append(s.PhyEvents, facts.PhyEvent{ID: int(id), Name: strings.TrimSpace(m[3]), Value: v})
				continue
			}
		case "erc":
			if m := ercLine().FindStringSubmatch(line); m != nil && s.ERC != nil {
				v := 0
				if m[2] != "Disabled" {
					v, _ = strconv.Atoi(m[2])
				}
				if m[1] == "Read" {
					s.ERC.ReadDS = v
				} else {
					s.ERC.WriteDS = v
					section = ""
				}
				continue
			}
		}
		if m := scsiEnvTemp().FindStringSubmatch(line); m != nil {
			v, _ := strconv.Atoi(m[2])
			switch m[1] {
			case "Current temperature":
				s.Temp = intp(v)
			case "Lifetime maximum temperature":
				s.TempMax = intp(v)
			default:
				s.TempMin = intp(v)
			}
			continue
		}
		if !hasColon {
			continue
		}
		switch key {
		case "Model Family":
			s.Family = val
		case "Device Model", "Model Number":
			s.Model = val
		case "Product":
			s.Model = strings.TrimSpace(scsiVendor + " " + val)
		case "Vendor":
			scsiVendor = val
		case "Serial Number", "Serial number":
			s.Serial, seen = val, true
		case "Firmware Version", "Revision":
			s.Firmware = val
		case "Rotation Rate":
			if strings.HasPrefix(val, "Solid State") {
				s.RotationRPM = intp(0)
			} else if v, err := strconv.Atoi(strings.Fields(val + " x")[0]); err == nil {
				s.RotationRPM = intp(v)
			}
		case "TRIM Command":
			s.TRIM = boolp(strings.HasPrefix(val, "Available"))
		case "SATA Version is":
			if m := sataVer().FindStringSubmatch(line); m != nil {
				s.LinkQuote = m[0]
				s.LinkMaxGbps = gbps(m[1])
				s.LinkCurGbps = s.LinkMaxGbps
				if m[2] != "" {
					s.LinkCurGbps = gbps(m[2])
				}
			}
		case "SMART overall-health self-assessment test result":
			s.Passed, seen = boolp(strings.HasPrefix(val, "PASSED")), true
		case "SMART Health Status":
			s.Passed, seen = boolp(val == "OK"), true
			scsiSeen = true
		case "Current Temperature", "Current Drive Temperature":
			if v, ok := firstInt(val); ok && !strings.Contains(val, "?") {
				s.Temp = intp(int(v))
			}
		case "Lifetime    Min/Max Temperature":
			if lo, hi, ok := pair(val); ok {
				s.TempMin, s.TempMax = intp(lo), intp(hi)
			}
		case "Specified Max Operating Temperature", "Drive Trip Temperature":
			if v, ok := firstInt(val); ok {
				s.TempLimit = intp(int(v))
			}
		case "Warning  Comp. Temp. Threshold":
			if v, ok := firstInt(val); ok && v > 0 {
				s.TempLimit = intp(int(v))
			}
		case "Elements in grown defect list":
			if v, ok := firstInt(val); ok {
				scsi.GrownDefects, scsiSeen = int64p(v), true
			}
		case "Accumulated power on time, hours":
			// "hours:minutes 12345:20", smartctl 7: "… 146:02 [8762 minutes]"
			if f := strings.Fields(val); len(f) >= 2 && f[0] == "minutes" {
				if h, m, ok := strings.Cut(f[1], ":"); ok {
					hv, e1 := strconv.ParseInt(h, 10, 64)
					mv, e2 := strconv.Atoi(m)
					if e1 == nil && e2 == nil {
						s.PowerOnHours, s.PowerOnMinutes = int64p(hv), mv
					}
				}
			}
		case "Critical Warning":
			if v, err := strconv.ParseInt(strings.TrimPrefix(val, "0x"), 16, 32); err == nil {
				nvme.CriticalWarning, nvmeSeen = int(v), true
			}
		case "Temperature":
			if nvmeSeen {
				if v, ok := firstInt(val); ok {
					s.Temp = intp(int(v))
				}
			}
		case "Available Spare":
			if v, ok := firstInt(val); ok {
				nvme.AvailableSpare, nvmeSeen = int(v), true
			}
		case "Available Spare Threshold":
			if v, ok := firstInt(val); ok {
				nvme.SpareThreshold = int(v)
			}
		case "Percentage Used":
			if v, ok := firstInt(val); ok {
				nvme.PercentageUsed = int(v)
			}
		case "Media and Data Integrity Errors":
			if v, ok := firstInt(val); ok {
				nvme.MediaErrors = v
			}
		case "Error Information Log Entries":
			if v, ok := firstInt(val); ok {
				nvme.ErrLogEntries = v
			}
		case "Unsafe Shutdowns":
			if v, ok := firstInt(val); ok {
				nvme.UnsafeShutdowns = v
			}
		case "Power On Hours":
			if v, ok := firstInt(val); ok {
				s.PowerOnHours = int64p(v)
			}
		case "read", "write", "verify":
			// SCSI error counter log: "read:  0  0  0  0  0  1234.567  0"
			f := strings.Fields(val)
			if len(f) == 7 && section == "errlog" {
				if v, err := strconv.ParseInt(f[6], 10, 64); err == nil {
					uncorrected += v
					scsiSeen = true
					scsi.UncorrectedBy = append(scsi.UncorrectedBy, facts.SCSICounter{Op: key, Uncorrected: v})
					scsi.Uncorrected = int64p(uncorrected)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, errf("%v", err)
	}
	if sctCapsKnown && !sctCapsERC {
		// The drive's capability word rules: without the ERC bit a
		// printed ERC section cannot be set (smartctl -l scterc fails).
		s.ERC = &facts.ERC{}
	}
	if !seen && len(s.Attributes) == 0 && !s.Standby && s.NoAnswer == "" && s.Temp == nil && !s.SelfTestLog && !nvmeSeen && !scsiSeen && s.ERC == nil && len(s.PhyEvents) == 0 {
		return nil, errf("no smartctl header, health line or attribute table")
	}
	if scsiNoTemp(s.Temp, s.TempLimit) {
		s.Temp, s.TempLimit = nil, nil
	}
	if nvmeSeen {
		s.NVMe = &nvme
		s.Protocol = "NVMe"
	} else if scsiSeen && len(s.Attributes) == 0 {
		s.SCSI = &scsi
		s.Protocol = "SCSI"
	}
	finish(s)
	return s, nil
}

func textAttr(line string) (facts.Attribute, bool) {
	var a facts.Attribute
	var wf string
	if m := attrLong().FindStringSubmatch(line); m != nil {
		a.ID, _ = strconv.Atoi(m[1])
		a.Name = m[2]
		a.Value, _ = strconv.Atoi(m[3])
		a.Worst, _ = strconv.Atoi(m[4])
		a.Thresh, _ = strconv.Atoi(m[5])
		a.Prefail = m[6] == "Pre-fail"
		wf, a.Raw = m[7], strings.TrimSpace(m[8])
	} else if m := attrBrief().FindStringSubmatch(line); m != nil {
		a.ID, _ = strconv.Atoi(m[1])
		a.Name = m[2]
		a.Prefail = m[3][0] == 'P'
		a.Value, _ = strconv.Atoi(m[4])
		a.Worst, _ = strconv.Atoi(m[5])
		a.Thresh, _ = strconv.Atoi(m[6])
		wf, a.Raw = m[7], strings.TrimSpace(m[8])
	} else {
		return a, false
	}
	switch wf {
	case "FAILING_NOW", "NOW":
		a.WhenFailed = "now"
	case "In_the_past", "Past":
		a.WhenFailed = "past"
	}
	a.Count, a.Packed = decodeRaw(a.Raw, 0)
	return a, true
}

// firstInt reads the first number of "1,234", "35 C", "100%", "33 Celsius".
func firstInt(s string) (int64, bool) {
	m := numRe().FindString(s)
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(m, ",", ""), 10, 64)
	return v, err == nil
}

// pair reads "18/41 Celsius".
func pair(s string) (int, int, bool) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(f[0], "/")
	if !ok {
		return 0, 0, false
	}
	x, e1 := strconv.Atoi(a)
	y, e2 := strconv.Atoi(b)
	return x, y, e1 == nil && e2 == nil
}
