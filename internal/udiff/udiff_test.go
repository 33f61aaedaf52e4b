package udiff

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewFile(t *testing.T) {
	got := Diff(File{OldName: "/dev/null", NewName: "b/etc/sysctl.d/90-nastune.conf", New: []byte("# nastune\nvm.swappiness = 10\n")})
	want := "--- /dev/null\n+++ b/etc/sysctl.d/90-nastune.conf\n@@ -0,0 +1,2 @@\n+# nastune\n+vm.swappiness = 10\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Diff(File{OldName: "a/x", NewName: "b/x", Old: []byte("same\n"), New: []byte("same\n")}) != "" {
		t.Error("equal files give a diff")
	}
}

// The hunk headers GNU diff writes for the same edit.
func TestLikeGNUDiff(t *testing.T) {
	diffBin, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("diff not installed")
	}
	old := "[global]\n   workgroup = WG\n   server string = nas\n   log level = 1\n   socket options = TCP_NODELAY SO_RCVBUF=8192\n   use sendfile = no\n\n[share]\n   path = /srv\n"
	cur := strings.Replace(old, "   use sendfile = no\n", "   use sendfile = yes\n", 1)
	cur = strings.Replace(cur, "   socket options = TCP_NODELAY SO_RCVBUF=8192\n", "", 1)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a"), old)
	write(t, filepath.Join(dir, "b"), cur)
	out, _ := exec.Command(diffBin, "-u", "--label", "a/smb.conf", "--label", "b/smb.conf", filepath.Join(dir, "a"), filepath.Join(dir, "b")).Output()
	if got := Diff(File{OldName: "a/smb.conf", NewName: "b/smb.conf", Old: []byte(old), New: []byte(cur)}); got != string(out) {
		t.Errorf("udiff:\n%s\nGNU diff -u:\n%s", got, out)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// GNU patch is the oracle: random edits of random files, including new
// files, emptied files, and last lines without a newline, are reproduced
// byte for byte by `patch -p1` from the tree's root.
func TestGNUPatchAppliesIt(t *testing.T) {
	patchBin, err := exec.LookPath("patch")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("patch missing: scripts/ensure-deps.sh installs it")
		}
		t.Skip("GNU patch not installed")
	}
	rng := rand.New(rand.NewSource(16))
	words := []string{"alpha", "beta", "gamma", "", "# comment", "key = value", "}", "{"}
	randText := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte('\n')
		}
		s := b.String()
		if n > 0 && rng.Intn(5) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	mutate := func(s string) string {
		ls := lines([]byte(s))
		for range rng.Intn(6) {
			switch i := rng.Intn(len(ls) + 1); rng.Intn(3) {
			case 0:
				ls = append(ls[:i], append([]string{words[rng.Intn(len(words))] + "\n"}, ls[i:]...)...)
			case 1:
				if i < len(ls) {
					ls = append(ls[:i], ls[i+1:]...)
				}
			case 2:
				if i < len(ls) {
					ls[i] = "changed " + fmt.Sprint(rng.Intn(100)) + "\n"
				}
			}
		}
		out := strings.Join(ls, "")
		if rng.Intn(6) == 0 {
			out = strings.TrimSuffix(out, "\n")
		}
		return out
	}
	for round := range 60 {
		dir := t.TempDir()
		var patch strings.Builder
		patch.WriteString("# runtime /proc/sys/vm/swappiness: 60 -> 10\n# (comment lines before the first file are ignored by patch)\n")
		want := map[string]string{}
		for f := range 4 {
			name := fmt.Sprintf("etc/dir%d/file%d.conf", f, round)
			var old, cur string
			oldName := "a/" + name
			switch rng.Intn(4) {
			case 0: // new file
				oldName = "/dev/null"
				cur = randText(1 + rng.Intn(12))
			default:
				old = randText(rng.Intn(40))
				cur = mutate(old)
				write(t, filepath.Join(dir, name), old)
			}
			want[name] = cur
			patch.WriteString(Diff(File{OldName: oldName, NewName: "b/" + name, Old: []byte(old), New: []byte(cur)}))
		}
		cmd := exec.Command(patchBin, "-p1", "--forward", "--batch", "--no-backup-if-mismatch")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(patch.String())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("round %d: patch: %v\n%s\npatch was:\n%s", round, err, out.String(), patch.String())
		}
		if strings.Contains(out.String(), "offset") || strings.Contains(out.String(), "fuzz") {
			t.Errorf("round %d: patch needed offset or fuzz: %s", round, out.String())
		}
		for name, w := range want {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if os.IsNotExist(err) && w == "" {
				continue // GNU patch removes a file the patch empties
			}
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if string(got) != w {
				t.Fatalf("round %d: %s after patch:\n%q\nwant\n%q\npatch:\n%s", round, name, got, w, patch.String())
			}
		}
	}
}

// Memory follows the size of the change: a one-line edit in a big file.
func TestBigFileSmallChange(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	old := b.String()
	cur := strings.Replace(old, "line 10000\n", "line ten thousand\n", 1)
	d := Diff(File{OldName: "a/f", NewName: "b/f", Old: []byte(old), New: []byte(cur)})
	want := "--- a/f\n+++ b/f\n@@ -9998,7 +9998,7 @@\n line 9997\n line 9998\n line 9999\n-line 10000\n+line ten thousand\n line 10001\n line 10002\n line 10003\n"
	if d != want {
		t.Errorf("got\n%s", d)
	}
}

// TestMemoryBound: two unrelated large texts exceed MaxCells; the diff is
// then the whole middle replaced (still correct, bounded memory) and
// Replacements says it is not minimal.
func TestMemoryBound(t *testing.T) {
	var a, b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	old := "head\n" + a.String() + "tail\n"
	nw := "head\n" + b.String() + "tail\n"
	rs, minimal := Replacements(Lines([]byte(old)), Lines([]byte(nw)))
	if minimal || len(rs) != 1 || rs[0].A1 != 1 || rs[0].A2 != 20001 || len(rs[0].Lines) != 20000 {
		t.Fatalf("replacements: minimal=%v %d, first %d-%d", minimal, len(rs), rs[0].A1, rs[0].A2)
	}
	d := Diff(File{OldName: "a/x", NewName: "b/x", Old: []byte(old), New: []byte(nw)})
	if got := strings.Count(d, "\n-a"); got != 20000 {
		t.Errorf("%d deleted lines, want 20000", got)
	}
	if got := strings.Count(d, "\n+b"); got != 20000 {
		t.Errorf("%d inserted lines, want 20000", got)
	}
	// A small edit in the same large text stays minimal.
	edited := strings.Replace(old, "a10000\n", "changed\n", 1)
	rs, minimal = Replacements(Lines([]byte(old)), Lines([]byte(edited)))
	if !minimal || len(rs) != 1 || rs[0].A1 != 10001 || rs[0].A2 != 10002 {
		t.Errorf("small edit: minimal=%v %+v", minimal, rs)
	}
}
