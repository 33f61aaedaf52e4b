package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/nastune/nastune/internal/fixture"
)

// Red team: a --root tree (or snapshot) whose hostname holds terminal
// control sequences reached the terminal raw through `nastune audit`
// (retitle the window, clear the screen). Every text output is filtered.
func TestHostDataCannotDriveTheTerminal(t *testing.T) {
	dir := fixture.HostDir(t, "kirkwood-nas")
	evil := "evil\x1b]0;PWNED\a\x1b[2J\r\x1b[8m\n"
	for _, f := range []string{"etc/hostname", "proc/sys/kernel/hostname"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(evil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"audit", "--root", dir}, {"audit", "--root", dir, "--color", "always"}, {"inventory", "net", "--root", dir}} {
		out, _, _ := run(t, args...)
		if args[0] == "audit" && !strings.Contains(out, "evil") {
			t.Errorf("%v: the hostname is not shown at all:\n%s", args, out)
		}
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\a", "\r", "\x1b[8m"} {
			if strings.Contains(out, bad) {
				t.Errorf("%v: output holds %q raw", args, bad)
			}
		}
	}
}

// rawUnsafe finds what no output may hold raw: C0 controls but newline
// and tab, DEL, C1, invalid UTF-8, bidi and other format characters.
func rawUnsafe(s string) string {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == unicode.ReplacementChar && strings.HasPrefix(s[i:], "\xef\xbf\xbd") == false:
			return s[i:min(len(s), i+8)]
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			return s[i:min(len(s), i+8)]
		}
	}
	return ""
}

