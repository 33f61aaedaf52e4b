package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TermSafe is the writer every output goes through (cli wraps stdout and
// stderr in one): data from a machine (a hostname, a share name, a line of
// a config file, a process or file name, captured command output, a peer's
// error reply, a snapshot made by someone else) may hold terminal control
// sequences. Printed raw, "\x1b]0;…\a" retitles the window, "\x1b[2J"
// clears it, "\r" or cursor moves overwrite what was printed, some
// terminals answer queries into the input, and a bidi override (U+202E)
// shows "gpj.exe" as "exe.jpg". TermSafe prints as visible text:
//
//   - every C0 control but newline and tab, ESC included, and invalid
//     UTF-8 bytes (a lone 0x9b is CSI on some terminals) as \xNN;
//   - DEL, the C1 controls (U+0080–U+009F), the bidi embeddings,
//     overrides and isolates (U+202A–U+202E, U+2066–U+2069) and every
//     other Unicode format character (category Cf: zero-width spaces and
//     joiners, U+FEFF, tag characters), the other default-ignorable
//     (invisible) characters such as the Hangul filler U+3164 and the
//     line and paragraph separators U+2028/U+2029 as \uXXXX
//     (\UXXXXXXXX above U+FFFF).
//
// No escape sequence passes, not even a colour: nastune's own colours and
// cursor moves (the audit's --color, watch's live screen, bench's progress
// bar) are written to RawWriter(w) by the code that emits them, after it
// passed the data among them through Clean. Since the \u form is also
// JSON's, JSON output (whose strings render.JSON escapes the same way)
// passes unchanged.
//
// A rune split across two writes (a bufio flush) is held back until the
// next write completes it; Flush writes what is held at the end.
type TermSafe struct {
	W    io.Writer
	mu   sync.Mutex
	hold []byte // an incomplete UTF-8 sequence at the end of the last write
}

// NewTermSafe returns a TermSafe writing to w.
func NewTermSafe(w io.Writer) *TermSafe { return &TermSafe{W: w} }

// Write filters p as described above. It reports len(p) on success.
func (t *TermSafe) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := p
	if len(t.hold) > 0 {
		in = append(t.hold, p...)
		t.hold = nil
	}
	// An incomplete rune at the end waits for the next write.
	if k := incompleteTail(in); k > 0 {
		t.hold = append([]byte(nil), in[len(in)-k:]...)
		in = in[:len(in)-k]
	}
	out := appendSafe(make([]byte, 0, len(in)+16), in)
	if _, err := t.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete rune (escaped: it is invalid now).
func (t *TermSafe) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.hold) == 0 {
		return nil
	}
	out := appendSafe(nil, t.hold)
	t.hold = nil
	_, err := t.W.Write(out)
	return err
}

// incompleteTail is the length of a UTF-8 sequence cut short at the end of
// p that more bytes could complete, or 0.
func incompleteTail(p []byte) int {
	for k := 1; k <= 3 && k <= len(p); k++ {
		c := p[len(p)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a leading byte
			if !utf8.FullRune(p[len(p)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// Clean returns s as TermSafe would print it: for data placed among
// nastune's own escape sequences (colours, a live screen), and for
// formats that must not hold raw controls (Prometheus labels).
func Clean(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return string(appendSafe(make([]byte, 0, len(s)+16), []byte(s)))
		}
	}
	return s
}

// CleanLine is Clean that also shows a newline as \x0a: for a value
// printed inside one line, where a newline could forge a line of its own
// ("\n  CRIT  …").
func CleanLine(s string) string {
	return Clean(strings.ReplaceAll(s, "\n", `\x0a`))
}

// unsafeRune reports whether r must be shown escaped: a control (C0, DEL,
// C1), a format character (bidi controls, zero-width characters, tags), a
// line or paragraph separator, or another character Unicode says to
// render invisibly (Hangul fillers U+3164 and U+FFA0, the combining
// grapheme joiner, variation selectors).
func unsafeRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r)
}

func appendSafe(out, p []byte) []byte {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				out = append(out, c)
			case c < 0x20:
				out = fmt.Appendf(out, `\x%02x`, c)
			case c == 0x7f:
				out = append(out, `\u007f`...)
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = fmt.Appendf(out, `\x%02x`, c)
		case unsafeRune(r) && r > 0xffff:
			out = fmt.Appendf(out, `\U%08x`, r)
		case unsafeRune(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	return out
}

// RawWriter returns the writer under a TermSafe, or w itself: for output
// that must stay byte-exact (a patch going to a file) and for nastune's
// own escape sequences, written around data passed through Clean.
func RawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*TermSafe); ok {
		return t.W
	}
	return w
}
