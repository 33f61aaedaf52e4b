package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEQuotesBench: the numbers the README gives for the audit are
// the summary line `make bench` last wrote to docs/bench-audit.md, word
// for word, so they cannot drift from what was measured.
func TestREADMEQuotesBench(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bench-audit.md")
	if err != nil {
		t.Fatalf("%v: run make bench", err)
	}
	var line string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, summaryMarker) {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("docs/bench-audit.md has no line starting %q: run make bench", summaryMarker)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), line) {
		t.Errorf("README.md does not quote the summary of docs/bench-audit.md; copy this line into it:\n%s", line)
	}
	for _, stale := range []string{"about 5 ms and 7 MiB"} {
		if strings.Contains(string(readme), stale) {
			t.Errorf("README.md still says %q", stale)
		}
	}
}
