package plan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/rule"
)

// An edit of smb.conf is true only when no setting Samba reads later (an
// include = file read in place) sets the same parameter in the section.
// The oracle is the real testparm: the plan's edit is applied to a
// scratch tree and testparm must show the planned value when the plan
// keeps the change, and the overriding line's value when the plan turns
// it into a manual step naming that line.
func TestSmbIncludeOverride(t *testing.T) {
	if _, err := exec.LookPath("testparm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("testparm not installed (Debian package samba-common-bin)")
		}
		t.Skip("testparm not installed (Debian package samba-common-bin)")
	}
	const planned = "45"
	tests := []struct {
		name  string
		main  string            // smb.conf; INC_x is replaced by the path of file x
		files map[string]string // included files by short name
		lost  string            // short name of the file whose line wins ("" the edit wins)
		line  int
	}{
		{"include before the new line", "[global]\n\tinclude = INC_a\n\tworkgroup = W\n",
			map[string]string{"a": "deadtime = 30\n"}, "", 0},
		{"include is the section's last line: the new line goes after it", "[global]\n\tworkgroup = W\n\tinclude = INC_a\n",
			map[string]string{"a": "deadtime = 30\n"}, "", 0},
		{"include after the edited line", "[global]\n\tdeadtime = 15\n\tinclude = INC_a\n",
			map[string]string{"a": "# tuning\ndeadtime = 30\n"}, "a", 2},
		{"include after, same value", "[global]\n\tdeadtime = 15\n\tinclude = INC_a\n",
			map[string]string{"a": "deadtime = 45\n"}, "", 0},
		{"include before the edited line", "[global]\n\tinclude = INC_a\n\tdeadtime = 15\n",
			map[string]string{"a": "deadtime = 30\n"}, "", 0},
		{"included file sets it for a share only", "[global]\n\tdeadtime = 15\n\tinclude = INC_a\n",
			map[string]string{"a": "[data]\n\tpath = /srv\n\tdead time = 30\n"}, "", 0},
		{"nested include", "[global]\n\tdeadtime = 15\n\tinclude = INC_a\n",
			map[string]string{"a": "include = INC_b\n", "b": "\n\n\tdead time = 30\n"}, "b", 3},
		{"a share's include reopens [global]", "[global]\n\tdeadtime = 15\n[data]\n\tpath = /srv\n\tinclude = INC_a\n",
			map[string]string{"a": "[global]\n\tdeadtime = 30\n"}, "a", 2},
		{"a share's include opens [global]: the share's later lines are global's", "[global]\n\tdeadtime = 15\n[data]\n\tpath = /srv\n\tinclude = INC_a\n\tdeadtime = 30\n",
			map[string]string{"a": "[global]\n\tworkgroup = W\n"}, "smb", 6},
		{"a share's include that sets it for the share", "[global]\n\tdeadtime = 15\n[data]\n\tpath = /srv\n\tinclude = INC_a\n",
			map[string]string{"a": "deadtime = 30\n"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A short folder: the manual step shows paths up to 64 bytes
			// as they are.
			dir, err := os.MkdirTemp("", "smbinc")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			name := func(short string) string { return filepath.Join(dir, short+".conf") }
			subst := func(s string) string {
				for short := range tt.files {
					s = strings.ReplaceAll(s, "INC_"+short, name(short))
				}
				return s
			}
			main := filepath.Join(dir, "smb.conf")
			write(t, main, subst(tt.main))
			for short, body := range tt.files {
				write(t, name(short), subst(body))
			}
			h := &facts.Host{Samba: sambaFacts(t, main)}
			f := rule.Finding{ID: "smb-deadtime", Subject: "deadtime", Recommendation: &rule.Recommendation{
				Kind: rule.KindConfig, Target: main + ":[global]:deadtime", Current: "15", Value: planned}}
			p := Make(h, []rule.Finding{f})

			// What Samba uses once the main file is edited as the plan's
			// change would (also when the plan refuses: that is the claim).
			src, _ := os.ReadFile(main)
			edited, err := confsyntax.EditSmbConf(src, "global", "deadtime", planned)
			if err != nil {
				t.Fatal(err)
			}
			write(t, main, string(edited))
			got := testparmGlobal(t, main, "deadtime")

			if tt.lost == "" {
				if len(p.Changes) != 1 || len(p.Manual) != 0 {
					t.Fatalf("want the edit planned, got changes %+v manual %+v", p.Changes, p.Manual)
				}
				if got != planned {
					t.Errorf("testparm after the planned edit: deadtime = %q, want %q\n%s", got, planned, edited)
				}
				return
			}
			if len(p.Changes) != 0 || len(p.Manual) != 1 {
				t.Fatalf("want a manual step naming the overriding line, got changes %+v manual %+v", p.Changes, p.Manual)
			}
			want := name(tt.lost) + " line " + itoa(tt.line)
			if tt.lost == "smb" {
				want = main + " line " + itoa(tt.line)
			}
			if !strings.Contains(p.Manual[0].Action, want) {
				t.Errorf("manual step %q does not name %s", p.Manual[0].Action, want)
			}
			if got == planned {
				t.Errorf("the plan says %s overrides the edit, but testparm shows the planned value", want)
			}
		})
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// sambaFacts reads smb.conf and its includes as the probe does.
func sambaFacts(t *testing.T, file string) *facts.Samba {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := smbconf.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	exp := smbconf.Expand(file, cfg, os.ReadFile, smbconf.DefaultLimits)
	if len(exp.Problems) > 0 {
		t.Fatalf("includes not read: %+v", exp.Problems)
	}
	s := &facts.Samba{ConfigFile: file}
	for i, x := range exp.Config.Params {
		s.Settings = append(s.Settings, facts.SambaSetting{Section: x.Section, FileSection: x.FileSection, Name: x.Name, Key: x.Key, Value: x.Value, File: exp.Files[i], Line: x.Line})
	}
	return s
}

func testparmGlobal(t *testing.T, file, key string) string {
	t.Helper()
	cmd := exec.Command("testparm", "-s", "-v", "--suppress-prompt", file)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("testparm %s: %v", file, err)
	}
	e, err := smbconf.FromTestparm(out)
	if err != nil {
		t.Fatalf("testparm output: %v", err)
	}
	return e.Global[key]
}

// An inverted synonym's value is already inverted in the settings:
// "writeable = yes" after the edit point says what "read only = no" says.
func TestSmbOverrideInverted(t *testing.T) {
	dir := t.TempDir()
	main, inc := filepath.Join(dir, "smb.conf"), filepath.Join(dir, "a.conf")
	for _, tt := range []struct {
		inc  string
		lost bool
	}{{"writeable = yes\n", false}, {"writeable = no\n", true}, {"read only = no\n", false}} {
		write(t, main, "[data]\n\tpath = /srv\n\tread only = yes\n\tinclude = "+inc+"\n")
		write(t, inc, tt.inc)
		s := sambaFacts(t, main)
		win, lost := smbOverride(s, main, "data", "read only", "no")
		if lost != tt.lost {
			t.Errorf("%q: lost = %v (%+v), want %v", tt.inc, lost, win, tt.lost)
		}
	}
}
