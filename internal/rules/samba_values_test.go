package rules_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/plan"
)

// TestSmbValuesAgainstTestparm: what the rules say about a value with an
// inline comment or an illegal value matches what Samba's own loader does
// (the installed testparm, when there is one): a yes/no, enum or size
// parameter with an illegal value fails the load ("Error loading
// services.": crit, and the plan edits nothing in that file but names the
// line in a manual step); a text parameter keeps the comment in its value
// (warn, testparm prints it); a number keeps its leading digits (nothing
// to say).
func TestSmbValuesAgainstTestparm(t *testing.T) {
	tests := []struct {
		name    string
		global  string // a [global] line
		share   string // a [data] line
		loadErr bool   // testparm: Error loading services.
		id, sev string // the finding ("" = none of the two)
		sub     string
		kept    string // text testparm prints as the value (text parameters)
	}{
		{"enum with a comment", "server signing = mandatory  # all clients sign", "", true,
			"smb-inline-comment", "crit", "reads as server signing = mandatory, but nothing in this file is in force", ""},
		{"share boolean with a comment", "", "read only = yes # c", true,
			"smb-inline-comment", "crit", "smbd refuses to start with this file", ""},
		{"boolean with a ; comment", "", "browseable = no ; hidden", true,
			"smb-inline-comment", "crit", "Error loading services", ""},
		{"illegal enum", "strict locking = sometimes", "", true,
			"smb-invalid-value", "crit", "sometimes is not a value Samba accepts", ""},
		{"protocol typo", "server min protocol = SMB4", "", true,
			"smb-invalid-value", "crit", "smbd refuses to start", ""},
		{"size with a comment", "aio read size = 1 # async", "", true,
			"smb-inline-comment", "crit", "reads as aio read size = 1", ""},
		{"size typo", "max log size = 1000 lines", "", true,
			"smb-invalid-value", "crit", "not a value Samba accepts", ""},
		{"path keeps the comment", "", "path = /srv/data # the pool", false,
			"smb-inline-comment", "warn", `Samba uses path = "/srv/data # the pool"`, "/srv/data # the pool"},
		{"user keeps the comment", "", "force user = nobody # guests", false,
			"smb-inline-comment", "warn", `force user = "nobody # guests"`, "nobody # guests"},
		{"host list keeps the comment", "hosts allow = 10.0.0.0/8 # lan", "", false,
			"smb-inline-comment", "warn", "hosts allow", "10.0.0.0/8 # lan"},
		{"comment of a comment", "", "comment = Data # main", false,
			"smb-inline-comment", "info", "Data # main", "Data # main"},
		{"integer keeps its digits", "max connections = 10 # per share", "", false, "", "", "", ""},
		{"octal keeps its digits", "", "create mask = 0664 # rw", false, "", "", "", ""},
		{"legal values", "server signing = mandatory", "read only = no", false, "", "", "", ""},
		{"command with ;", "", "root preexec = /bin/mkdir -p /srv/x ; /bin/true", false, "", "", "", ""},
	}
	testparm, _ := exec.LookPath("testparm")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conf := "[global]\n   workgroup = WORKGROUP\n   log level = 3\n"
			if tt.global != "" {
				conf += "   " + tt.global + "\n"
			}
			conf += "[data]\n   path = /srv/data\n"
			if tt.share != "" {
				conf += "   " + tt.share + "\n"
			}
			if testparm != "" {
				f := filepath.Join(t.TempDir(), "smb.conf")
				if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(testparm, "-s", f).CombinedOutput()
				failed := strings.Contains(string(out), "Error loading services")
				if failed != tt.loadErr || (err != nil) != tt.loadErr {
					t.Fatalf("testparm: load error %v (%v), table says %v:\n%s", failed, err, tt.loadErr, out)
				}
				if tt.kept != "" && !strings.Contains(strings.ToLower(string(out)), strings.ToLower(" = "+tt.kept+"\n")) {
					t.Errorf("testparm does not print %q as the value:\n%s", tt.kept, out)
				}
			} else {
				t.Log("testparm not installed: checked against the table only")
			}
			h, fs := runTree(t, map[string]string{"etc/samba/smb.conf": conf})
			var got []string
			for _, f := range fs {
				if f.ID != "smb-inline-comment" && f.ID != "smb-invalid-value" {
					continue
				}
				got = append(got, f.ID)
				if f.ID != tt.id || f.Severity.String() != tt.sev || !strings.Contains(text(f), tt.sub) {
					t.Errorf("%s %s: %s\nwant %s %s with %q", f.ID, f.Severity, text(f), tt.id, tt.sev, tt.sub)
				}
			}
			if (tt.id == "") != (len(got) == 0) || len(got) > 1 {
				t.Errorf("findings %v, want %q", got, tt.id)
			}
			// log level = 3 asks for a config edit of smb.conf: never
			// automatic in a file that does not load; the manual step
			// names the line.
			p := plan.Make(h, fs)
			edits := 0
			for _, c := range p.Changes {
				if c.Persist != nil && c.Persist.File == "/etc/samba/smb.conf" {
					edits++
				}
			}
			line := 0
			for i, l := range strings.Split(conf, "\n") {
				if strings.Contains(l, tt.global+tt.share) {
					line = i + 1
				}
			}
			if tt.loadErr {
				manual := false
				for _, m := range p.Manual {
					manual = manual || strings.Contains(m.Action, fmt.Sprintf("line %d ", line))
				}
				if edits != 0 || !manual {
					t.Errorf("plan on a file that does not load: %d smb.conf edits, manual %+v (want none, and a step naming line %d)", edits, p.Manual, line)
				}
			} else if edits != 1 {
				t.Errorf("plan on a loadable file: %d smb.conf edits, want 1 (log level)", edits)
			}
		})
	}
}

