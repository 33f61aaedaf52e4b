package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/render"
)

// TestTextWorstFirst: the text audit opens with the verdict, then prints
// every CRIT finding before any WARN, and every WARN before any INFO.
func TestTextWorstFirst(t *testing.T) {
	for _, host := range []string{"real-states", "health-raid", "kirkwood-nas"} {
		rep := auditHost(t, host)
		var buf bytes.Buffer
		if err := render.Text(&buf, rep, render.Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		verdict := strings.Index(out, "\nverdict\n")
		if verdict < 0 {
			t.Fatalf("%s: no verdict block:\n%s", host, out)
		}
		rank := map[string]int{"CRIT": 2, "WARN": 1, "INFO": 0}
		last, seen := 3, map[string]int{}
		for _, line := range strings.Split(out[verdict:], "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "    ") {
				continue // finding lines are indented two spaces
			}
			r, ok := rank[f[0]]
			if !ok {
				continue
			}
			seen[f[0]]++
			if r > last {
				t.Errorf("%s: %q after a less severe finding", host, line)
			}
			last = r
		}
		if seen["CRIT"]+seen["WARN"]+seen["INFO"] != len(rep.Findings) {
			t.Errorf("%s: %v finding lines, %d findings", host, seen, len(rep.Findings))
		}
		if host == "real-states" && seen["CRIT"] == 0 {
			t.Errorf("%s: the test needs crit findings", host)
		}
	}
}
