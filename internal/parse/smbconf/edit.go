package smbconf

import (
	"strings"
)

// Set returns src with one parameter set to value, every other byte kept.
// The last setting of key in section is rewritten in place (an inverted
// synonym such as "writeable" gets the inverted value); without one, a
// line is added after the section's last parameter (indented like it), or
// a new section is appended. name is written as given for new lines.
func Set(src []byte, section, name, value string) ([]byte, error) {
	c, err := Parse(src)
	if c == nil {
		return nil, err
	}
	key, _ := Canonical(name)
	var last *Param
	for i := range c.Params {
		p := &c.Params[i]
		if strings.EqualFold(p.Section, section) && p.Key == key {
			last = p
		}
	}
	if last != nil {
		v := value
		if last.Inverted {
			v = invertBool(value)
		}
		out := make([]byte, 0, len(src)+len(v))
		out = append(out, src[:last.ValueStart]...)
		out = append(out, v...)
		return append(out, src[last.ValueEnd:]...), nil
	}
	// Insert after the section's last line (parameter or header).
	insertLine, indent := -1, "\t"
	for _, s := range c.Sections {
		if strings.EqualFold(s.Name, section) {
			insertLine = s.Line
		}
	}
	for _, p := range c.Params {
		if strings.EqualFold(p.Section, section) && p.Line >= insertLine && insertLine > 0 {
			insertLine = p.Line + strings.Count(string(src[p.ValueStart:p.ValueEnd]), "\n")
			indent = indentOf(src, p.ValueStart)
		}
	}
	line := indent + name + " = " + value + "\n"
	if insertLine < 0 {
		out := append([]byte{}, src...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, []byte("\n["+section+"]\n"+line)...), nil
	}
	off := offsetAfterLine(src, insertLine)
	out := make([]byte, 0, len(src)+len(line)+1)
	out = append(out, src[:off]...)
	if off > 0 && src[off-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, line...)
	return append(out, src[off:]...), nil
}

// indentOf returns the leading white space of the line holding offset.
func indentOf(src []byte, off int) string {
	start := strings.LastIndexByte(string(src[:off]), '\n') + 1
	i := start
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[start:i])
}

// offsetAfterLine is the byte offset just past line n (1-based).
func offsetAfterLine(src []byte, n int) int {
	line := 1
	for i, b := range src {
		if b == '\n' {
			if line == n {
				return i + 1
			}
			line++
		}
	}
	return len(src)
}
