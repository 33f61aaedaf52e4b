package render

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// TermSafe is the writer every text output goes through: data from a
// machine (a hostname, a share name, a line of a config file, captured
// command output, a snapshot made by someone else) may hold terminal
// control sequences. Printed raw, "\x1b]0;…\a" retitles the window,
// "\x1b[2J" clears it, "\r" or cursor moves overwrite what was printed,
// and some terminals answer queries into the input. TermSafe prints every
// control character except newline and tab as visible text ("\x1b"), and
// lets through only SGR sequences (colours, "\x1b[1;31m"), which nastune
// itself writes and which cannot move or query anything. Invalid UTF-8
// bytes are shown as \xNN too (a lone 0x9b is CSI on some terminals).
type TermSafe struct {
	W io.Writer
}

// Write filters p as described above. It reports len(p) on success.
func (t TermSafe) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\n' || c == '\t':
			out = append(out, c)
			i++
			continue
		case c == 0x1b:
			if n := sgrLen(p[i:]); n > 0 {
				out = append(out, p[i:i+n]...)
				i += n
				continue
			}
			out = fmt.Appendf(out, `\x%02x`, c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, c)
			i++
			continue
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = fmt.Appendf(out, `\x%02x`, c)
		case r >= 0x80 && r <= 0x9f: // C1 controls (U+009B is CSI)
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := t.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sgrLen is the length of an allowed SGR sequence at the start of p, or 0.
// Only the styles nastune itself writes pass: reset, bold, dim, red,
// yellow, cyan. Others (8: concealed, 30-47 with equal colours) could
// hide a line from the reader.
func sgrLen(p []byte) int {
	for _, s := range allowedSGR {
		if len(p) >= len(s) && string(p[:len(s)]) == s {
			return len(s)
		}
	}
	return 0
}

var allowedSGR = []string{"\x1b[0m", "\x1b[1;31m", "\x1b[1m", "\x1b[2m", "\x1b[33m", "\x1b[36m", "\x1b[31m", "\x1b[32m", "\x1b[m"}

// RawWriter returns the writer under a TermSafe (for output that must
// stay byte-exact, such as a patch going to a file), or w itself.
func RawWriter(w io.Writer) io.Writer {
	if t, ok := w.(TermSafe); ok {
		return t.W
	}
	return w
}
