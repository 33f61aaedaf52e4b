package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// Post-pass "tuning a sick disk": after every rule has run, findings of
// other families about a disk, or an md array built on disks, whose
// health.Verdict is warn or failing get a note saying so. A failing disk
// makes tuning pointless; link or I/O errors explain a disk far below its
// modelled speed better than any knob. Findings are joined to disks by
// their Device (set by the rule that wrote them), not by their wording.

// noteSickDisks is the post-pass rules.Run applies to all findings.
func noteSickDisks(h *facts.Host, fs []rule.Finding) []rule.Finding {
	notes := sickNotes(h)
	if len(notes) == 0 {
		return fs
	}
	for i := range fs {
		f := &fs[i]
		if f.Family == "health" || f.Device == "" {
			continue
		}
		if n, ok := notes[f.Device]; ok {
			f.Why += n
		}
	}
	return fs
}

// sickNotes maps each whole disk and md array with a sick disk to the
// note its findings get.
func sickNotes(h *facts.Host) map[string]string {
	if h == nil {
		return nil
	}
	level := map[string]health.Level{}
	for _, v := range health.Disks(h) {
		if v.Level > health.OK {
			level[v.Disk] = v.Level
		}
	}
	if len(level) == 0 {
		return nil
	}
	split := func(names []string) (failing, erring []string) {
		for _, n := range names {
			switch level[n] {
			case health.Failing:
				failing = append(failing, n)
			case health.Warn:
				erring = append(erring, n)
			}
		}
		return failing, erring
	}
	notes := map[string]string{}
	for name := range level {
		notes[name] = sickNote(split([]string{name}))
	}
	for _, a := range h.MD {
		var names []string
		for _, m := range a.Members {
			names = append(names, m.Disk)
		}
		if f, e := split(names); len(f)+len(e) > 0 {
			notes[a.Name] = sickNote(f, e)
		}
	}
	return notes
}

// sickNote says which disks are failing and which have link, USB, I/O or
// heat problems.
func sickNote(failing, erring []string) string {
	var parts []string
	if len(failing) > 0 {
		sort.Strings(failing)
		verb, it := "is", "it is"
		if len(failing) > 1 {
			verb, it = "are", "they are"
		}
		parts = append(parts, fmt.Sprintf("%s %s failing (see health-media-errors / health-smart-failed): tuning is pointless until %s replaced.",
			strings.Join(failing, ", "), verb, it))
	}
	if len(erring) > 0 {
		sort.Strings(erring)
		verb := "has"
		if len(erring) > 1 {
			verb = "have"
		}
		parts = append(parts, fmt.Sprintf("%s %s link, USB, I/O or heat problems (see the health findings): fix those before judging speed or tuning.",
			strings.Join(erring, ", "), verb))
	}
	return " Note: " + strings.Join(parts, " ")
}
