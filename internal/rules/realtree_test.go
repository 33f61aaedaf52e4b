package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// runTree writes files (path → content) into a fresh machine tree, probes
// it as `audit --root` does and runs every rule: the tests below feed real
// kernel and tool output through the same parsers a user's machine meets.
func runTree(t *testing.T, files map[string]string) (*facts.Host, []rule.Finding) {
	t.Helper()
	dir := t.TempDir()
	fixture.WriteTree(t, dir, files)
	h := probeDir(t, dir)
	return h, rules.Run(rule.Input{Host: h})
}

// probeDir probes the machine tree at dir as `audit --root` does.
func probeDir(tb testing.TB, dir string) *facts.Host {
	tb.Helper()
	root, err := hostfs.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer root.Close()
	return probe.Collect(context.Background(), root)
}

// byID returns the findings of one rule.
func byID(fs []rule.Finding, id string) []rule.Finding {
	var out []rule.Finding
	for _, f := range fs {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// wantFinding checks the findings of rule id against want: "" is none,
// "severity|text" is one finding of that severity whose text holds text.
// It returns the findings, and whether they are as wanted.
func wantFinding(t *testing.T, fs []rule.Finding, id, want string) ([]rule.Finding, bool) {
	t.Helper()
	got := byID(fs, id)
	if want == "" {
		if len(got) != 0 {
			t.Errorf("%s fired: %s", id, text(got[0]))
			return got, false
		}
		return got, true
	}
	sev, sub, _ := strings.Cut(want, "|")
	if len(got) != 1 || got[0].Severity.String() != sev || !strings.Contains(text(got[0]), sub) {
		t.Errorf("%s: %+v\nwant %s with %q", id, got, sev, sub)
		return got, false
	}
	return got, true
}

// ids lists "id subject" of every finding of the given families.
func ids(fs []rule.Finding, families ...string) []string {
	var out []string
	for _, f := range fs {
		for _, fam := range families {
			if f.Family == fam {
				out = append(out, f.ID+" "+f.Subject)
			}
		}
	}
	return out
}

// text is everything a user reads of a finding.
func text(f rule.Finding) string {
	s := f.Why
	if f.Recommendation != nil {
		s += " | " + f.Recommendation.Target + " " + f.Recommendation.Value
	}
	for _, e := range f.Evidence {
		s += " | " + e.Source + ": " + e.Value
	}
	return s
}

func hasAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
