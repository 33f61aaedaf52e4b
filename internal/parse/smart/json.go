package smart

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

type jsonReport struct {
	Smartctl struct {
		Version    []int `json:"version"`
		ExitStatus *int  `json:"exit_status"`
		Messages   []struct {
			String   string `json:"string"`
			Severity string `json:"severity"`
		} `json:"messages"`
	} `json:"smartctl"`
	Device struct {
		Type     string `json:"type"`
		Protocol string `json:"protocol"`
	} `json:"device"`
	ModelFamily  string `json:"model_family"`
	ModelName    string `json:"model_name"`
	ScsiModel    string `json:"scsi_model_name"`
	ScsiProduct  string `json:"product"`
	ScsiVendor   string `json:"vendor"`
	Serial       string `json:"serial_number"`
	Firmware     string `json:"firmware_version"`
	Revision     string `json:"revision"`
	RotationRate *int   `json:"rotation_rate"`
	Trim         *struct {
		Supported bool `json:"supported"`
	} `json:"trim"`
	// smart_support.available is false for devices without SMART (RAID
	// controller logical volumes, some bridges): smartctl's text says
	// "SMART support is: Unavailable - device lacks SMART capability."
	SmartSupport *struct {
		Available *bool `json:"available"`
	} `json:"smart_support"`
	SmartStatus *struct {
		Passed *bool `json:"passed"`
	} `json:"smart_status"`
	Attributes *struct {
		Table []struct {
			ID         int    `json:"id"`
			Name       string `json:"name"`
			Value      int    `json:"value"`
			Worst      int    `json:"worst"`
			Thresh     int    `json:"thresh"`
			WhenFailed string `json:"when_failed"`
			Flags      struct {
				Prefailure bool `json:"prefailure"`
			} `json:"flags"`
			Raw struct {
				Value  int64  `json:"value"`
				String string `json:"string"`
			} `json:"raw"`
		} `json:"table"`
	} `json:"ata_smart_attributes"`
	PowerOnTime *struct {
		Hours   int64 `json:"hours"`
		Minutes int   `json:"minutes"`
	} `json:"power_on_time"`
	Temperature *struct {
		Current     *int `json:"current"`
		LifetimeMin *int `json:"lifetime_min"`
		LifetimeMax *int `json:"lifetime_max"`
		OpLimitMax  *int `json:"op_limit_max"`
		LimitMax    *int `json:"limit_max"`
		DriveTrip   *int `json:"drive_trip"`
	} `json:"temperature"`
	SCTERC *struct {
		Read struct {
			Enabled     bool `json:"enabled"`
			Deciseconds int  `json:"deciseconds"`
		} `json:"read"`
		Write struct {
			Enabled     bool `json:"enabled"`
			Deciseconds int  `json:"deciseconds"`
		} `json:"write"`
	} `json:"ata_sct_erc"`
	SCTCaps *struct {
		ERC *bool `json:"error_recovery_control_supported"`
	} `json:"ata_sct_capabilities"`
	SelfTestLog *struct {
		Standard *jsonSelfTests `json:"standard"`
		Extended *jsonSelfTests `json:"extended"`
	} `json:"ata_smart_self_test_log"`
	ExtSelfTestLog *jsonSelfTests `json:"ata_smart_extended_self_test_log"`
	NVMeSelfTest   *struct {
		Table []struct {
			SelfTestCode struct {
				String string `json:"string"`
			} `json:"self_test_code"`
			SelfTestResult struct {
				Value  int    `json:"value"`
				String string `json:"string"`
			} `json:"self_test_result"`
			PowerOnHours int64 `json:"power_on_hours"`
		} `json:"table"`
	} `json:"nvme_self_test_log"`
	PhyEvents *struct {
		Table []struct {
			ID    int    `json:"id"`
			Name  string `json:"name"`
			Value int64  `json:"value"`
		} `json:"table"`
	} `json:"sata_phy_event_counters"`
	InterfaceSpeed *struct {
		Max     *struct{ String string } `json:"max"`
		Current *struct{ String string } `json:"current"`
	} `json:"interface_speed"`
	NVMeLog *struct {
		// facts.NVMeHealth's members carry smartctl's names, so the
		// health log decodes straight into it.
		facts.NVMeHealth
		Temperature  *int   `json:"temperature"`
		PowerOnHours *int64 `json:"power_on_hours"`
	} `json:"nvme_smart_health_information_log"`
	NVMeTempThreshold *struct {
		Warning  *int `json:"warning"`
		Critical *int `json:"critical"`
	} `json:"nvme_composite_temperature_threshold"`
	GrownDefects *int64 `json:"scsi_grown_defect_list"`
	SCSIErrors   *struct {
		Read   *jsonSCSICounter `json:"read"`
		Write  *jsonSCSICounter `json:"write"`
		Verify *jsonSCSICounter `json:"verify"`
	} `json:"scsi_error_counter_log"`
}

