package plan

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smbconf"
)

// smbOverride says whether an edit of [section] name = value in the main
// smb.conf would be the setting Samba uses. Samba reads an `include =`
// file in place, at the include line, and the last setting of a
// parameter in a section wins (lib/param/loadparm.c; checked against the
// real testparm in smbinclude_test.go). The probe's Settings are the
// lines in that reading order, includes spliced in.
//
// smbconf.Set rewrites the main file's last line for the key in the
// section, or adds one after the section's last line. A setting from an
// included file wins over the edit when its include line in the main
// file comes after that point, and so does a later line of the main file
// that Samba counts in the section because an include before it opened
// the section (smbconf.Param.FileSection). The answer is that setting, or ok=false
// when the edit wins (or when the insertion point is not known: a section
// whose header in the main file has no parameter under it, which the
// probe does not record; then nothing is claimed).
func smbOverride(s *facts.Samba, file, section, name, value string) (facts.SambaSetting, bool) {
	if s == nil || file != s.ConfigFile {
		return facts.SambaSetting{}, false
	}
	key, inv := smbconf.Canonical(name)
	want := smbconf.NormalizeValue(key, value)
	if inv {
		want = smbconf.NormalizeValue(key, flipBool(value))
	}
	// pos is the main-file line after which the edit takes effect.
	// It is the line the edit rewrites (the last one for the key in the
	// section), else the section's last line (the new line goes after it).
	pos, lastKey, anchor := -1, -1, 0
	anchors := make([]int, len(s.Settings))
	for i, x := range s.Settings {
		if x.File == file {
			anchor = x.Line
			own := x.Section // the section smbconf.Set sees
			if x.FileSection != "" {
				own = x.FileSection
			}
			if strings.EqualFold(own, section) {
				pos = x.Line
				if x.Key == key {
					lastKey = x.Line
				}
			}
		}
		anchors[i] = anchor
	}
	if lastKey > 0 {
		pos = lastKey
	}
	if pos < 0 {
		return facts.SambaSetting{}, false
	}
	var win facts.SambaSetting
	lost := false
	for i, x := range s.Settings {
		if anchors[i] <= pos || x.Key != key || !strings.EqualFold(x.Section, section) {
			continue
		}
		win, lost = x, true
	}
	if !lost {
		return win, false
	}
	// The value of an inverted synonym is already inverted (smbconf.Param).
	if smbconf.NormalizeValue(key, win.Value) == want {
		return win, false // the later line already says the same
	}
	return win, true
}

// flipBool inverts a Samba boolean; other values are returned as given.
func flipBool(v string) string {
	if b, ok := smbconf.Bool(v); ok {
		if b {
			return "no"
		}
		return "yes"
	}
	return v
}

// smbOverrideAction is the manual instruction for an edit another file
// would override.
func smbOverrideAction(file, section, name, value string, win facts.SambaSetting) string {
	return fmt.Sprintf("set [%s] %s = %s in %s line %d instead: that line sets %s = %s and Samba reads it after the place an edit of %s would change, so the edit would not take effect",
		section, name, value, confsyntax.Show(win.File), win.Line, confsyntax.Show(win.Name), confsyntax.Show(win.Value), file)
}
