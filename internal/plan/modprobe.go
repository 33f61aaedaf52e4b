package plan

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/modprobed"
)

// modprobeOverrides marks the module options nastune puts in ModprobeFile
// that a later modprobe.d file or the kernel command line sets again:
// modprobe hands the module all its options in file order, the command
// line's last, and the kernel keeps the last value of a parameter
// (modprobed). Such a change holds until the module is next loaded (at
// boot): Persist.Overridden and a note say so. nastune edits none of
// those lines.
func modprobeOverrides(h *facts.Host, changes []Change) []string {
	var notes []string
	for i := range changes {
		c := &changes[i]
		if c.Persist == nil || c.Persist.File != ModprobeFile || c.Persist.Line == "" {
			continue
		}
		f := strings.Fields(c.Persist.Line)
		if len(f) != 3 || f[0] != "options" {
			continue
		}
		param, value, _ := strings.Cut(f[2], "=")
		mod, param := modprobed.Name(f[1]), modprobed.Name(param)
		var win facts.ModprobeOption
		found := false
		for _, o := range h.ModprobeLater {
			if o.Module == mod && o.Param == param {
				win, found = o, true
			}
		}
		if !found || win.Value == value {
			continue
		}
		where := fmt.Sprintf("%s:%d", confsyntax.Show(win.File), win.Line)
		fix := "edit or remove that line, then plan again"
		if win.File == "/proc/cmdline" {
			where = "the kernel command line"
			fix = "remove " + mod + "." + param + "= from the boot loader's kernel command line, then plan again"
		}
		c.Persist.Overridden = fmt.Sprintf("%s (%s.%s=%s)", where, mod, param, confsyntax.Show(win.Value))
		notes = append(notes, fmt.Sprintf("%s will NOT survive a reboot: %s sets %s.%s=%s and modprobe applies it after %s (the last value wins): %s",
			c.Target, where, mod, param, confsyntax.Show(win.Value), ModprobeFile, fix))
	}
	return notes
}