// jsonSCSICounter is one row of scsi_error_counter_log.
type jsonSCSICounter struct {
	Total int64 `json:"total_uncorrected_errors"`
}

type jsonSelfTests struct {
	Count *int `json:"count"`
	Table []struct {
		Type struct {
			String string `json:"string"`
		} `json:"type"`
		Status struct {
			Value  int    `json:"value"`
			String string `json:"string"`
			Passed *bool  `json:"passed"`
		} `json:"status"`
		LifetimeHours int64 `json:"lifetime_hours"`
	} `json:"table"`
}

// ParseJSON reads `smartctl -j` output (smartmontools ≥ 7.0).
func ParseJSON(b []byte) (*facts.SMART, error) {
	var j jsonReport
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, errf("JSON: %v", err)
	}
	if j.Smartctl.Version == nil && j.Device.Type == "" && j.ModelName == "" {
		return nil, errf("JSON without a smartctl section")
	}
	s := &facts.SMART{Format: "json", ExitStatus: j.Smartctl.ExitStatus, Protocol: j.Device.Protocol, DeviceType: j.Device.Type,
		Family: j.ModelFamily, Serial: strings.TrimSpace(j.Serial), RotationRPM: j.RotationRate}
	if len(j.Smartctl.Version) >= 2 {
		s.Version = fmt.Sprintf("%d.%d", j.Smartctl.Version[0], j.Smartctl.Version[1])
	}
	s.Model = firstNonEmpty(j.ModelName, j.ScsiModel, strings.TrimSpace(j.ScsiVendor+" "+j.ScsiProduct))
	s.Firmware = firstNonEmpty(j.Firmware, j.Revision)
	for _, m := range j.Smartctl.Messages {
		noteMessage(s, m.String)
	}
	if j.Trim != nil {
		s.TRIM = boolp(j.Trim.Supported)
	}
	if ss := j.SmartSupport; ss != nil && ss.Available != nil && !*ss.Available && s.NoAnswer == "" {
		s.NoAnswer = "SMART support is: Unavailable (smart_support.available: false)"
	}
	if j.SmartStatus != nil {
		s.Passed = j.SmartStatus.Passed
	}
	if j.Attributes != nil {
		for _, a := range j.Attributes.Table {
			raw := a.Raw.String
			if raw == "" {
				raw = fmt.Sprint(a.Raw.Value)
			}
			cnt, packed := decodeRaw(raw, a.Raw.Value)
			wf := ""
			switch a.WhenFailed {
			case "now", "FAILING_NOW":
				wf = "now"
			case "past", "In_the_past":
				wf = "past"
			}
			s.Attributes = append(s.Attributes, facts.Attribute{ID: a.ID, Name: a.Name, Value: a.Value, Worst: a.Worst,
				Thresh: a.Thresh, WhenFailed: wf, Prefail: a.Flags.Prefailure, Raw: raw, Count: cnt, Packed: packed})
		}
	}
	if j.PowerOnTime != nil {
		s.PowerOnHours, s.PowerOnMinutes = int64p(j.PowerOnTime.Hours), j.PowerOnTime.Minutes
	}
	if t := j.Temperature; t != nil {
		s.Temp, s.TempMin, s.TempMax = t.Current, t.LifetimeMin, t.LifetimeMax
		if scsiNoTemp(t.Current, t.DriveTrip) {
			s.Temp, t.DriveTrip = nil, nil
		}
		switch {
		case t.OpLimitMax != nil:
			s.TempLimit = t.OpLimitMax
		case t.DriveTrip != nil:
			s.TempLimit = t.DriveTrip
		}
	}
	if e := j.SCTERC; e != nil {
		s.ERC = &facts.ERC{Supported: true}
		if e.Read.Enabled {
			s.ERC.ReadDS = e.Read.Deciseconds
		}
		if e.Write.Enabled {
			s.ERC.WriteDS = e.Write.Deciseconds
		}
	}
	if c := j.SCTCaps; c != nil && c.ERC != nil && !*c.ERC {
		s.ERC = &facts.ERC{} // the capability word has no ERC bit
	}
	var st *jsonSelfTests
	stName := ""
	if j.ExtSelfTestLog != nil {
		st, stName = j.ExtSelfTestLog, "ata_smart_extended_self_test_log"
	} else if j.SelfTestLog != nil {
		st, stName = firstLog(j.SelfTestLog.Extended, j.SelfTestLog.Standard), "ata_smart_self_test_log.standard"
		if j.SelfTestLog.Extended != nil {
			stName = "ata_smart_self_test_log.extended"
		}
	}
	if st != nil {
		s.SelfTestLog = true
		s.SelfTestLogQuote = stName + `: no "table"`
		if st.Count != nil {
			s.SelfTestLogQuote = fmt.Sprintf("%s.count: %d", stName, *st.Count)
		}
		for _, t := range st.Table {
			passed := t.Status.Passed != nil && *t.Status.Passed
			if t.Status.Passed == nil {
				passed = t.Status.Value == 0
			}
			s.SelfTests = append(s.SelfTests, facts.SelfTest{Type: t.Type.String, Status: t.Status.String, Passed: passed, Hours: t.LifetimeHours})
		}
	}
	if n := j.NVMeSelfTest; n != nil {
		s.SelfTestLog = true
		if s.SelfTestLogQuote == "" {
			s.SelfTestLogQuote = `nvme_self_test_log: no "table"`
		}
		for _, t := range n.Table {
			// Self-test result 0 = completed without error; 1-2 aborted by
			// host/reset; 5-7 failed segments (NVMe base spec, Fig. "Self-test Result").
			s.SelfTests = append(s.SelfTests, facts.SelfTest{Type: t.SelfTestCode.String, Status: t.SelfTestResult.String,
				Passed: t.SelfTestResult.Value == 0, Hours: t.PowerOnHours})
		}
	}
	s.SelfTests = append(s.SelfTests, scsiSelfTestsJSON(b)...)
	if len(s.SelfTests) > 0 {
		s.SelfTestLog = true
	}
	if p := j.PhyEvents; p != nil {
		for _, e := range p.Table {
			s.PhyEvents = append(s.PhyEvents, facts.PhyEvent{ID: e.ID, Name: e.Name, Value: e.Value})
		}
	}
	if is := j.InterfaceSpeed; is != nil {
		if is.Max != nil {
			s.LinkMaxGbps = gbps(is.Max.String)
			s.LinkQuote = "interface_speed max " + is.Max.String
		}
		if is.Current != nil {
			s.LinkCurGbps = gbps(is.Current.String)
		}
	}
	if n := j.NVMeLog; n != nil {
		nv := n.NVMeHealth
		s.NVMe = &nv
		if s.Temp == nil {
			s.Temp = n.Temperature
		}
		if s.PowerOnHours == nil && n.PowerOnHours != nil {
			s.PowerOnHours = n.PowerOnHours
		}
		if th := j.NVMeTempThreshold; th != nil && th.Warning != nil && *th.Warning > 0 {
			s.TempLimit = th.Warning
		}
	}
	if j.GrownDefects != nil || j.SCSIErrors != nil {
		s.SCSI = &facts.SCSIHealth{GrownDefects: j.GrownDefects}
		if e := j.SCSIErrors; e != nil {
			var tot int64
			for i, c := range []*jsonSCSICounter{e.Read, e.Write, e.Verify} {
				if c != nil {
					tot += c.Total
					s.SCSI.UncorrectedBy = append(s.SCSI.UncorrectedBy, facts.SCSICounter{Op: []string{"read", "write", "verify"}[i], Uncorrected: c.Total})
				}
			}
			s.SCSI.Uncorrected = int64p(tot)
		}
	}
	finish(s)
	return s, nil
}

