package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every command has its own page, and groff (the man oracle) renders each
// one without a warning, with the sections an admin looks for and the
// release date.
func TestManPages(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("groff missing: scripts/ensure-deps.sh installs groff-base")
		}
		t.Skip("groff not installed")
	}
	date := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	pages := ManPages(date, "v1.2.3")
	names := map[string]bool{}
	for _, p := range pages {
		names[p.Name] = true
	}
	for _, c := range allCommands(Command()) {
		if !c.IsAvailableCommand() && c.HasParent() || strings.HasPrefix(c.CommandPath(), "nastune completion") || c.Name() == "help" {
			continue
		}
		if want := manName(c) + ".1"; !names[want] {
			t.Errorf("no page %s for %q", want, c.CommandPath())
		}
	}
	for _, want := range []string{"nastune.1", "nastune-audit.1", "nastune-calc-raid.1", "nastune-bench-disk.1", "nastune-plan.1"} {
		if !names[want] {
			t.Errorf("page %s missing", want)
		}
	}
	dir := t.TempDir()
	for _, p := range pages {
		path := filepath.Join(dir, p.Name)
		if err := os.WriteFile(path, p.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-rLL=80n", path)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			t.Errorf("%s: groff: %v %s", p.Name, err, errb.String())
			continue
		}
		text := stripOverstrike(out.String())
		for _, sec := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "FILES", "SEE ALSO"} {
			if !strings.Contains(text, "\n"+sec+"\n") {
				t.Errorf("%s: no %s section", p.Name, sec)
			}
		}
		if _, ok := examples[strings.ReplaceAll(strings.TrimSuffix(p.Name, ".1"), "-", " ")]; ok && !strings.Contains(text, "\nEXAMPLES\n") {
			t.Errorf("%s: no EXAMPLES", p.Name)
		}
		if !strings.Contains(text, "2026-11-23") || !strings.Contains(text, "nastune v1.2.3") {
			t.Errorf("%s: release date or version missing from the footer", p.Name)
		}
		// whatis/apropos parse the NAME line (man-db's lexgrog).
		if lexgrog, err := exec.LookPath("lexgrog"); err == nil {
			if out, err := exec.Command(lexgrog, path).CombinedOutput(); err != nil || !strings.Contains(string(out), " - ") {
				t.Errorf("%s: lexgrog: %v %s", p.Name, err, out)
			}
		}
	}
	audit := string(pageNamed(pages, "nastune-audit.1"))
	for _, want := range []string{`\fB\-\-only\fR \fIID\fR`, "/var/lib/nastune/bench", `\fBnastune\-plan\fR(1)`, ".B 1\n"} {
		if !strings.Contains(audit, want) {
			t.Errorf("nastune-audit.1 lacks %q", want)
		}
	}
	root := string(pageNamed(pages, "nastune.1"))
	if strings.Contains(root, "fail\\-on\\fR \\fI") {
		t.Error("nastune.1 lists the audit options; they belong to nastune-audit(1)")
	}
}

func pageNamed(pages []ManPage, name string) []byte {
	for _, p := range pages {
		if p.Name == name {
			return p.Content
		}
	}
	return nil
}

// stripOverstrike removes the backspace bold/underline of grotty output.
func stripOverstrike(s string) string {
	var b []rune
	for _, r := range s {
		if r == '\b' {
			if len(b) > 0 {
				b = b[:len(b)-1]
			}
			continue
		}
		b = append(b, r)
	}
	return strings.ReplaceAll(string(b), "\x1b[", "")
}
