package rules

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/parse/kmsg"
	"github.com/nastune/nastune/internal/parse/smart"
	"github.com/nastune/nastune/internal/rule"
)

var updateHealth = flag.Bool("update-health", false, "rewrite testdata/health-corpus.golden")

const smartCorpus = "../../testdata/real/smart"

// corpusHost puts one real smartctl report on disk sdb, a member of md0.
func corpusHost(t *testing.T, file string) (*facts.Host, *facts.SMART) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := smart.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	d := facts.BlockDevice{Name: "sdb", Kind: "disk", Serial: "S1", ByID: []string{"ata-MODEL_S1"},
		Health: &facts.DiskHealth{SMART: s, Source: filepath.Base(file), ByPath: "pci-0000:00:17.0-ata-2"}}
	if s.Standby || s.NoAnswer != "" {
		d.Health.SMART = nil
		if s.Standby {
			d.Health.SMART = s
		}
	}
	h := &facts.Host{Block: []facts.BlockDevice{d},
		MD: []facts.MDArray{{Name: "md0", Level: "raid6", Members: []facts.MDMember{{Device: "sdb1", Disk: "sdb", Role: "active"}}}}}
	return h, s
}

// healthy: passed, zero media and interface counters (the definition).
func healthy(s *facts.SMART) bool {
	if s.Passed != nil && !*s.Passed {
		return false
	}
	for _, a := range s.Attributes {
		if a.WhenFailed == "now" {
			return false
		}
		switch a.ID {
		case 5, 187, 197, 198, 199:
			if a.Count != 0 {
				return false
			}
		}
	}
	for _, p := range s.PhyEvents {
		if p.Value > 0 && strings.Contains(p.Name, "CRC") {
			return false
		}
	}
	if n := s.NVMe; n != nil && (n.MediaErrors > 0 || n.CriticalWarning != 0 || n.AvailableSpare < n.SpareThreshold || n.PercentageUsed >= 100) {
		return false
	}
	if c := s.SCSI; c != nil && (c.GrownDefects != nil && *c.GrownDefects > 0 || c.Uncorrected != nil && *c.Uncorrected > 0) {
		return false
	}
	return len(s.SelfTests) == 0 || !health.SelfTestFailed(s.SelfTests[0])
}

var bigNumber = regexp.MustCompile(`\d{10,}`)

// TestHealthCorpus runs the health rules over every real smartctl output:
// healthy disks get no warning (configuration findings, SMR and ERC,
// aside), every raw value shown is smartctl's decoded string, no packed
// raw is shown as a count; the findings are a reviewed golden file.
func TestHealthCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(smartCorpus, "*"))
	var golden strings.Builder
	for _, f := range files {
		if filepath.Base(f) == "ORIGIN" {
			continue
		}
		h, s := corpusHost(t, f)
		var fs []rule.Finding
		for _, r := range healthRules {
			fs = append(fs, r.Check(rule.Input{Host: h})...)
		}
		fmt.Fprintf(&golden, "== %s\n", filepath.Base(f))
		for _, x := range fs {
			fmt.Fprintf(&golden, "%-4s %s: %s\n", strings.ToUpper(x.Severity.String()), x.ID, x.Why)
			for _, e := range x.Evidence {
				fmt.Fprintf(&golden, "     %s\n", e.Value)
			}
			if healthy(s) && x.Severity >= rule.Warn && x.ID != metaSMR.ID && x.ID != metaERC.ID {
				t.Errorf("%s: healthy sample got %s %s: %s", f, x.Severity, x.ID, x.Why)
			}
			for _, e := range x.Evidence {
				if m := bigNumber.FindString(e.Value); m != "" && !strings.Contains(e.Value, "raw ") {
					t.Errorf("%s: %s shows a %s-digit number: %s", f, x.ID, strconv.Itoa(len(m)), e.Value)
				}
				if i := strings.Index(e.Value, " raw "); i >= 0 {
					id, _ := strconv.Atoi(strings.Fields(e.Value)[0])
					if a := smart.Attr(s, id); a == nil || e.Value[i+5:] != a.Raw {
						t.Errorf("%s: evidence %q is not smartctl's decoded raw", f, e.Value)
					}
				}
			}
			if m := bigNumber.FindString(strings.ReplaceAll(x.Why, s.Serial, "")); m != "" {
				t.Errorf("%s: %s says a %d-digit number: %s", f, x.ID, len(m), x.Why)
			}
		}
	}
	path := filepath.Join("testdata", "health-corpus.golden")
	if *updateHealth {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/rules -run TestHealthCorpus -update-health)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("health findings over the corpus differ from %s; review and rerun with -update-health", path)
	}
}

