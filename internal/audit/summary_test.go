package audit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/realcorpus"
	"github.com/nastune/nastune/internal/rule"
)

func finding(id, family string, sev rule.Severity, subject, kind, target string) rule.Finding {
	f := rule.Finding{ID: id, Family: family, Severity: sev, Title: id + " title", Subject: subject}
	if kind != "" {
		f.Recommendation = &rule.Recommendation{Kind: kind, Target: target, Value: "1"}
	}
	return f
}

func passedDisk(name string) facts.BlockDevice {
	ok := true
	return facts.BlockDevice{Name: name, Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Passed: &ok}}}
}

func TestSummarize(t *testing.T) {
	healthy := &facts.Host{Block: []facts.BlockDevice{passedDisk("sda"), passedDisk("sdb")}}
	var blockWarns []rule.Finding
	for i := range 15 {
		blockWarns = append(blockWarns, finding("blk-readahead", "block", rule.Warn, fmt.Sprintf("sd%c", 'a'+i), rule.KindSysfs, "/sys/block/x/queue/read_ahead_kb"))
	}
	mdCrit := finding("md-degraded", "md", rule.Crit, "md0", rule.KindAdvice, "mdadm /dev/md0 --add /dev/disk/by-id/<new>")
	manyWarns := []rule.Finding{
		finding("a-one", "nic", rule.Warn, "eth0", rule.KindSysctl, "net.a"),
		finding("b-two", "nic", rule.Warn, "eth0", rule.KindSysctl, "net.b"),
		finding("c-three", "block", rule.Warn, "sda", rule.KindSysfs, "/sys/c"),
		finding("d-four", "block", rule.Warn, "sda", rule.KindSysfs, "/sys/d"),
		finding("e-info", "block", rule.Info, "sda", rule.KindSysfs, "/sys/e"),
	}
	tests := []struct {
		name       string
		findings   []rule.Finding
		host       *facts.Host
		expired    []audit.ExpiredRun
		safety     string
		commands   []string // the actions' commands, in order
		risks      int
		healthWord string
	}{
		{name: "healthy host", host: healthy, safety: "ok", commands: nil, healthWord: "2 of 2 disks"},
		{name: "no SMART: health unknown", host: &facts.Host{Block: []facts.BlockDevice{{Name: "sda", Kind: "disk"}}},
			safety: "unknown", healthWord: "none of 1 disk"},
		{name: "health says why it was not read, per disk", host: &facts.Host{Block: []facts.BlockDevice{
			{Name: "vda", Kind: "disk", Health: &facts.DiskHealth{NotCollected: "paravirtual disk (vda): no SMART inside the VM; read it on the host"}},
			{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{NotCollected: "not captured in this tree"}},
			{Name: "sdb", Kind: "disk", Health: &facts.DiskHealth{NotCollected: "not captured in this tree"}},
			{Name: "sdc", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Standby: true}}}}},
			safety: "unknown", healthWord: "none of 4 disks reported SMART health (paravirtual disk (vda): no SMART inside the VM; read it on the host; sda, sdb: not captured in this tree; sdc: in standby, not woken to read SMART)"},
		{name: "an NVMe health log is a report", host: &facts.Host{Block: []facts.BlockDevice{
			{Name: "nvme0n1", Kind: "disk", Health: &facts.DiskHealth{SMART: &facts.SMART{Protocol: "NVMe", NVMe: &facts.NVMeHealth{AvailableSpare: 100}}}}}},
			safety: "ok", healthWord: "1 of 1 disk reported SMART health"},
		{name: "crit md after fifteen block warnings is the first action", host: healthy,
			findings: append(append([]rule.Finding{}, blockWarns...), mdCrit), safety: "at risk", risks: 1,
			commands: []string{"mdadm /dev/md0 --add /dev/disk/by-id/<new>", "nastune plan --only blk-readahead"}},
		{name: "never more than three actions; info is no action", host: healthy, findings: manyWarns, safety: "ok",
			commands: []string{"nastune plan --only a-one", "nastune plan --only b-two", "nastune plan --only c-three"}},
		{name: "an expired trial change comes first", host: healthy, findings: []rule.Finding{mdCrit},
			expired: []audit.ExpiredRun{{ID: "000003-20261127-120000", Message: "expired"}}, safety: "at risk", risks: 2,
			commands: []string{"nastune undo --expired", "mdadm /dev/md0 --add /dev/disk/by-id/<new>"}},
		{name: "a finding without a recommendation is no action", host: healthy,
			findings: []rule.Finding{finding("x-crit", "nic", rule.Crit, "eth0", "", "")}, safety: "at risk", risks: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := audit.Summarize(tt.findings, tt.host, tt.expired)
			if s.Safety != tt.safety {
				t.Errorf("safety %q, want %q", s.Safety, tt.safety)
			}
			if len(s.Risks) != tt.risks {
				t.Errorf("risks %q, want %d", s.Risks, tt.risks)
			}
			var got []string
			for _, a := range s.Actions {
				got = append(got, a.Command)
			}
			if strings.Join(got, "\n") != strings.Join(tt.commands, "\n") {
				t.Errorf("commands\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.commands, "\n"))
			}
			if tt.healthWord != "" && !strings.Contains(s.Health, tt.healthWord) {
				t.Errorf("health %q, want it to say %q", s.Health, tt.healthWord)
			}
			if s.Actions == nil || s.Risks == nil {
				t.Error("actions and risks must be [] in JSON, never null")
			}
		})
	}
}

