// Package smbconf reads Samba's smb.conf without losing a byte of it.
//
// Parse keeps the source as it was and records where every section and
// parameter sits (line, byte offsets of the value), so Bytes() returns the
// input unchanged and an edit (internal/apply) can replace one value and
// keep every comment, blank line, continuation and odd spacing around it.
//
// The syntax follows smb.conf(5): "[section]" headers; "name = value"
// parameters whose names are case-insensitive and ignore spaces (so "read
// only", "ReadOnly" and "readonly" are one parameter); ";" and "#" start
// comment lines; a trailing "\" continues a line; "include = FILE" pulls
// in another file (recorded here, read by the probe). Synonyms and
// inverted synonyms (writeable = not read only) are mapped by Canonical.
package smbconf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/parse/perr"
)

// Param is one "name = value" line (or lines, with continuations).
type Param struct {
	Section string // "global" or the share name, as written
	// FileSection is set by Expand when Section differs from where the
	// file alone puts the line: a header in an included file holds for the
	// including file's lines after the include, up to its next header
	// (Samba keeps one current section; checked with testparm). Set, which
	// sees one file, goes by FileSection then.
	FileSection string
	Name        string // as written
	Key         string // canonical: lower case, no spaces, synonyms resolved
	Value       string // continuation lines joined, surrounding space trimmed
	// Inverted is true when the written name is an inverted synonym of Key
	// (writeable for "read only"): Value is then already inverted.
	Inverted bool
	Line     int // 1-based line of the name
	// ValueStart and ValueEnd are byte offsets of the written value in the
	// source (for a continued value, the whole span).
	ValueStart, ValueEnd int
	// Text is the line as written, trimmed (continuations joined): what
	// evidence quotes.
	Text string
}

// Section is a "[name]" header.
type Section struct {
	Name string
	Line int
}

// Config is a parsed smb.conf.
type Config struct {
	src      []byte
	Sections []Section
	Params   []Param
	// Includes lists "include" values in order.
	Includes []string
}

// Bytes returns the source, byte for byte.
func (c *Config) Bytes() []byte { return c.src }

