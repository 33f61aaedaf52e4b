package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/rule"
)

// A USB bridge reports rotational=1 for whatever sits behind it; the drive's
// own SMART identity (NVMe protocol, rotation rate) decides whether the 50 °C
// hard-disk rule applies, and the inventory TYPE. Real smartctl outputs; the
// temperature is set to the reported 59 °C.
func TestDiskRotationalOverBridge(t *testing.T) {
	tests := []struct {
		file     string
		sysfsRot bool
		temp     int
		wantRot  bool
		wantHot  bool
	}{
		// Samsung T7 (NVMe behind an ASMedia USB bridge, -d sntasmedia).
		{"pysmart-nvme_usb_asmedia_issue_97-all.txt", true, 51, false, false}, // its own limit is 52 °C
		{"pysmart-nvme_usb_asmedia_issue_97-all.txt", true, 53, false, true},
		// SATA SSD behind a USB-SAT bridge: JSON rotation_rate 0.
		{"telegraf-smartctl-usb.json", true, 59, false, false},
		// "Rotation Rate: Solid State Device" (text) with a wrong flag.
		{"exporter-sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json", true, 59, false, false},
		// A real 7200 rpm hard disk whose queue says rotational=0 (a
		// RAID controller): SMART says it spins, 55 °C warns.
		{"exporter-sat-Hitachi_Deskstar_7K1000.C-Hitachi_HDS721010CLA332-sda.json", false, 55, true, true},
		{"exporter-sat-Hitachi_Deskstar_7K1000.C-Hitachi_HDS721010CLA332-sda.json", false, 45, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			h, s := corpusHost(t, filepath.Join(smartCorpus, tt.file))
			rot := tt.sysfsRot
			h.Block[0].Rotational = &rot
			temp := tt.temp
			s.Temp = &temp
			if r := h.Block[0].Spins(); r == nil || *r != tt.wantRot {
				t.Fatalf("Spins = %v, want %v (protocol %q, rpm %v)", r, tt.wantRot, s.Protocol, s.RotationRPM)
			}
			fs := checkHot(rule.Input{Host: h})
			if (len(fs) > 0) != tt.wantHot {
				t.Fatalf("health-hot: %v, want %v", fs, tt.wantHot)
			}
			if tt.wantHot && tt.wantRot && !strings.Contains(fs[0].Why, "50 °C a hard disk") {
				t.Errorf("why: %s", fs[0].Why)
			}
		})
	}
}

// health-no-selftest quotes what the smartctl output says (a text line, or
// the JSON member with its count) and, since smartctl output was read,
// recommends the smartd schedule and a test, never an install.
func TestNoSelfTestEvidence(t *testing.T) {
	tests := []struct{ file, quote string }{
		{"pysmart-sas_hdd_0_issue_51-scsi-all.txt", "No Self-tests have been logged"},
		{"scrutiny-smart-ata-failed-scrutiny.json", "ata_smart_self_test_log.extended.count: 0"},
		{"telegraf-smartctl-usb.json", "ata_smart_self_test_log.standard.count: 0"},
		{"telegraf-smartctl-nvme.json", `nvme_self_test_log: no "table"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			h, _ := corpusHost(t, filepath.Join(smartCorpus, tt.file))
			fs := checkNoSelfTest(rule.Input{Host: h})
			if len(fs) != 1 {
				t.Fatalf("findings: %v", fs)
			}
			f := fs[0]
			if len(f.Evidence) != 1 || f.Evidence[0].Value != tt.quote {
				t.Errorf("evidence %+v, want %q", f.Evidence, tt.quote)
			}
			b, _ := os.ReadFile(filepath.Join(smartCorpus, tt.file))
			member, _, _ := strings.Cut(tt.quote, ".")
			member, _, _ = strings.Cut(member, ":")
			if !strings.Contains(string(b), tt.quote) && !strings.Contains(string(b), `"`+member+`"`) {
				t.Errorf("%q is not in the file", tt.quote)
			}
			r := f.Recommendation
			if r == nil || strings.Contains(r.Target, "install") || !strings.Contains(r.Target, "smartd.conf") || !strings.Contains(r.Target, "smartctl -t long") {
				t.Errorf("recommendation: %+v", r)
			}
		})
	}
}
