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

// TestStrayArgument: a command that takes no arguments, given one (a
// path where --file PATH was meant), says the argument is not taken and
// shows the usage line; cobra's NoArgs called it an unknown command
// ('unknown command "x/f" for "nastune bench disk"'), though bench disk
// has no subcommands.
func TestStrayArgument(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "disk", "x/f"}, "usage: nastune bench disk --file PATH"},
		{[]string{"tune", "x/f"}, "usage: nastune tune --file PATH"},
		{[]string{"audit", "x"}, "takes no arguments"},
		{[]string{"inventory", "disks", "sda"}, "run `nastune inventory disks --help`"},
	} {
		_, e, code := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.want) || strings.Contains(e, "unknown command") {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, e, c.want)
		}
	}
}