func TestSummarizeGroupsOneRule(t *testing.T) {
	s := audit.Summarize([]rule.Finding{
		finding("blk-readahead", "block", rule.Warn, "sda", rule.KindSysfs, "/sys/block/sda/queue/read_ahead_kb"),
		finding("blk-readahead", "block", rule.Warn, "sdb", rule.KindSysfs, "/sys/block/sdb/queue/read_ahead_kb"),
	}, nil, nil)
	if len(s.Actions) != 1 || strings.Join(s.Actions[0].Subjects, ",") != "sda,sdb" || s.Actions[0].What != "blk-readahead title (2 subjects: sda, sdb)" {
		t.Errorf("one action for one rule's findings, got %+v", s.Actions)
	}
}

// TestSummaryInvariants holds over every fixture host and real corpus
// tree: at most three actions, each naming a rule of the findings (and
// its plan command that rule), the worst actionable severity first, data
// at risk exactly when a crit finding exists, findings worst first.
func TestSummaryInvariants(t *testing.T) {
	reports := map[string]*audit.Report{}
	for _, name := range fixture.HostNames(t) {
		reports["host "+name] = auditHost(t, name)
	}
	trees, err := realcorpus.AllTrees()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range trees {
		dir := t.TempDir()
		if err := fixture.UnpackFile(filepath.Join(realcorpus.TreeDir(n), "tree.txtar"), dir); err != nil {
			t.Fatal(err)
		}
		root, err := hostfs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		reports["real "+n] = audit.Run(context.Background(), root, audit.Options{})
		root.Close()
	}
	atRisk, mdFirst := 0, 0
	for name, rep := range reports {
		s := rep.Summary
		ids := map[string]bool{}
		worst := rule.Severity(-1)
		crit := false
		for i, f := range rep.Findings {
			ids[f.ID] = true
			if f.Recommendation != nil && f.Severity != rule.Info {
				worst = max(worst, f.Severity)
			}
			crit = crit || f.Severity == rule.Crit
			if i > 0 && f.Severity > rep.Findings[i-1].Severity {
				t.Errorf("%s: %s (%s) after %s (%s): findings must be worst first", name, f.ID, f.Severity, rep.Findings[i-1].ID, rep.Findings[i-1].Severity)
			}
		}
		if len(s.Actions) > audit.MaxActions {
			t.Errorf("%s: %d actions", name, len(s.Actions))
		}
		for _, a := range s.Actions {
			if !ids[a.Rule] {
				t.Errorf("%s: action %+v names no rule of the findings", name, a)
			}
			if id, ok := strings.CutPrefix(a.Command, "nastune plan --only "); ok && (id != a.Rule || !ids[id]) {
				t.Errorf("%s: action %+v plans another rule", name, a)
			}
			if a.Command == "" {
				t.Errorf("%s: action %+v without a command", name, a)
			}
		}
		if worst >= 0 && (len(s.Actions) == 0 || s.Actions[0].Severity != worst) {
			t.Errorf("%s: the first action must be of the worst actionable severity %s: %+v", name, worst, s.Actions)
		}
		if worst < 0 && len(s.Actions) != 0 {
			t.Errorf("%s: actions without a crit or warn recommendation: %+v", name, s.Actions)
		}
		if (s.Safety == "at risk") != crit {
			t.Errorf("%s: safety %q with crit=%v", name, s.Safety, crit)
		}
		if crit {
			atRisk++
		}
		if len(s.Actions) > 0 && strings.HasPrefix(s.Actions[0].Rule, "md-") && s.Actions[0].Severity == rule.Crit {
			mdFirst++
		}
	}
	// The corpus holds degraded and inactive arrays: the test must see them.
	if atRisk == 0 || mdFirst == 0 {
		t.Errorf("%d reports at risk, %d with a crit md action first: the corpus lost its failing hosts", atRisk, mdFirst)
	}
}

// The limit names the slower side, and a saved bench result of the
// fastest storage path whichever side limits.
func TestSummaryLimitAndBench(t *testing.T) {
	for _, tt := range []struct {
		host, kind, path, store string
	}{
		{"kirkwood-jessie", "disk", "sda", "sda"},  // USB 2 disk behind a gigabit link
		{"kirkwood-nas", "network", "eth0", "sda"}, // 100 Mb/s link in front of a SATA disk
	} {
		rep := auditHost(t, tt.host)
		l := rep.Summary.Limit
		if l == nil || l.Kind != tt.kind || l.Path != tt.path || l.MBs <= 0 || l.Bottleneck == "" || (l.Other != "" && l.OtherMBs < l.MBs) {
			t.Errorf("%s: limit %+v", tt.host, l)
			continue
		}
		rep.Facts.Bench = append(rep.Facts.Bench, facts.BenchMeasure{Source: "t.json", Device: tt.store, Test: "seqread-direct", MBs: 33.3},
			facts.BenchMeasure{Source: "t.json", Device: "other", Test: "seqread-direct", MBs: 999})
		rep.Summarize()
		if l := rep.Summary.Limit; l.MeasuredMBs != 33.3 || l.MeasuredPath != tt.store {
			t.Errorf("%s: bench not in the limit: %+v", tt.host, l)
		}
		// A read above the path's ceiling measured a cache: it is named as
		// such, never as the path's speed (the verdict read "bench measured
		// 1584 MB/s on vda" under a 200 MB/s ceiling).
		rep.Facts.Bench = append(rep.Facts.Bench, facts.BenchMeasure{Source: "c.json", Device: tt.store, Test: "seqread-buffered", MBs: 1583.6})
		rep.Summarize()
		if l := rep.Summary.Limit; l.MeasuredMBs != 33.3 || l.AboveMBs != 1583.6 || l.MeasuredPath != tt.store {
			t.Errorf("%s: a cache measurement counted as the path's speed: %+v", tt.host, l)
		}
	}
}
