package render

import (
	"bytes"
	"fmt"
	"testing"
)

// Red team: a hostname "evil\x1b]0;PWNED\a\x1b[2J" in a --root tree or a
// snapshot reached the admin's terminal raw from `nastune audit`.
func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"evil\x1b]0;PWNED\a\x1b[2Jx\n": `evil\x1b]0;PWNED\x07\x1b[2Jx` + "\n",
		"a\rb\bc\x00d\x7f":             `a\x0db\x08c\x00d\x7f`,
		"\x1b[1;31mCRIT\x1b[0m\tok\n":  "\x1b[1;31mCRIT\x1b[0m\tok\n", // nastune's own colours
		"\x1b[31;5;6H":                 `\x1b[31;5;6H`,                // a cursor move, not SGR
		"caf\u00e9 · 4 MiB → 2 µs":     "caf\u00e9 · 4 MiB → 2 µs",
		"\u009b2J and \x9b2J":          `\u009b2J and \x9b2J`,
		"\x1b[8mhidden\x1b[30;40m":     `\x1b[8mhidden\x1b[30;40m`, // concealed, black on black
	} {
		var b bytes.Buffer
		n, err := fmt.Fprint(TermSafe{&b}, in)
		if err != nil || n != len(in) {
			t.Errorf("%q: n=%d err=%v", in, n, err)
		}
		if b.String() != want {
			t.Errorf("%q: got %q, want %q", in, b.String(), want)
		}
	}
	var b bytes.Buffer
	if RawWriter(TermSafe{&b}) != &b || RawWriter(&b) != &b {
		t.Error("RawWriter")
	}
}
