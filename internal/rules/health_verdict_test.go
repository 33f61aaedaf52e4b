package rules

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/rule"
)

// reasonOf names the rule that reports each health.Reason kind.
var reasonOf = map[string]string{
	health.ReasonSMARTFailed: metaSMARTFailed.ID, health.ReasonMedia: metaMedia.ID,
	health.ReasonWear: metaWear.ID, health.ReasonLink: metaLink.ID, health.ReasonUSB: metaUSBResets.ID,
	health.ReasonIO: metaIOErrors.ID, health.ReasonHot: metaHot.ID,
}

// levelFromFindings is the level the health findings about d imply: failing
// when the drive's verdict or media rules speak, warn for any other
// warning about the disk's state (configuration, self-tests and age
// aside). It is how the level was computed before it became facts.
func levelFromFindings(h *facts.Host, d facts.BlockDevice) (health.Level, []string) {
	in := rule.Input{Host: &facts.Host{Block: []facts.BlockDevice{d}, MD: h.MD, ZFS: h.ZFS, KernelLog: h.KernelLog}}
	level := health.OK
	var ids []string
	for _, r := range healthRules {
		switch r.ID {
		case metaSMR.ID, metaERC.ID, metaNoSelfTest.ID, metaOldAge.ID:
			continue
		}
		for _, f := range r.Check(in) {
			switch {
			case f.ID == metaSMARTFailed.ID || f.ID == metaMedia.ID:
				level = health.Failing
				ids = append(ids, f.ID)
			case f.Severity >= rule.Warn:
				level = max(level, health.Warn)
				ids = append(ids, f.ID)
			}
		}
	}
	return level, ids
}

// checkVerdicts: health.Assess and the health rules agree on every disk of
// h, in level and in which tests raised it.
func checkVerdicts(t *testing.T, name string, h *facts.Host) int {
	t.Helper()
	n := 0
	for _, d := range h.Block {
		if d.Kind != "disk" {
			continue
		}
		v := health.Assess(h, d)
		want, ids := levelFromFindings(h, d)
		if v.Level == health.Unknown {
			if want > health.OK {
				t.Errorf("%s %s: verdict unknown, the rules say %s (%v)", name, d.Name, want, ids)
			}
			continue
		}
		n++
		var got []string
		for _, r := range v.Reasons {
			got = append(got, reasonOf[r.Kind])
		}
		sort.Strings(got)
		sort.Strings(ids)
		if v.Level != want || strings.Join(got, " ") != strings.Join(ids, " ") {
			t.Errorf("%s %s: verdict %s %v, the rules say %s %v", name, d.Name, v.Level, got, want, ids)
		}
	}
	return n
}

// TestVerdictMatchesFindings runs over every fixture host, the real
// smartctl corpus and the real kernel-log excerpts.
func TestVerdictMatchesFindings(t *testing.T) {
	judged := map[health.Level]int{}
	hosts, err := fixture.Hosts(fixture.HostsDir())
	if err != nil {
		t.Fatal(err)
	}
	for name := range hosts {
		root, err := hostfs.Open(fixture.HostDir(t, name))
		if err != nil {
			t.Fatal(err)
		}
		h := probe.Collect(context.Background(), root)
		root.Close()
		checkVerdicts(t, name, h)
		for _, v := range health.Disks(h) {
			judged[v.Level]++
		}
	}
	files, _ := filepath.Glob(filepath.Join(smartCorpus, "*"))
	for _, f := range files {
		if filepath.Base(f) == "ORIGIN" {
			continue
		}
		h, _ := corpusHost(t, f)
		checkVerdicts(t, filepath.Base(f), h)
		judged[health.Assess(h, h.Block[0]).Level]++
	}
	logs, _ := filepath.Glob("../../testdata/real/kmsg/*.txt")
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kl := &facts.KernelLog{Source: "dmesg"}
		keys := map[string]bool{}
		for _, e := range kmsg.Parse(b) {
			if e.Key != "" {
				e.Disk = e.Key
				keys[e.Key] = true
			}
			kl.Events = append(kl.Events, e)
		}
		h := &facts.Host{KernelLog: kl}
		for k := range keys {
			h.Block = append(h.Block, facts.BlockDevice{Name: k, Kind: "disk", Health: &facts.DiskHealth{}})
		}
		checkVerdicts(t, filepath.Base(f), h)
		for _, v := range health.Disks(h) {
			judged[v.Level]++
		}
	}
	// The comparison means something only if every level occurs.
	for _, l := range []health.Level{health.Unknown, health.OK, health.Warn, health.Failing} {
		if judged[l] == 0 {
			t.Errorf("no disk judged %s: the corpus no longer covers every level", l)
		}
	}
	t.Logf("verdicts: %v", judged)
}