// Error names the line of a problem. Fatal errors are those for which
// Samba refuses the whole file ("Error loading services"): smbd does not
// start. Others (a line without "=") Samba skips.
type Error struct {
	Line  int
	Msg   string
	Fatal bool
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Unwrap makes errors.Is(err, perr.ErrSyntax) true.
func (e *Error) Unwrap() error { return perr.ErrSyntax }

// Parse reads smb.conf. Like Samba, it skips lines it cannot read and goes
// on; the first such line is returned as the error together with the
// config of every good line.
func Parse(src []byte) (*Config, error) {
	c := &Config{src: src}
	var first *Error
	bad := func(fatal bool, line int, format string, a ...any) {
		// Keep the first fatal error if there is one, else the first error.
		if first == nil || (fatal && !first.Fatal) {
			first = &Error{Line: line, Msg: fmt.Sprintf(format, a...), Fatal: fatal}
		}
	}
	section := "global" // parameters before any header belong to [global]
	off, line := 0, 0
	for off < len(src) {
		line++
		startLine := line
		end := lineEnd(src, off)
		logical := []byte(strings.TrimRight(string(src[off:end]), "\r\n"))
		// A "\" at the end continues the line.
		valueEnd := off + len(logical)
		for bytes.HasSuffix(bytes.TrimRight(logical, " \t"), []byte(`\`)) && end < len(src) {
			next := lineEnd(src, end)
			cont := strings.TrimRight(string(src[end:next]), "\r\n")
			t := bytes.TrimRight(logical, " \t")
			logical = append(append(append([]byte{}, t[:len(t)-1]...), ' '), cont...)
			valueEnd = end + len(cont)
			end = next
			line++
		}
		lineStart := off
		off = end
		t := strings.TrimSpace(string(logical))
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
			continue
		case t[0] == '[':
			closeAt := strings.IndexByte(t, ']')
			if closeAt < 0 {
				bad(true, startLine, "section header %q has no closing ]", clip(t))
				continue
			}
			section = strings.TrimSpace(t[1:closeAt])
			if section == "" {
				bad(true, startLine, "empty section name")
				continue
			}
			c.Sections = append(c.Sections, Section{Name: section, Line: startLine})
		default:
			eq := strings.IndexByte(t, '=')
			if eq < 0 {
				bad(false, startLine, "%q is not 'name = value'", clip(t))
				continue
			}
			name := strings.TrimSpace(t[:eq])
			if name == "" {
				bad(true, startLine, "parameter without a name")
				continue
			}
			value := strings.TrimSpace(t[eq+1:])
			// Byte span of the written value within the source.
			rawEq := bytes.IndexByte(src[lineStart:valueEnd], '=')
			vs := lineStart + rawEq + 1
			for vs < valueEnd && (src[vs] == ' ' || src[vs] == '\t') {
				vs++
			}
			ve := valueEnd
			for ve > vs && (src[ve-1] == ' ' || src[ve-1] == '\t' || src[ve-1] == '\r') {
				ve--
			}
			key, inverted := Canonical(name)
			if inverted {
				value = invertBool(value)
			}
			c.Params = append(c.Params, Param{Section: section, Name: name, Key: key, Value: value,
				Inverted: inverted, Line: startLine, ValueStart: vs, ValueEnd: ve, Text: t})
			if key == "include" {
				c.Includes = append(c.Includes, value)
			}
		}
	}
	if first == nil {
		return c, nil
	}
	return c, first
}

func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

// normalize lowers a parameter name and drops its spaces.
func normalize(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), ""))
}

// synonyms map a normalized name to the canonical normalized name
// (smb.conf(5) lists them with "Synonym:" and "inverted synonym").
var synonyms = map[string]string{
	"browsable": "browseable", "public": "guestok", "guestonly": "guestonly", "onlyguest": "guestonly",
	"createmode": "createmask", "directorymode": "directorymask", "directory": "path",
	"allowhosts": "hostsallow", "denyhosts": "hostsdeny", "execprefix": "preexec", "exec": "preexec",
	"user": "username", "users": "username", "timeserver": "timeserver", "printer": "printername",
	"minprotocol": "serverminprotocol", "maxprotocol": "servermaxprotocol", "protocol": "servermaxprotocol",
	"smbencrypt": "serversmbencrypt", "unixextensions": "smb1unixextensions",
}

var inverted = map[string]string{"writeable": "readonly", "writable": "readonly", "writeok": "readonly"}

// Canonical returns the canonical key of a parameter name and whether the
// name is an inverted synonym (its boolean value means the opposite).
func Canonical(name string) (key string, inv bool) {
	n := normalize(name)
	if k, ok := inverted[n]; ok {
		return k, true
	}
	if k, ok := synonyms[n]; ok {
		return k, false
	}
	return n, false
}

// Bool reads a Samba boolean (yes/no, true/false, 1/0, on/off).
func Bool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "true", "1", "on":
		return true, true
	case "no", "false", "0", "off":
		return false, true
	}
	return false, false
}

func invertBool(v string) string {
	if b, ok := Bool(v); ok {
		if b {
			return "no"
		}
		return "yes"
	}
	return v
}

// Global returns the last [global] setting of a canonical key.
func (c *Config) Global(key string) (Param, bool) {
	var p Param
	found := false
	for _, x := range c.Params {
		if strings.EqualFold(x.Section, "global") && x.Key == key {
			p, found = x, true
		}
	}
	return p, found
}

// Shares lists share section names (not global), in order, once each.
func (c *Config) Shares() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range c.Sections {
		n := strings.ToLower(s.Name)
		if n == "global" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, s.Name)
	}
	return out
}

// ShareParam returns the last setting of key in a share section.
func (c *Config) ShareParam(share, key string) (Param, bool) {
	var p Param
	found := false
	for _, x := range c.Params {
		if strings.EqualFold(x.Section, share) && x.Key == key {
			p, found = x, true
		}
	}
	return p, found
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
