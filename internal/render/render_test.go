package render_test

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/render"
)

var update = flag.Bool("update", false, "rewrite golden files")

// auditHost audits the named fixture host as `nastune audit --root` does.
func auditHost(t *testing.T, name string) *audit.Report {
	t.Helper()
	root, err := hostfs.Open(fixture.HostDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return audit.Run(context.Background(), root, audit.Options{})
}

// One shared input (the Kirkwood host) rendered in every text style; the
// per-host JSON and verbose text goldens live in internal/audit.
func TestTextStyles(t *testing.T) {
	rep := auditHost(t, "kirkwood-nas")
	for name, o := range map[string]render.Options{
		"kirkwood-plain.txt": {},
		"kirkwood-color.txt": {Color: true},
	} {
		var buf bytes.Buffer
		if err := render.Text(&buf, rep, o); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", name), buf.Bytes())
	}
}

func TestNoFindings(t *testing.T) {
	var buf bytes.Buffer
	render.Text(&buf, &audit.Report{Host: audit.HostSummary{}}, render.Options{})
	want := "nastune audit: (unknown) · kernel (unknown) · (unknown) · 0 CPU · (unknown) RAM\n\nno findings: nothing to change on the evidence collected\n"
	if buf.String() != want {
		t.Errorf("got %q", buf.String())
	}
}
