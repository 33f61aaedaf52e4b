package apply

import (
	"fmt"
	"strings"
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

// maxDiffCells bounds the memory of one diff (ints of Myers' trace): a
// 128 MiB box must not run out merging a rewritten smb.conf.
const maxDiffCells = 2 << 20

// diffLines returns the hunks turning a into b (Myers' O(ND) algorithm on
// what is left after the common head and tail); ok is false when the
// texts differ too much to diff within maxDiffCells.
func diffLines(a, b []string) (hs []hunk, ok bool) {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	mid, ok := myers(a[head:len(a)-tail], b[head:len(b)-tail])
	if !ok {
		return nil, false
	}
	for i := range mid {
		mid[i].a1 += head
		mid[i].a2 += head
	}
	return mid, true
}

func myers(a, b []string) ([]hunk, bool) {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil, true
	}
	off := max + 1
	v := make([]int, 2*max+2)
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		if (d+1)*len(v) > maxDiffCells {
			return nil, false
		}
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	// Walk back through the trace collecting matched pairs.
	type pair struct{ x, y int }
	var matches []pair
	x, y := n, m
	for d := len(trace) - 1; d >= 0 && (x > 0 || y > 0); d-- {
		vv := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && vv[off+k-1] < vv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vv[off+pk]
		py := px - pk
		for x > px && y > py && x > 0 && y > 0 {
			x, y = x-1, y-1
			matches = append(matches, pair{x, y})
		}
		if d > 0 {
			x, y = px, py
		}
	}
	// matches are in reverse order; build hunks between them.
	var hs []hunk
	ax, by := 0, 0
	for i := len(matches) - 1; i >= -1; i-- {
		mx, my := n, m
		if i >= 0 {
			mx, my = matches[i].x, matches[i].y
		}
		if mx > ax || my > by {
			hs = append(hs, hunk{a1: ax, a2: mx, lines: append([]string(nil), b[by:my]...)})
		}
		ax, by = mx+1, my+1
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

// unified renders the hunks from a to b with 2 lines of context.
func unified(name string, a, b string) string {
	al, bl := splitLines(a), splitLines(b)
	hs, ok := diffLines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s (after nastune's apply)\n+++ %s (now)\n", name, name)
	if !ok {
		fmt.Fprintf(&out, "(too different to show: %d lines then, %d now)\n", len(al), len(bl))
		return out.String()
	}
	shift := 0 // b index minus a index before the current hunk
	for _, h := range hs {
		c1 := max(h.a1-2, 0)
		c2 := min(h.a2+2, len(al))
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", c1+1, c2-c1, c1+1+shift, c2-c1+len(h.lines)-(h.a2-h.a1))
		for _, l := range al[c1:h.a1] {
			out.WriteString(" " + ensureNL(l))
		}
		for _, l := range al[h.a1:h.a2] {
			out.WriteString("-" + ensureNL(l))
		}
		for _, l := range h.lines {
			out.WriteString("+" + ensureNL(l))
		}
		for _, l := range al[h.a2:c2] {
			out.WriteString(" " + ensureNL(l))
		}
		shift += len(h.lines) - (h.a2 - h.a1)
	}
	return out.String()
}

func ensureNL(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n\\ No newline at end of file\n"
}