// scsiSelfTestsJSON reads the SCSI self-test log smartctl ≥ 7.2 prints as
// "scsi_self_test_0" … "scsi_self_test_19" (newest first), each with a code,
// a result (0 = "Completed"; SPC-4 self-test results 1-2 aborted, 3 unknown
// error, 4-7 failed segment, 15 in progress) and the power-on hours.
func scsiSelfTestsJSON(b []byte) []facts.SelfTest {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	var out []facts.SelfTest
	for i := 0; i < 20; i++ {
		raw, ok := m[fmt.Sprintf("scsi_self_test_%d", i)]
		if !ok {
			break
		}
		var t struct {
			Code struct {
				String string `json:"string"`
			} `json:"code"`
			Result struct {
				Value  int    `json:"value"`
				String string `json:"string"`
			} `json:"result"`
			PowerOnTime struct {
				Hours int64 `json:"hours"`
			} `json:"power_on_time"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		out = append(out, facts.SelfTest{Type: t.Code.String, Status: t.Result.String, Passed: t.Result.Value == 0, Hours: t.PowerOnTime.Hours})
	}
	return out
}

// scsiNoTemp: a SCSI device whose temperature log page answers 0 °C with a
// 0 °C trip point (RAID controller logical volumes: MegaRAID, AVAGO, Intel
// RS3) has no sensor behind it; smartctl prints the zeros, they are no
// reading.
func scsiNoTemp(cur, trip *int) bool {
	return cur != nil && *cur == 0 && (trip == nil || *trip == 0)
}

func firstLog(l ...*jsonSelfTests) *jsonSelfTests {
	for _, x := range l {
		if x != nil {
			return x
		}
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

// noteMessage reads smartctl's own messages (JSON "messages", the text's
// free lines): standby and devices that did not answer.
func noteMessage(s *facts.SMART, m string) {
	// smartctl pads its "Key:   value" lines ("SMART support is:     Unavailable").
	l := strings.ToLower(strings.Join(strings.Fields(m), " "))
	switch {
	case strings.Contains(l, "is in standby mode"), strings.Contains(l, "is in sleep mode"), strings.Contains(l, "is in idle_b mode") && strings.Contains(l, "exit("):
		s.Standby = true
	case strings.Contains(l, "unknown usb bridge"):
		s.NoAnswer = strings.TrimSpace(m)
	case strings.Contains(l, "please specify device type"), strings.Contains(l, "unable to detect device type"):
		if s.NoAnswer == "" {
			s.NoAnswer = strings.TrimSpace(m)
		}
	case strings.Contains(l, "read device identity failed"), strings.Contains(l, "smart command failed"),
		strings.Contains(l, "failed: no such device"), strings.Contains(l, "smart support is: unavailable"):
		if s.NoAnswer == "" {
			s.NoAnswer = strings.TrimSpace(m)
		}
	}
}
