package cli

import (
	"strings"
	"testing"
)

// TestArgCountHint: a wrong number of arguments is exit 2 with the
// command's usage line, not cobra's bare count alone.
func TestArgCountHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "usage: nastune report FILE|DIR…"},
		{[]string{"bench", "compare", "x"}, "run `nastune bench compare --help`"},
		{[]string{"rules", "a", "b"}, "usage: nastune rules [ID]"},
	} {
		_, e, code := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, e, c.want)
		}
	}
}
