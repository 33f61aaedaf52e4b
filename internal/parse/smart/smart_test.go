package smart

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
)

const corpus = "../../../testdata/real/smart"

func load(t *testing.T, name string) *facts.SMART {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func attr(t *testing.T, s *facts.SMART, id int) facts.Attribute {
	t.Helper()
	a := Attr(s, id)
	if a == nil {
		t.Fatalf("attribute %d missing", id)
	}
	return *a
}

// Values below were read off the files by hand (smartctl's own decoding).
func TestKnownSamples(t *testing.T) {
	s := load(t, "scrutiny-smart-fail2.json")
	if s.Passed == nil || *s.Passed || s.Protocol != "ATA" || s.Format != "json" {
		t.Errorf("fail2: passed %v protocol %s", s.Passed, s.Protocol)
	}
	if a := attr(t, s, 5); a.Count != 1975 || a.WhenFailed != "now" || a.Thresh != 5 {
		t.Errorf("fail2 attr 5: %+v", a)
	}
	if a := attr(t, s, 197); a.Count != 8 {
		t.Errorf("fail2 attr 197: %+v", a)
	}
	if s.LinkCurGbps != 1.5 || s.LinkMaxGbps != 6 {
		t.Errorf("fail2 link %v/%v", s.LinkCurGbps, s.LinkMaxGbps)
	}

	s = load(t, "exporter-sat-null-TOSHIBA_HDWR160-sdc.json")
	a := attr(t, s, 194)
	if a.Count != 29 || !a.Packed || a.Raw != "29 (Min/Max 15/39)" || *s.Temp != 29 {
		t.Errorf("packed temperature: %+v temp %v", a, *s.Temp)
	}

	s = load(t, "telegraf-text-seagateSATAInfoData75.txt")
	if s.Format != "text" || s.Version != "7.5" || s.Family != "Seagate BarraCuda 3.5 (CMR)" || *s.RotationRPM != 7200 {
		t.Errorf("seagate text: %+v", s)
	}
	if a := attr(t, s, 1); a.Raw != "2765/13191816" || a.Count != 2765 || !a.Packed {
		t.Errorf("Seagate packed error rate: %+v", a)
	}

	s = load(t, "github-script-WD40EFAX-smr-7.2.txt")
	if s.Family != "Western Digital Red (SMR)" || s.TRIM == nil || !*s.TRIM || *s.RotationRPM != 5400 || *s.PowerOnHours != 29520 ||
		*s.Temp != 35 || !s.SelfTestLog || len(s.SelfTests) != 1 || !s.SelfTests[0].Passed || s.SelfTests[0].Hours != 29519 {
		t.Errorf("WD40EFAX: %+v", s)
	}

	s = load(t, "telegraf-text-mockStandbyData.txt")
	if !s.Standby || s.Passed != nil {
		t.Errorf("standby: %+v", s)
	}
	for _, f := range []string{"issue-smartmontools-32-unknown-bridge-6.6.txt", "issue-smartmontools-270-unknown-bridge-7.4.txt"} {
		if s := load(t, f); !strings.Contains(s.NoAnswer, "Unknown USB bridge") {
			t.Errorf("%s: NoAnswer %q", f, s.NoAnswer)
		}
	}

	s = load(t, "exporter-SEAGATE_ST373453LC_26.json")
	if s.Protocol != "SCSI" || s.SCSI == nil || *s.SCSI.GrownDefects != 260 || *s.TempLimit != 68 {
		t.Errorf("SAS: %+v %+v", s, s.SCSI)
	}
	s = load(t, "exporter-nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json")
	if s.NVMe == nil || s.NVMe.CriticalWarning != 16 {
		t.Errorf("NVMe critical warning: %+v", s.NVMe)
	}
	s = load(t, "scrutiny-smart-ata-failed-scrutiny.json")
	if s.ERC == nil || !s.ERC.Supported || s.ERC.ReadDS != 0 || s.ERC.WriteDS != 0 {
		t.Errorf("ERC disabled: %+v", s.ERC)
	}
	s = load(t, "issue-smartmontools-537-nvme-100pct-excerpt.txt")
	if s.NVMe == nil || s.NVMe.CriticalWarning != 4 || s.NVMe.PercentageUsed != 100 || *s.Temp != 28 {
		t.Errorf("NVMe text: %+v", s.NVMe)
	}
	s = load(t, "issue-smartmontools-389-mybook-53C-excerpt.txt")
	if *s.Temp != 53 || len(s.SelfTests) != 1 || s.SelfTests[0].Hours != 1 || !s.SelfTests[0].Passed {
		t.Errorf("extended + standard self-test logs: %+v", s.SelfTests)
	}
	s = load(t, "issue-smartmontools-590-barracuda-xt-erc-excerpt.txt")
	if s.ERC == nil || !s.ERC.Supported || s.ERC.ReadDS != 0 || len(s.PhyEvents) != 4 || s.PhyEvents[0].ID != 0x0a || s.PhyEvents[0].Value != 35 || s.Protocol != "ATA" {
		t.Errorf("ERC/phy text: %+v %+v", s.ERC, s.PhyEvents)
	}
	s = load(t, "issue-smartmontools-154-bogus-limit-excerpt.txt")
	if *s.Temp != 48 || *s.TempLimit != 13 || *s.TempMin != 13 || *s.TempMax != 57 || s.SelfTestLog {
		t.Errorf("SCT text: temp %v limit %v", *s.Temp, *s.TempLimit)
	}
}

var leading = regexp.MustCompile(`^-?\d+`)

// TestCorpusInvariants: every attribute count is the number smartctl
// shows first in its decoded raw string (never a packed raw.value), every
// temperature is plausible, every sample parses.
func TestCorpusInvariants(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*"))
	n := 0
	for _, f := range files {
		if filepath.Base(f) == "ORIGIN" {
			continue
		}
		n++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := rawStrings(t, b, s.Format)
		for _, a := range s.Attributes {
			w, ok := want[a.ID]
			if !ok {
				t.Errorf("%s: attribute %d not in the source", f, a.ID)
				continue
			}
			if a.Raw != w {
				t.Errorf("%s: attribute %d raw %q, smartctl printed %q", f, a.ID, a.Raw, w)
			}
			if m := leading.FindString(w); m != "" {
				v, _ := strconv.ParseInt(m, 10, 64)
				if a.Count != v {
					t.Errorf("%s: attribute %d count %d, smartctl shows %d first", f, a.ID, a.Count, v)
				}
			}
		}
		for _, p := range []*int{s.Temp, s.TempMin, s.TempMax} {
			if p != nil && (*p < -40 || *p > 100) {
				t.Errorf("%s: implausible temperature %d", f, *p)
			}
		}
	}
	if n < 60 {
		t.Errorf("corpus has %d samples, want ≥ 60", n)
	}
}

// rawStrings reads each attribute's decoded raw string straight from the
// source, independently of the parser.
func rawStrings(t *testing.T, b []byte, format string) map[int]string {
	out := map[int]string{}
	if format == "json" {
		var j map[string]any
		if err := json.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		tab, _ := j["ata_smart_attributes"].(map[string]any)
		rows, _ := tab["table"].([]any)
		for _, r := range rows {
			m := r.(map[string]any)
			raw := m["raw"].(map[string]any)
			out[int(m["id"].(float64))] = raw["string"].(string)
		}
		return out
	}
	re := regexp.MustCompile(`^\s*(\d{1,3})\s+\S+\s+(?:0x[0-9a-f]{4}|[PO-][O-][S-][R-][C-][K+-]\S*)\s+\d+\s+\d+\s+\S+\s+(?:(?:Pre-fail|Old_age)\s+\S+\s+)?\S+\s+(.*)$`)
	for _, l := range strings.Split(string(b), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[1])
			out[id] = strings.TrimSpace(m[2])
		}
	}
	return out
}

