package cli

import (
	"strings"
	"testing"
)

// TestCalcVPNTextAligned: the breakdown of `calc vpn` is a column of
// numbers; every row's number ends in the same column, the longest label
// ("- crypto (IV, tag, HMAC, packet id)") included.
func TestCalcVPNTextAligned(t *testing.T) {
	for _, args := range [][]string{
		{"calc", "vpn"},
		{"calc", "vpn", "--cipher", "AES-256-CBC"},
	} {
		out, e, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
		end := -1
		rows := 0
		for _, line := range strings.Split(out, "\n") {
			l := strings.TrimSpace(line)
			if !strings.HasPrefix(line, "  ") || !(strings.HasPrefix(l, "-") || strings.HasPrefix(l, "=") || strings.HasPrefix(l, "mssfix")) {
				continue
			}
			rows++
			if end < 0 {
				end = len(line)
			} else if len(line) != end {
				t.Errorf("%v: row %q ends at column %d, others at %d", args, line, len(line), end)
			}
			if f := strings.Fields(l); len(f) < 2 {
				t.Errorf("%v: row %q has no number", args, line)
			}
		}
		if rows < 4 {
			t.Errorf("%v: %d breakdown rows found:\n%s", args, rows, out)
		}
	}
}