// TestHealthKernelLog maps real kernel-log excerpts onto a disk and checks
// which rule speaks: CRC → link (not media), UNC → media, UAS → USB.
func TestHealthKernelLog(t *testing.T) {
	cases := []struct {
		file, key, want, not string
		usb                  *facts.USBLink
	}{
		{"sunxi-24-badcrc.txt", "ata1", metaLink.ID, metaMedia.ID, nil},
		{"buffalo-203-10b8b-1.5g.txt", "ata1", metaLink.ID, metaMedia.ID, nil},
		{"zfs-1814-unc.txt", "ata3", metaMedia.ID, metaLink.ID, nil},
		{"longhorn-1920-medium-error.txt", "sde", metaMedia.ID, metaLink.ID, nil},
		{"buffalo-161-md-not-correctable.txt", "sdb", metaMedia.ID, metaIOErrors.ID, nil},
		{"friendlyarm-12-uas-abort.txt", "sda", metaUSBResets.ID, metaMedia.ID, &facts.USBLink{Device: "2-1", Driver: "uas"}},
		{"uas-3-usb-reset.txt", "2-1.2", metaUSBResets.ID, metaMedia.ID, &facts.USBLink{Device: "2-1.2", Driver: "uas"}},
		{"nvme-cli-151-timeout-reset.txt", "nvme2", metaIOErrors.ID, metaMedia.ID, nil},
		{"tlp-59-lpm-1.5g.txt", "ata1", "", metaLink.ID, nil},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("../../testdata/real/kmsg", c.file))
		if err != nil {
			t.Fatal(err)
		}
		kl := &facts.KernelLog{Source: "dmesg"}
		for _, e := range kmsg.Parse(b) {
			if e.Key == c.key || strings.HasPrefix(e.Key, c.key) {
				e.Disk = "sdx"
			}
			kl.Events = append(kl.Events, e)
		}
		h := &facts.Host{KernelLog: kl, Block: []facts.BlockDevice{{Name: "sdx", Kind: "disk", USB: c.usb,
			Health: &facts.DiskHealth{USBID: "174c:1153"}}}}
		got := map[string]rule.Finding{}
		for _, f := range Run(rule.Input{Host: h}) {
			if f.Family == "health" {
				got[f.ID] = f
			}
		}
		if c.want != "" {
			if _, ok := got[c.want]; !ok {
				t.Errorf("%s: no %s (got %v)", c.file, c.want, keys(got))
			}
		}
		if _, ok := got[c.not]; ok {
			t.Errorf("%s: %s must not fire", c.file, c.not)
		}
		if f, ok := got[metaUSBResets.ID]; ok {
			quirk := strings.Contains(f.Recommendation.Target, "usb-storage.quirks=174c:1153:u")
			if quirk != (c.file != "uas-3-usb-reset.txt") {
				t.Errorf("%s: quirk advice %v: %s", c.file, quirk, f.Recommendation.Target)
			}
		}
	}
}