func TestMalformed(t *testing.T) {
	for _, in := range []string{"", "hello\n", "{", `{"foo": 1}`, "{\"smartctl\": {\"version\": \"x\"}}", "ID# ATTRIBUTE_NAME\n  5 x"} {
		if _, err := Parse([]byte(in)); err == nil || !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("%q: want perr.ErrSyntax, got %v", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.txt"))
	for _, p := range files[:min(len(files), 6)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"smartctl":{"version":[7,3]},"ata_smart_attributes":{"table":[{"id":194,"raw":{"value":1,"string":"30 (Min/Max 1/2)"}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err == nil && s == nil {
			t.Fatal("nil report without error")
		}
	})
}

// TestSCSIText reads the SAS form of smartctl -x (the error counter log
// layout of smartctl's scsiprint.cpp) and a real SAS header.
func TestSCSIText(t *testing.T) {
	s := load(t, "telegraf-text-smartctlMegaraidInfo1.txt")
	if s.Protocol != "SCSI" || !strings.HasPrefix(s.Model, "SEAGATE ") || *s.PowerOnHours != 16003 || s.PowerOnMinutes != 18 || *s.TempLimit != 63 {
		t.Errorf("SAS header: %+v", s)
	}
	in := "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0] (local build)\n\n" +
		"=== START OF READ SMART DATA SECTION ===\nSMART Health Status: OK\n\nElements in grown defect list: 3\n\n" +
		"Error counter log:\n" +
		"           Errors Corrected by           Total   Correction     Gigabytes    Total\n" +
		"               ECC          rereads/    errors   algorithm      processed    uncorrected\n" +
		"           fast | delayed   rewrites  corrected  invocations   [10^9 bytes]  errors\n" +
		"read:          0        0         0         0          0      12345.678           2\n" +
		"write:         0        0         0         0          0       1234.567           0\n" +
		"verify:        0        0         0         0          0          0.000           1\n"
	s, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.SCSI == nil || *s.SCSI.GrownDefects != 3 || s.SCSI.Uncorrected == nil || *s.SCSI.Uncorrected != 3 {
		t.Errorf("error counter log: %+v", s.SCSI)
	}
}

// Real SCSI/SAS outputs of py-SMART's test set (ORIGIN), values read off
// the files by hand.
func TestSCSIRealOutputs(t *testing.T) {
	// SAS SSD, smartctl 7.3 -x: five background self-tests logged (so no
	// "never self-tested"), temperature from the environmental page.
	s := load(t, "pysmart-sas_ssd_0_issue_57-x.txt")
	if len(s.SelfTests) != 5 || !s.SelfTestLog || s.SelfTests[0].Type != "Background short" ||
		s.SelfTests[0].Status != "Completed" || !s.SelfTests[0].Passed || s.SelfTests[0].Hours != 134 {
		t.Errorf("SAS SSD self-tests: log %v %+v", s.SelfTestLog, s.SelfTests)
	}
	if s.Temp == nil || *s.Temp != 25 || s.TempMax == nil || *s.TempMax != 54 || s.TempMin == nil || *s.TempMin != 19 {
		t.Errorf("SAS SSD temperature: %v %v %v", s.Temp, s.TempMin, s.TempMax)
	}
	if s.PowerOnHours == nil || *s.PowerOnHours != 146 || s.PowerOnMinutes != 2 {
		t.Errorf("SAS SSD power-on: %v:%d", s.PowerOnHours, s.PowerOnMinutes)
	}
	// "No Self-tests have been logged" (capital S, SCSI) is an empty log.
	s = load(t, "pysmart-sas_hdd_0_issue_51-scsi-all.txt")
	if !s.SelfTestLog || len(s.SelfTests) != 0 || s.Temp == nil || *s.Temp != 32 {
		t.Errorf("SAS HDD: log %v tests %v temp %v", s.SelfTestLog, s.SelfTests, s.Temp)
	}
	s = load(t, "pysmart-megaraid_jbod_sas_hdd_0_issue_85-scsi-all.txt")
	if len(s.SelfTests) != 1 || s.SelfTests[0].Hours != 349 || !s.SelfTests[0].Passed {
		t.Errorf("JBOD SAS HDD self-tests: %+v", s.SelfTests)
	}
	// RAID controller logical volumes: "SMART support is:     Unavailable"
	// (padded) is no answer, and their 0 C / 0 C temperature page no reading.
	for _, n := range []string{"pysmart-megaraid_vd_0-scsi-all.txt", "pysmart-unsupported_0-scsi-all.txt"} {
		s = load(t, n)
		if !strings.Contains(s.NoAnswer, "Unavailable - device lacks SMART capability") {
			t.Errorf("%s: NoAnswer %q", n, s.NoAnswer)
		}
		if s.Temp != nil || s.TempLimit != nil {
			t.Errorf("%s: temperature %v limit %v from a 0 C / 0 C page", n, *s.Temp, s.TempLimit)
		}
	}
}

func TestSCSISelfTestResults(t *testing.T) {
	in := "smartctl 7.2 2020-12-30 r5155\n=== START OF READ SMART DATA SECTION ===\nSMART Health Status: OK\n\n" +
		"SMART Self-test log\nNum  Test              Status                 segment  LifeTime  LBA_first_err [SK ASC ASQ]\n" +
		"     Description                              number   (hours)\n" +
		"# 1  Background long   Failed in segment -->       4   27316          1953524 [0x3 0x11 0x0]\n" +
		"# 2  Background short  Completed, segment failed   -   27000                - [-   -    -]\n" +
		"# 3  Background short  Self test in progress ...   -     NOW                - [-   -    -]\n" +
		"# 4  Background short  Completed                   -   26000                - [-   -    -]\n"
	s, err := ParseText([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []facts.SelfTest{
		{Type: "Background long", Status: "Failed in segment -->", Hours: 27316},
		{Type: "Background short", Status: "Completed, segment failed", Hours: 27000},
		{Type: "Background short", Status: "Self test in progress ...", Hours: 0},
		{Type: "Background short", Status: "Completed", Passed: true, Hours: 26000},
	}
	if len(s.SelfTests) != len(want) {
		t.Fatalf("got %+v", s.SelfTests)
	}
	for i := range want {
		if s.SelfTests[i] != want[i] {
			t.Errorf("test %d: got %+v want %+v", i, s.SelfTests[i], want[i])
		}
	}
}

func TestSCSISelfTestsJSON(t *testing.T) {
	s := load(t, "telegraf-smartctl-scsi_extended.json")
	if !s.SelfTestLog || len(s.SelfTests) == 0 || s.SelfTests[0].Type != "Background long" ||
		s.SelfTests[0].Status != "Completed" || !s.SelfTests[0].Passed || s.SelfTests[0].Hours != 90 {
		t.Errorf("scsi_self_test_N: log %v %+v", s.SelfTestLog, s.SelfTests)
	}
	// A RAID logical volume as smartctl -j reports it: no SMART, 0/0 page.
	in := `{"smartctl":{"version":[7,3]},"device":{"type":"scsi","protocol":"SCSI"},"smart_support":{"available":false},"temperature":{"current":0,"drive_trip":0}}`
	s, err := ParseJSON([]byte(in))
	if err != nil || s.Temp != nil || s.TempLimit != nil || !strings.Contains(s.NoAnswer, "Unavailable") {
		t.Errorf("RAID volume JSON: %v %+v", err, s)
	}
	// A disk with SMART says nothing of the kind.
	if s := load(t, "telegraf-smartctl-scsi.json"); s.NoAnswer != "" || s.Temp == nil {
		t.Errorf("telegraf SCSI: NoAnswer %q temp %v", s.NoAnswer, s.Temp)
	}
}
