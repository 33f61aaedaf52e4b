package svcconf

import (
	"bytes"
	"strings"
)

// SetINI sets key = value in [section] of an nfs.conf-style file, keeping
// every other byte: an existing assignment's value is replaced in place, a
// missing key is added after the section's last line, a missing section
// is appended.
func SetINI(src []byte, section, key, value string) []byte {
	lines := splitKeep(src)
	cur, secEnd, keyLine := "", -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "["):
			if end := strings.IndexByte(t, ']'); end > 0 {
				cur = strings.ToLower(strings.TrimSpace(t[1:end]))
			}
			if cur == section {
				secEnd = i
			}
		case cur == section && t != "" && t[0] != '#' && t[0] != ';':
			secEnd = i
			if k, _, ok := strings.Cut(t, "="); ok && strings.EqualFold(strings.TrimSpace(k), key) {
				keyLine = i
			}
		}
	}
	switch {
	case keyLine >= 0:
		l := lines[keyLine]
		eq := strings.IndexByte(l, '=')
		rest := l[eq+1:]
		lead := rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
		nl := ""
		if strings.HasSuffix(l, "\n") {
			nl = "\n"
		}
		lines[keyLine] = l[:eq+1] + lead + value + nl
	case secEnd >= 0:
		lines = insertAfter(lines, secEnd, key+" = "+value+"\n")
	default:
		lines = append(ensureNL(lines), "\n["+section+"]\n", key+" = "+value+"\n")
	}
	return []byte(strings.Join(lines, ""))
}

// SetShellVar sets KEY=value in an /etc/default file, quoting like the
// existing assignment; a missing key is appended.
func SetShellVar(src []byte, key, value string) []byte {
	lines := splitKeep(src)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if k, v, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			q := ""
			if strings.HasPrefix(strings.TrimSpace(v), `"`) {
				q = `"`
			}
			nl := ""
			if strings.HasSuffix(l, "\n") {
				nl = "\n"
			}
			lines[i] = l[:strings.Index(l, key)] + key + "=" + q + value + q + nl
			return []byte(strings.Join(lines, ""))
		}
	}
	return []byte(strings.Join(append(ensureNL(lines), key+"="+value+"\n"), ""))
}

func splitKeep(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

func insertAfter(lines []string, i int, s string) []string {
	lines = ensureNLAt(lines, i)
	out := append([]string{}, lines[:i+1]...)
	out = append(out, s)
	return append(out, lines[i+1:]...)
}

func ensureNLAt(lines []string, i int) []string {
	if !strings.HasSuffix(lines[i], "\n") {
		lines[i] += "\n"
	}
	return lines
}

func ensureNL(lines []string) []string {
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n"
	}
	return lines
}
