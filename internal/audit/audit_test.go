package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/render"
)

var update = flag.Bool("update", false, "rewrite golden files")

func auditHost(t *testing.T, name string) *audit.Report {
	t.Helper()
	root, err := hostfs.Open(fixture.HostDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return audit.Run(context.Background(), root, audit.Options{})
}

// TestGoldenHosts pins the findings of every fixture host, as JSON and as
// verbose text. Regenerate with: go test ./internal/audit -update
func TestGoldenHosts(t *testing.T) {
	for _, name := range fixture.HostNames(t) {
		t.Run(name, func(t *testing.T) {
			rep := auditHost(t, name)
			var js, txt bytes.Buffer
			if err := render.JSON(&js, rep); err != nil {
				t.Fatal(err)
			}
			if err := render.Text(&txt, rep, render.Options{Verbose: true}); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".json", js.Bytes())
			golden(t, name+".txt", txt.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/audit -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run go test ./internal/audit -update and review the diff.\ngot:\n%s", name, got)
	}
}

// TestJSONContract checks the documented shape of -o json (docs/json.md).
func TestJSONContract(t *testing.T) {
	rep := auditHost(t, "kirkwood-nas")
	var buf bytes.Buffer
	if err := render.JSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Host   struct {
			Hostname string `json:"hostname"`
			Kernel   string `json:"kernel"`
			Arch     string `json:"arch"`
			CPUs     int    `json:"cpus"`
			MemBytes uint64 `json:"mem_bytes"`
		} `json:"host"`
		Findings []struct {
			ID, Family, Severity, Title, Subject, Why string
			Evidence                                  []struct{ Source, Value string }
			Recommendation                            *struct{ Kind, Target, Current, Value string }
			Refs                                      []string
		} `json:"findings"`
		NotCollected []struct{ Source, Reason string } `json:"not_collected"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "nastune/audit/v1" || doc.Host.Hostname != "dockstar" || doc.Host.Kernel != "4.19.0-27-marvell" ||
		doc.Host.Arch != "armv5tel" || doc.Host.CPUs != 1 || doc.Host.MemBytes != 124928*1024 {
		t.Errorf("header: %+v %+v", doc.Schema, doc.Host)
	}
	if len(doc.Findings) == 0 {
		t.Fatal("no findings")
	}
	kinds := map[string]bool{"sysctl": true, "sysfs": true, "config": true, "service": true, "advice": true}
	for _, f := range doc.Findings {
		if f.ID == "" || f.Family == "" || f.Title == "" || f.Subject == "" || f.Why == "" || len(f.Evidence) == 0 || len(f.Refs) == 0 {
			t.Errorf("incomplete finding %+v", f)
		}
		if f.Severity != "info" && f.Severity != "warn" && f.Severity != "crit" {
			t.Errorf("%s: severity %q", f.ID, f.Severity)
		}
		if r := f.Recommendation; r != nil && (!kinds[r.Kind] || r.Target == "" || (r.Kind != "advice" && r.Value == "")) {
			t.Errorf("%s: recommendation %+v", f.ID, r)
		}
	}
	if doc.NotCollected == nil {
		t.Error("not_collected must be an array, never null")
	}
}
