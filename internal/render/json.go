package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// JSON writes v as indented JSON with a trailing newline. HTML escaping is
// off: evidence quotes shell-like text such as "a > b". Strings keep the
// data exact, and no raw control or format character is left in the
// bytes (see JSONSafe), so JSON printed to a terminal cannot drive it.
func JSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(JSONSafe(b.Bytes()))
	return err
}

// JSONSafe rewrites the characters encoding/json leaves raw in strings
// but a terminal acts on (DEL, the C1 controls such as U+009B CSI, bidi
// overrides and other format characters, U+2028/U+2029 are already
// escaped) as \uXXXX escapes, surrogate pairs above U+FFFF. The decoded
// strings are unchanged; C0 controls are escaped by encoding/json itself
// and invalid UTF-8 replaced by U+FFFD. b must be encoding/json output
// (outside strings it is ASCII).
func JSONSafe(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+32), b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...)
		case unsafeRune(r) && r > 0xffff:
			r1, r2 := utf16Pair(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		case unsafeRune(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