// Round 3: every output channel, with hostile data from the tree in the
// hostname (bidi override, C1 CSI as UTF-8, DEL, zero-width), the
// captured kernel version, a disk's model (a device's string) and a
// Samba share name, plus an error quoting a hostile path on stderr. On
// main, DEL became "\x7f" inside JSON strings (invalid JSON), U+202E and
// U+200B passed raw everywhere, and stderr was not filtered at all.
func TestEveryOutputChannelTerminalSafe(t *testing.T) {
	dir := fixture.HostDir(t, "raid6-server")
	evil := "ev\x1b]0;T\a\u202eil\u009b2J\x7f\u200b\U000e0041<img src=x onerror=alert(1)>"
	write := func(f, s string, app bool) {
		p := filepath.Join(dir, f)
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if app {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		fh, err := os.OpenFile(p, flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(s)
		fh.Close()
	}
	write("etc/hostname", evil+"\n", false)
	write("proc/sys/kernel/hostname", evil+"\n", false)
	write("proc/sys/kernel/osrelease", "6.1.0-"+evil+"\n", false)
	write("etc/samba/smb.conf", "\n["+evil+"]\n   path = /srv/"+evil+"\n", true)
	matches, _ := filepath.Glob(filepath.Join(dir, "sys/devices/*/*/*/*/*/*/model"))
	for _, m := range matches {
		os.WriteFile(m, []byte(evil+"\n"), 0o644)
	}
	out := t.TempDir()
	aj := filepath.Join(out, "a.json")
	runs := [][]string{
		{"audit", "--root", dir, "-v"}, {"audit", "--root", dir, "--color", "always", "-v"}, {"audit", "--root", dir, "-o", "json"},
		{"audit", "--root", dir, "-o", "html"}, {"audit", "--root", dir, "-o", "prom"},
		{"inventory", "disks", "--root", dir}, {"inventory", "disks", "--root", dir, "-o", "json"}, {"inventory", "services", "--root", dir},
		{"inventory", "disks", "--root", dir, "-o", "html"}, {"inventory", "services", "--root", dir, "-o", "json"}, {"inventory", "net", "--root", dir, "-o", "json"},
		{"plan", "--root", dir}, {"plan", "--root", dir, "-o", "json"},
		{"audit", "--root", filepath.Join(dir, "nope"+evil)}, {"report", filepath.Join(out, "x"+evil+".json")},
	}
	for _, args := range runs {
		stdout, stderr, _ := run(t, args...)
		if strings.Contains(strings.Join(args, " "), "color") {
			stdout = regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(stdout, "") // the styles nastune writes
		}
		if bad := rawUnsafe(stdout); bad != "" {
			t.Errorf("%q stdout holds %q raw", args, bad)
		}
		if bad := rawUnsafe(stderr); bad != "" {
			t.Errorf("%q stderr holds %q raw", args, bad)
		}
		if strings.Contains(strings.Join(args, " "), "-o html") && (strings.Contains(stdout, "<img") || !strings.Contains(stdout, "&lt;img")) {
			t.Errorf("%q: markup from the tree reached the page raw, or the value is not shown", args)
		}
		if strings.Contains(strings.Join(args, " "), "-o json") && !json.Valid([]byte(stdout)) {
			t.Errorf("%q: invalid JSON:\n%.400s", args, stdout)
		}
		if args[0] == "audit" && len(args) > 4 && args[4] == "json" {
			os.WriteFile(aj, []byte(stdout), 0o644)
		}
	}
	for _, args := range [][]string{{"report", aj}, {"report", aj, "-o", "json"}, {"report", aj, "-o", "html"}} {
		stdout, stderr, _ := run(t, args...)
		if bad := rawUnsafe(stdout + stderr); bad != "" {
			t.Errorf("%q holds %q raw", args, bad)
		}
	}
}

// Redaction applies to report input too: an audit JSON written by an
// older nastune (or by hand) whose evidence quotes a kernel command line
// with a password printed it on main.
func TestReportInputRedacted(t *testing.T) {
	rep := map[string]any{"schema": "nastune/audit/v1", "host": map[string]any{"hostname": "nas"},
		"findings": []map[string]any{{"id": "x", "family": "nic", "severity": "warn", "title": "t", "subject": "s",
			"evidence": []map[string]string{{"source": "dmesg", "value": "Kernel command line: systemd.setenv=DB_PASSWORD=MARK1 nfsroot=u:MARK2@h:/r"},
				{"source": "/proc/sys/net/ipv4/tcp_fastopen_key", "value": "MARK3-0000-0000-0000"}}}}}
	b, _ := json.Marshal(rep)
	f := filepath.Join(t.TempDir(), "a.json")
	os.WriteFile(f, b, 0o644)
	for _, o := range []string{"text", "json", "html"} {
		out, errs, _ := run(t, "report", f, "-o", o)
		if strings.Contains(out+errs, "MARK") {
			t.Errorf("report -o %s prints a secret:\n%s%s", o, out, errs)
		}
		if !strings.Contains(out, "nas") {
			t.Errorf("report -o %s: the host is not shown:\n%s%s", o, out, errs)
		}
	}
}

// A fleet report's text is a tab-aligned table of values other hosts
// wrote (hostname, finding titles): a newline or tab in one forged a row
// or shifted the columns, which the terminal filter alone lets through.
func TestReportCellsOneLine(t *testing.T) {
	rep := map[string]any{"schema": "nastune/audit/v1", "host": map[string]any{"hostname": "nas\nevil\t0\t0\t0"},
		"findings": []map[string]any{{"id": "x", "family": "nic", "severity": "crit", "title": "t\nFORGED\trow", "subject": "s\tt"}}}
	b, _ := json.Marshal(rep)
	f := filepath.Join(t.TempDir(), "a.json")
	os.WriteFile(f, b, 0o644)
	out, errs, _ := run(t, "report", f)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "evil") || strings.HasPrefix(strings.TrimSpace(l), "FORGED") {
			t.Errorf("a value's newline started a row: %q\n%s%s", l, out, errs)
		}
	}
	if !strings.Contains(out, `nas\x0aevil\x090`) || !strings.Contains(out, `t\x0aFORGED\x09row`) {
		t.Errorf("the values are not shown as one cell:\n%s%s", out, errs)
	}
}
