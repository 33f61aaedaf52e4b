package apply

import (
	"strings"

	"github.com/nastune/nastune/internal/udiff"
)

// Undo of a file someone edited after the apply is a three-way merge with
// the post-apply content as base: our change (base → before, i.e. our hunk
// reversed) and theirs (base → current) are combined when they touch
// different lines; otherwise the file conflicts.

// hunk replaces base lines [a1, a2) with lines.
type hunk struct {
	a1, a2 int
	lines  []string
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// diffLines returns the hunks turning a into b (udiff's edit script: the
// common head and tail, then Myers' O(ND) algorithm within a memory bound,
// so a 128 MiB box can merge a rewritten smb.conf); ok is false when the
// texts differ too much to diff within that bound.
func diffLines(a, b []string) (hs []hunk, ok bool) {
	rs, ok := udiff.Replacements(a, b)
	if !ok {
		return nil, false
	}
	for _, r := range rs {
		hs = append(hs, hunk{a1: r.A1, a2: r.A2, lines: r.Lines})
	}
	return hs, true
}

// merge3 combines base→ours and base→theirs; ok is false when a hunk of
// each touches the same or adjacent base lines.
func merge3(base, ours, theirs string) (string, bool) {
	b := splitLines(base)
	h1, ok1 := diffLines(b, splitLines(ours))
	h2, ok2 := diffLines(b, splitLines(theirs))
	if !ok1 || !ok2 {
		return "", false
	}
	for _, x := range h1 {
		for _, y := range h2 {
			// Overlap, or two insertions/edits touching the same spot.
			if x.a1 <= y.a2 && y.a1 <= x.a2 {
				if !(x.a1 == y.a1 && x.a2 == y.a2 && strings.Join(x.lines, "") == strings.Join(y.lines, "")) {
					return "", false
				}
			}
		}
	}
	all := append(append([]hunk(nil), h1...), h2...)
	// Identical hunks (both sides made the same change) apply once.
	var uniq []hunk
	for _, h := range all {
		dup := false
		for _, u := range uniq {
			if u.a1 == h.a1 && u.a2 == h.a2 && strings.Join(u.lines, "") == strings.Join(h.lines, "") {
				dup = true
			}
		}
		if !dup {
			uniq = append(uniq, h)
		}
	}
	for i := range uniq {
		for j := i + 1; j < len(uniq); j++ {
			if uniq[j].a1 < uniq[i].a1 {
				uniq[i], uniq[j] = uniq[j], uniq[i]
			}
		}
	}
	var out strings.Builder
	pos := 0
	for _, h := range uniq {
		out.WriteString(strings.Join(b[pos:h.a1], ""))
		out.WriteString(strings.Join(h.lines, ""))
		pos = h.a2
	}
	out.WriteString(strings.Join(b[pos:], ""))
	return out.String(), true
}

// unified is the unified diff from a (the file as nastune's apply left
// it) to b (the file now), shown with a conflict.
func unified(name string, a, b string) string {
	return udiff.Diff(udiff.File{OldName: name + " (after nastune's apply)", NewName: name + " (now)", Old: []byte(a), New: []byte(b)})
}