// smbConfOf cuts etc/samba/smb.conf out of a txtar tree.
func smbConfOf(t *testing.T, file string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n-- etc/samba/smb.conf --\n")
	if !ok {
		return "", false
	}
	if i := strings.Index(rest, "\n-- "); i >= 0 {
		rest = rest[:i+1]
	}
	return rest, true
}

// TestSmbLoadVerdictMatchesTestparm: over every smb.conf of the real
// corpus and the fixture hosts (those without includes), nastune's
// verdict "smbd loads this file" (no load error, no crit value finding)
// is testparm's.
func TestSmbLoadVerdictMatchesTestparm(t *testing.T) {
	testparm, err := exec.LookPath("testparm")
	if err != nil {
		t.Skip("testparm not installed")
	}
	trees, _ := filepath.Glob("../../testdata/real/smb-*/tree.txtar")
	unsourced, _ := filepath.Glob("../../testdata/unsourced/smb-*/tree.txtar")
	trees = append(trees, unsourced...)
	hosts, _ := filepath.Glob("../../testdata/hosts/*.txtar")
	n := 0
	for _, tree := range append(trees, hosts...) {
		conf, ok := smbConfOf(t, tree)
		if !ok || strings.Contains(strings.ToLower(conf), "include") {
			continue
		}
		n++
		t.Run(filepath.Base(filepath.Dir(tree))+"/"+filepath.Base(tree), func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "smb.conf")
			if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command(testparm, "-s", f).CombinedOutput()
			samba := !strings.Contains(string(out), "Error loading services")
			h, fs := runTree(t, map[string]string{"etc/samba/smb.conf": conf})
			ours := h.Samba != nil && h.Samba.LoadError == nil
			for _, x := range fs {
				if (x.ID == "smb-inline-comment" || x.ID == "smb-invalid-value") && x.Severity.String() == "crit" {
					ours = false
				}
			}
			if ours != samba {
				t.Errorf("nastune says loads=%v, testparm loads=%v:\n%s", ours, samba, out)
			}
		})
	}
	if n < 8 {
		t.Errorf("only %d smb.conf files checked", n)
	}
}