func keys(m map[string]rule.Finding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var evNumber = regexp.MustCompile(`(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?)`)

// TestHealthEvidenceQuotesItsFile: every number in an evidence line occurs
// in the file that line cites — the smartctl output (per-counter SCSI
// uncorrected totals, not their sum; the SATA version field) or the
// ata_link sysfs file it was read from. Each real smartctl report is put
// behind a SATA link that runs at 1.5 Gbps on a 6.0 Gbps port, so the
// link rule speaks wherever the disk reports a faster interface.
func TestHealthEvidenceQuotesItsFile(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(smartCorpus, "*"))
	sysfs := map[string]string{
		"/sys/class/ata_link/link2/sata_spd":          "1.5 Gbps\n",
		"/sys/class/ata_link/link2/hw_sata_spd_limit": "6.0 Gbps\n",
	}
	seen := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "ORIGIN" {
			continue
		}
		raw, _ := os.ReadFile(f)
		h, _ := corpusHost(t, f)
		h.Block[0].SATA = &facts.SATALink{Link: "link2", SpeedGbps: 1.5, LimitGbps: 6,
			SpeedRaw: strings.TrimSpace(sysfs["/sys/class/ata_link/link2/sata_spd"]),
			LimitRaw: strings.TrimSpace(sysfs["/sys/class/ata_link/link2/hw_sata_spd_limit"])}
		for _, r := range healthRules {
			for _, x := range r.Check(rule.Input{Host: h}) {
				if x.ID != "health-media-errors" && x.ID != "health-link-errors" {
					continue
				}
				for _, e := range x.Evidence {
					content, ok := sysfs[e.Source]
					if e.Source == filepath.Base(f) {
						content, ok = string(raw), true
					}
					if !ok {
						continue
					}
					seen[x.ID+" "+strings.TrimPrefix(filepath.Ext(e.Source), ".")] = true
					for _, n := range evNumber.FindAllString(e.Value, -1) {
						if strings.HasPrefix(n, "0x") {
							continue // an ID smartctl's JSON writes in decimal
						}
						if !strings.Contains(content, n) {
							t.Errorf("%s: %s evidence %q: %s does not occur in %s", filepath.Base(f), x.ID, e.Value, n, e.Source)
						}
					}
				}
			}
		}
	}
	// The corpus holds SCSI reports with uncorrected errors (JSON) and
	// SATA disks faster than 1.5 Gb/s (text and JSON).
	for _, k := range []string{"health-media-errors json", "health-link-errors json", "health-link-errors txt", "health-link-errors "} {
		if !seen[k] {
			t.Errorf("no %q evidence checked; seen %v", k, seen)
		}
	}
}

// TestAdminFailIsNotMedia: on the qemu lab's Debian 6.1 kernel `mdadm
// --fail` logs "Disk failure on vdj, disabling device." and nothing else
// about vdj. That says md dropped the member, not that its media fails:
// no health-media-errors (the md rules report the failed member). And a
// disk without SMART whose only kernel-log lines are boot-time "link up"
// lines has no known health (health.Unknown, shown as not collected), not
// "ok".
func TestAdminFailIsNotMedia(t *testing.T) {
	log := []byte("[  101.2] md/raid:md1: Disk failure on vdj, disabling device.\n" +
		"[  101.2] md/raid:md1: Operation continuing on 9 devices.\n")
	kl := &facts.KernelLog{Source: "/dev/kmsg"}
	for _, e := range kmsg.Parse(log) {
		if e.Key == "vdj" {
			e.Disk = "vdj"
		}
		kl.Events = append(kl.Events, e)
	}
	if len(kl.Events) == 0 {
		t.Fatal("the md failure line was not parsed")
	}
	h := &facts.Host{KernelLog: kl, Block: []facts.BlockDevice{{Name: "vdj", Kind: "disk", Health: &facts.DiskHealth{}}}}
	for _, f := range Run(rule.Input{Host: h}) {
		if f.ID == metaMedia.ID {
			t.Errorf("an administrative md fail read as failing media: %+v", f.Evidence)
		}
	}
	if l := health.Assess(h, h.Block[0]).Level; l != health.Unknown {
		t.Errorf("health level without SMART after an md fail = %s, want unknown (not collected)", l)
	}

	boot := []byte("[    1.9] ata1: SATA link up 1.5 Gbps (SStatus 113 SControl 300)\n")
	kl2 := &facts.KernelLog{Source: "/dev/kmsg"}
	for _, e := range kmsg.Parse(boot) {
		e.Disk = "sda"
		kl2.Events = append(kl2.Events, e)
	}
	h2 := &facts.Host{KernelLog: kl2, Block: []facts.BlockDevice{{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{}}}}
	if l := health.Assess(h2, h2.Block[0]).Level; l != health.Unknown {
		t.Errorf("health level with only a link-up line and no SMART = %s, want unknown", l)
	}
}
