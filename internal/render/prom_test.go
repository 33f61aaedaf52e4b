package render_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rule"
)

var promTime = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Every fixture host's exposition is pinned by a golden file and passes
// promtool check metrics, the Prometheus project's own linter.
func TestPromHosts(t *testing.T) {
	for _, host := range fixture.HostNames(t) {
		t.Run(host, func(t *testing.T) {
			rep := auditHost(t, host)
			var buf bytes.Buffer
			if err := render.Prom(&buf, rep, render.PromOptions{Now: promTime, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "prom", host+".prom"), buf.Bytes())
			promtool(t, buf.Bytes())
			if n := strings.Count(buf.String(), "\nnastune_finding{"); n == 0 && len(rep.Findings) > 0 {
				t.Errorf("%d findings but no nastune_finding series", len(rep.Findings))
			}
		})
	}
}

// Hostile label values (quotes, backslashes, newlines, invalid UTF-8) and a
// subject reported twice still give a valid exposition without duplicates.
func TestPromEscaping(t *testing.T) {
	f := rule.Finding{ID: "x-test", Family: "nic", Severity: rule.Warn, Subject: "eth\"0\\\n\xff"}
	rep := &audit.Report{Host: audit.HostSummary{Hostname: "nas\n\"evil\""}, Findings: []rule.Finding{f, f}}
	var buf bytes.Buffer
	if err := render.Prom(&buf, rep, render.PromOptions{Now: promTime, Version: "v1"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`hostname="nas\n\"evil\""`,
		`nastune_finding{id="x-test",family="nic",severity="warn",subject="eth\"0\\\n` + "\uFFFD" + `"} 2`,
		`nastune_findings{severity="warn"} 2`,
		"nastune_audit_timestamp_seconds 1.7952624e+09",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	promtool(t, buf.Bytes())
}

func TestPromBench(t *testing.T) {
	disk := &bench.DiskResult{Kind: "disk", File: "/srv/a.bench", Device: "md0", Engine: "builtin", Tests: []bench.TestResult{
		{Name: "seqread-direct", MiBPerS: 180.5, IOPS: 180.5, LatUS: bench.Lat{P50: 5000, P99: 9000}},
		{Name: "randread4k-qd32", Skipped: "O_DIRECT refused"},
	}}
	netr := &bench.NetResult{Kind: "net", Engine: "builtin", Server: "10.0.0.2:5201", Streams: 4, BitsPerSecond: 941e6, Retransmits: 3}
	for name, v := range map[string]any{"bench-disk.prom": disk, "bench-net.prom": netr} {
		var buf bytes.Buffer
		if err := render.PromBench(&buf, v, promTime); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", "prom", name), buf.Bytes())
		promtool(t, buf.Bytes())
	}
	if strings.Contains(func() string {
		var b bytes.Buffer
		_ = render.PromBench(&b, disk, promTime)
		return b.String()
	}(), "randread4k-qd32") {
		t.Error("a skipped test must not become a series")
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = os.WriteFile(path, got, 0o644)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/render -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n%s", path, got)
	}
}

// promtool check metrics is the oracle: it parses the exposition and lints
// names, help and types. In CI (CI=true) a missing promtool is a failure:
// make test installs it (Debian package prometheus).
func promtool(t *testing.T, exposition []byte) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool missing: make test installs the Debian package prometheus")
		}
		t.Log("promtool not installed; skipping the oracle")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(exposition)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics: %v\n%s\n--- input ---\n%s", err, out, exposition)
	}
}
