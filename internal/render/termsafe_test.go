package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Red team: a hostname "evil\x1b]0;PWNED\a\x1b[2J" in a --root tree or a
// snapshot reached the admin's terminal raw from `nastune audit`; a share
// or process name with U+202E shows its text reversed; U+009B (CSI in
// UTF-8), a colour that paints the rest of the report red, and zero-width
// characters passed the filter.
func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"evil\x1b]0;PWNED\a\x1b[2Jx\n":  `evil\x1b]0;PWNED\x07\x1b[2Jx` + "\n",
		"a\rb\bc\x00d\x7f":              `a\x0db\x08c\x00d\u007f`,
		"\x1b[1;31mCRIT\x1b[0m\tok\n":   `\x1b[1;31mCRIT\x1b[0m` + "\tok\n", // data's colours too
		"\x1b[31;5;6H":                  `\x1b[31;5;6H`,
		"caf\u00e9 · 4 MiB → 2 µs":      "caf\u00e9 · 4 MiB → 2 µs",
		"\u009b2J and \x9b2J":           `\u009b2J and \x9b2J`,
		"\x1b[8mhidden\x1b[30;40m":      `\x1b[8mhidden\x1b[30;40m`,
		"photo\u202egpj.exe":            `photo\u202egpj.exe`,
		"\u2066a\u2069\u202a\u202d":     `\u2066a\u2069\u202a\u202d`,
		"zero\u200bwidth\u200d\ufeff":   `zero\u200bwidth\u200d\ufeff`,
		"tag\U000e0041 \u2028\u2029":    `tag\U000e0041 \u2028\u2029`,
		"soft\u00adhyphen\u061c":        `soft\u00adhyphen\u061c`,
		"blank\u3164\uffa0\u034f\ufe0f": `blank\u3164\uffa0\u034f\ufe0f`,
	} {
		var b bytes.Buffer
		n, err := fmt.Fprint(NewTermSafe(&b), in)
		if err != nil || n != len(in) {
			t.Errorf("%q: n=%d err=%v", in, n, err)
		}
		if b.String() != want {
			t.Errorf("%q: got %q, want %q", in, b.String(), want)
		}
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	if RawWriter(NewTermSafe(&b)) != &b || RawWriter(&b) != &b {
		t.Error("RawWriter")
	}
}

// A bufio flush can cut a rune in two; both halves used to be printed as
// \xNN, garbling "·" and "→" in long reports.
func TestTermSafeSplitRune(t *testing.T) {
	in := []byte("a · b → c \u202e d \u009b")
	for cut := 1; cut < len(in); cut++ {
		var b bytes.Buffer
		ts := NewTermSafe(&b)
		ts.Write(in[:cut])
		ts.Write(in[cut:])
		ts.Flush()
		if want := Clean(string(in)); b.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
	var b bytes.Buffer
	ts := NewTermSafe(&b)
	ts.Write([]byte("x\xe2\x86"))
	ts.Flush()
	if b.String() != `x\xe2\x86` {
		t.Errorf("a rune cut short at the end: %q", b.String())
	}
}

// JSON keeps the data exact and holds no raw control or format character:
// through TermSafe (cli's stdout) it is unchanged and still valid. DEL
// used to become "\x7f" in it, which is not JSON.
func TestJSONTerminalSafe(t *testing.T) {
	evil := "a\x1b[2J\x7f\u009b\u202eb\u2028\U000e0041\xff\n"
	var raw bytes.Buffer
	if err := JSON(&raw, map[string]string{"v": evil}); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw.String() {
		if unsafeRune(r) && r != '\n' {
			t.Errorf("raw %U in JSON %s", r, raw.String())
		}
	}
	var through bytes.Buffer
	NewTermSafe(&through).Write(raw.Bytes())
	if through.String() != raw.String() {
		t.Errorf("TermSafe changed JSON:\n%s\n%s", raw.String(), through.String())
	}
	var back map[string]string
	if err := json.Unmarshal(through.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if want := strings.ToValidUTF8(evil, "\ufffd"); back["v"] != want {
		t.Errorf("decoded %q, want %q", back["v"], want)
	}
}

// Every string of a report, hostile, rendered with colours: the only
// escape sequences in the output are the styles the renderer writes, and
// a newline in a value cannot forge a line.
func TestTextColorOnlyOwnSequences(t *testing.T) {
	evil := "x\x1b]0;T\a\x1b[31m\u202e\n  CRIT  forged"
	r := &audit.Report{Host: audit.HostSummary{Hostname: evil, Kernel: evil, Arch: evil},
		Findings: []rule.Finding{{ID: evil, Family: evil, Subject: evil, Title: evil, Why: evil, Refs: []string{evil},
			Evidence:       []rule.Evidence{{Source: evil, Value: evil}},
			Recommendation: &rule.Recommendation{Kind: rule.KindSysctl, Target: evil, Value: evil, Current: evil, Basis: evil}}},
		NotCollected: []facts.NotCollected{{Source: evil, Reason: evil}}}
	var b bytes.Buffer
	if err := Text(NewTermSafe(&b), r, Options{Color: true, Verbose: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{ansiReset, ansiBold, ansiDim, ansiRed, ansiYell, ansiCyan} {
		out = strings.ReplaceAll(out, s, "")
	}
	if strings.ContainsAny(out, "\x1b\a\u202e") {
		t.Errorf("a value's escape reached the output:\n%q", out)
	}
	if strings.Contains(out, "\n  CRIT  forged") {
		t.Errorf("a newline in a value forged a line:\n%s", out)
	}
	if !strings.Contains(b.String(), ansiBold) {
		t.Error("the renderer's own colours are gone")
	}
}

// Prometheus: a label or help text with controls stays a valid exposition
// (the format knows only \\, \" and \n) and holds no raw control.
func TestPromLabelControls(t *testing.T) {
	got := escapeLabel("a\x1b[2J\"\\\n\u202e")
	if want := `a\\x1b[2J\"\\\n\\u202e`; got != want {
		t.Errorf("escapeLabel = %q, want %q", got, want)
	}
	_ = time.Now
}
