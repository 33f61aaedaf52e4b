package apply

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func applyHunks(a []string, hs []hunk) string {
	var out strings.Builder
	pos := 0
	for _, h := range hs {
		out.WriteString(strings.Join(a[pos:h.a1], ""))
		out.WriteString(strings.Join(h.lines, ""))
		pos = h.a2
	}
	out.WriteString(strings.Join(a[pos:], ""))
	return out.String()
}

// TestDiffLinesRandom: the hunks of random pairs rebuild the second text
// and are minimal where a longest common subsequence is known.
func TestDiffLinesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	words := []string{"a\n", "b\n", "c\n", "[global]\n", "x = 1\n", "\n"}
	gen := func() []string {
		var out []string
		for range r.Intn(12) {
			out = append(out, words[r.Intn(len(words))])
		}
		return out
	}
	for i := range 3000 {
		a, b := gen(), gen()
		hs, ok := diffLines(a, b)
		if !ok {
			t.Fatalf("case %d: no diff", i)
		}
		if got := applyHunks(a, hs); got != strings.Join(b, "") {
			t.Fatalf("case %d: %q -> %q rebuilt %q (hunks %+v)", i, a, b, got, hs)
		}
		kept := len(a)
		for _, h := range hs {
			kept -= h.a2 - h.a1
			if h.a1 > h.a2 || (h.a1 == h.a2 && len(h.lines) == 0) {
				t.Fatalf("case %d: empty or inverted hunk %+v", i, h)
			}
		}
		if want := lcs(a, b); kept != want {
			t.Fatalf("case %d: %d lines kept, longest common subsequence is %d", i, kept, want)
		}
	}
}

func lcs(a, b []string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				d[i][j] = d[i+1][j+1] + 1
			} else {
				d[i][j] = max(d[i+1][j], d[i][j+1])
			}
		}
	}
	return d[0][0]
}

func TestMerge3(t *testing.T) {
	base := "[global]\n  socket options = TCP_NODELAY\n  workgroup = HOME\n\n[media]\n  path = /srv\n"
	ours := "[global]\n  socket options = TCP_NODELAY SO_RCVBUF=65536\n  workgroup = HOME\n\n[media]\n  path = /srv\n"
	for _, tc := range []struct {
		name, theirs, want string
		ok                 bool
	}{
		{"unchanged", base, ours, true},
		{"edit elsewhere", strings.Replace(base, "path = /srv", "path = /data", 1), strings.Replace(ours, "path = /srv", "path = /data", 1), true},
		{"appended", base + "[new]\n  path = /x\n", ours + "[new]\n  path = /x\n", true},
		{"same line", strings.Replace(base, "TCP_NODELAY", "TCP_NODELAY IPTOS_LOWDELAY", 1), "", false},
		{"adjacent line", strings.Replace(base, "workgroup = HOME", "workgroup = WORK", 1), "", false},
		{"same change", ours, ours, true},
	} {
		got, ok := merge3(base, ours, tc.theirs)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s: ok=%v\n%q\nwant ok=%v\n%q", tc.name, ok, got, tc.ok, tc.want)
		}
	}
}

func TestUnified(t *testing.T) {
	got := unified("/etc/samba/smb.conf", "a\nb\nc\nd\n", "a\nB\nc\nd\n")
	want := "--- /etc/samba/smb.conf (after nastune's apply)\n+++ /etc/samba/smb.conf (now)\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestDiffMemoryBound: two unrelated large files do not diff (a conflict)
// instead of taking hundreds of MiB.
func TestDiffMemoryBound(t *testing.T) {
	var a, b []string
	for i := range 20000 {
		a = append(a, fmt.Sprintf("a%d\n", i))
		b = append(b, fmt.Sprintf("b%d\n", i))
	}
	if _, ok := diffLines(a, b); ok {
		t.Error("diffed 40000 unrelated lines")
	}
	if _, ok := merge3(strings.Join(a, ""), strings.Join(b, ""), strings.Join(a, "")+"x\n"); ok {
		t.Error("merged")
	}
	// A small edit in a large file diffs fine.
	c := append(append([]string(nil), a[:10000]...), "changed\n")
	c = append(c, a[10001:]...)
	if hs, ok := diffLines(a, c); !ok || len(hs) != 1 || hs[0].a1 != 10000 || hs[0].a2 != 10001 {
		t.Errorf("hunks %+v ok %v", hs, ok)
	}
}
