package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
)

// annotateSick adds to tuning, ceiling and bench findings about a disk
// (or an array built on disks) with health problems what those are: a
// failing disk makes tuning pointless; link or I/O errors explain a disk
// far below its modelled speed better than any knob.
func annotateSick(h *facts.Host, fs []rule.Finding) []rule.Finding {
	if h == nil {
		return fs
	}
	level := map[string]health.Level{}
	for _, v := range health.Disks(h) {
		if v.Level > health.OK {
			level[v.Disk] = v.Level
		}
	}
	if len(level) == 0 {
		return fs
	}
	note := func(failing, erring []string) string {
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
	notes := map[string]string{}
	split := func(names []string) ([]string, []string) {
		var f, e []string
		for _, n := range names {
			switch level[n] {
			case health.Failing:
				f = append(f, n)
			case health.Warn:
				e = append(e, n)
			}
		}
		return f, e
	}
	for name := range level {
		notes[name] = note(split([]string{name}))
	}
	for _, a := range h.MD {
		var names []string
		for _, m := range a.Members {
			names = append(names, m.Disk)
		}
		if f, e := split(names); len(f)+len(e) > 0 {
			notes[a.Name] = note(f, e)
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Family == "health" {
			continue
		}
		subj := strings.Fields(f.Subject)
		if len(subj) == 0 {
			continue
		}
		if n, ok := notes[subj[0]]; ok {
			f.Why += n
		}
	}
	return fs
}
