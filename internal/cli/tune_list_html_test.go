package cli

import (
	"strings"
	"testing"
)

// TestTuneListHTMLRefused: `tune --list -o html` printed the text list
// under an HTML request; it is a usage error naming the formats --list has.
func TestTuneListHTMLRefused(t *testing.T) {
	out, e, code := run(t, "tune", "--list", "--file", t.TempDir()+"/x", "-o", "html")
	if code != 2 {
		t.Fatalf("exit %d, want 2; stdout %q stderr %q", code, out, e)
	}
	if out != "" || !strings.Contains(e, "--list prints text or json") {
		t.Errorf("stdout %q stderr %q", out, e)
	}
}
