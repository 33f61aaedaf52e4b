package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/render"
)

// stateTree lists every path under dir with its size and mtime.
func stateTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, _ := d.Info()
		b.WriteString(p + " " + st.ModTime().String() + " " + st.Mode().String() + "\n")
		return nil
	})
	return b.String()
}

// Audit reports a run applied with --confirm whose deadline passed with
// nothing reverting it (its watchdog was killed), in text and JSON, and
// names the command that reverts it; it changes nothing in the journal.
func TestAuditReportsExpiredConfirmRun(t *testing.T) {
	root := t.TempDir()
	ts := filepath.Join(root, "proc/sys/net/ipv4/tcp_timestamps")
	os.MkdirAll(filepath.Dir(ts), 0o755)
	os.WriteFile(ts, []byte("0\n"), 0o644)
	p := plan.Plan{Changes: []plan.Change{{ID: "sysctl-1", Kind: "sysctl", Target: "net.ipv4.tcp_timestamps", From: "0", To: "1", Runtime: "/proc/sys/net/ipv4/tcp_timestamps"}}}
	m, err := apply.Apply(p, apply.Options{Root: root, Confirm: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	o := apply.Options{Root: root}
	if got := expiredRuns(o); len(got) != 0 {
		t.Errorf("before the deadline, watched: %+v", got)
	}
	apply.ReleaseWatch(m.ID) // its watchdog died
	later := apply.Options{Root: root, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	before := stateTree(t, filepath.Join(root, "var"))
	runs := expiredRuns(later)
	if after := stateTree(t, filepath.Join(root, "var")); after != before {
		t.Errorf("audit changed the journal:\n%s\n→\n%s", before, after)
	}
	if len(runs) != 1 || runs[0].ID != m.ID || !strings.Contains(runs[0].Fix, "nastune undo --expired") || !strings.Contains(runs[0].Message, "still applied") {
		t.Fatalf("expired runs: %+v", runs)
	}
	rep := &audit.Report{ExpiredRuns: runs}
	var text, js bytes.Buffer
	if err := render.Text(&text, rep, render.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "nastune journal: run "+m.ID+" not confirmed by") || !strings.Contains(text.String(), "nastune undo --expired") {
		t.Errorf("text report:\n%s", text.String())
	}
	if err := render.JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"expired_runs"`) || !strings.Contains(js.String(), m.ID) {
		t.Errorf("JSON report lacks the run:\n%s", js.String())
	}
	// Reverted: no longer reported.
	if _, err := apply.FinishExpired(later); err != nil {
		t.Fatal(err)
	}
	if got := expiredRuns(later); len(got) != 0 {
		t.Errorf("after the revert: %+v", got)
	}
}
