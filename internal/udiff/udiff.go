// Package udiff writes unified diffs (diff -u, GNU patch's input format)
// from two versions of a text file.
//
// The edit script is Myers' O(ND) shortest edit script, so memory grows
// with the size of the change, not with the product of the file sizes: a
// 5000-line smb.conf with one edited line costs a few kilobytes. Hunks carry
// three lines of context, as diff -u; changes closer than six lines share
// a hunk. A new file is diffed against /dev/null (@@ -0,0 +1,N @@), a
// removed one against /dev/null on the new side, and a last line without a
// newline gets "\ No newline at end of file", so `patch -p1` reproduces the
// new bytes exactly.
package udiff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines around each change.
const Context = 3

// File is one file's two versions. OldName/NewName are the header paths
// ("a/etc/x", "b/etc/x", or "/dev/null" for a side that does not exist).
type File struct {
	OldName, NewName string
	Old, New         []byte
}

// Diff returns the unified diff of f, or "" when both sides are equal.
func Diff(f File) string {
	if string(f.Old) == string(f.New) && f.OldName != "/dev/null" && f.NewName != "/dev/null" {
		return ""
	}
	a, b := lines(f.Old), lines(f.New)
	ops := editScript(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", f.OldName, f.NewName)
	for _, h := range hunks(ops) {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rng(h.aStart, h.aLen), rng(h.bStart, h.bLen))
		for _, o := range ops[h.from:h.to] {
			var l string
			var c byte
			switch o.kind {
			case eq:
				c, l = ' ', a[o.ai]
			case del:
				c, l = '-', a[o.ai]
			case ins:
				c, l = '+', b[o.bi]
			}
			sb.WriteByte(c)
			sb.WriteString(strings.TrimSuffix(l, "\n"))
			sb.WriteByte('\n')
			if !strings.HasSuffix(l, "\n") {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

// rng is a hunk range from a 0-based start: "start,len", "start" when len
// is 1, and for an empty range the line after which the other side's lines
// go ("0,0" at the top), as GNU diff writes.
func rng(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lines splits s after each newline; the last line may lack one.
func lines(s []byte) []string {
	var out []string
	t := string(s)
	for t != "" {
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			out = append(out, t)
			break
		}
		out = append(out, t[:i+1])
		t = t[i+1:]
	}
	return out
}

type opKind byte

const (
	eq opKind = iota
	del
	ins
)

type op struct {
	kind   opKind
	ai, bi int // line index in a (eq, del) and b (eq, ins)
}

// MaxCells bounds the memory of one edit script (ints of Myers' trace),
// so a 128 MiB box diffing a rewritten config does not run out: beyond it
// the differing middle is replaced whole (still a correct diff, only not
// the shortest).
const MaxCells = 2 << 20

// editScript is the edit script from a to b: the common head and tail,
// then Myers' shortest edit script of the middle (or, beyond MaxCells,
// all of the middle deleted and inserted).
func editScript(a, b []string) []op {
	ops, _ := script(a, b, MaxCells)
	return ops
}

// script is editScript with the bound given; minimal is false when the
// bound was hit and the middle is replaced whole.
func script(a, b []string, maxCells int) (ops []op, minimal bool) {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	for i := 0; i < head; i++ {
		ops = append(ops, op{eq, i, i})
	}
	am, bm := a[head:len(a)-tail], b[head:len(b)-tail]
	mid, minimal := myers(am, bm, maxCells)
	if !minimal {
		mid = mid[:0]
		for i := range am {
			mid = append(mid, op{del, i, 0})
		}
		for j := range bm {
			mid = append(mid, op{ins, len(am), j})
		}
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.ai + head, o.bi + head})
	}
	for i := 0; i < tail; i++ {
		ops = append(ops, op{eq, len(a) - tail + i, len(b) - tail + i})
	}
	return ops, minimal
}

// myers is Myers' greedy shortest edit script from a to b; ok is false
// when it would need more than maxCells ints of trace.
func myers(a, b []string, maxCells int) (_ []op, ok bool) {
	n, m := len(a), len(b)
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		if (d+1)*len(v) > maxCells {
			return nil, false
		}
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	// Walk back through the snapshots (trace[d] is V before step d).
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		vv := trace[d]
		k := x - y
		var pk int
		if d == 0 {
			for x > 0 && y > 0 {
				x--
				y--
				rev = append(rev, op{eq, x, y})
			}
			break
		}
		if k == -d || (k != d && vv[off+k-1] < vv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vv[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{eq, x, y})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{ins, x, y})
		} else {
			x--
			rev = append(rev, op{del, x, y})
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, true
}

// Replace says: lines [A1, A2) of the old text become Lines.
type Replace struct {
	A1, A2 int
	Lines  []string
}

// Lines splits s after each newline (the last line may lack one), as
// Replacements and Diff see a text.
func Lines(s []byte) []string { return lines(s) }

// Replacements returns the changes turning a into b, in order. minimal is
// false when they differ too much to diff within MaxCells: the one
// replacement then covers the whole differing middle. Three-way merges
// (nastune undo) build on it.
func Replacements(a, b []string) (rs []Replace, minimal bool) {
	ops, minimal := script(a, b, MaxCells)
	for i := 0; i < len(ops); {
		if ops[i].kind == eq {
			i++
			continue
		}
		r := Replace{A1: -1}
		for ; i < len(ops) && ops[i].kind != eq; i++ {
			o := ops[i]
			if r.A1 < 0 {
				r.A1 = o.ai
				r.A2 = o.ai
			}
			if o.kind == del {
				r.A2 = o.ai + 1
			} else {
				r.Lines = append(r.Lines, b[o.bi])
			}
		}
		rs = append(rs, r)
	}
	return rs, minimal
}

type hunk struct {
	from, to     int // ops[from:to]
	aStart, aLen int
	bStart, bLen int
}

// hunks groups the changes with Context lines around them.
func hunks(ops []op) []hunk {
	var out []hunk
	i := 0
	for i < len(ops) {
		if ops[i].kind == eq {
			i++
			continue
		}
		from := max(0, i-Context)
		// Extend while the next change is within 2×Context equal lines.
		j := i
		for {
			for j < len(ops) && ops[j].kind != eq {
				j++
			}
			k := j
			for k < len(ops) && ops[k].kind == eq {
				k++
			}
			if k < len(ops) && k-j <= 2*Context {
				j = k
				continue
			}
			break
		}
		to := min(len(ops), j+Context)
		h := hunk{from: from, to: to}
		h.aStart, h.bStart = start(ops, from)
		for _, o := range ops[from:to] {
			if o.kind != ins {
				h.aLen++
			}
			if o.kind != del {
				h.bLen++
			}
		}
		out = append(out, h)
		i = to
	}
	return out
}

// start is the 0-based line in a and in b where ops[from] begins.
func start(ops []op, from int) (int, int) {
	a, b := 0, 0
	for _, o := range ops[:from] {
		if o.kind != ins {
			a++
		}
		if o.kind != del {
			b++
		}
	}
	return a, b
}
