// Package udevtok reads a udev rules file the way udev does, for tests:
// an oracle written from systemd's src/udev/udev-rules.c
// (udev_rules_parse_file, rule_add_line, parse_line, parse_operator,
// udev_rule_parse_value), independent of the writer in internal/confsyntax.
// Only tests import it.
//
// File: lines; leading white space skipped; a line whose first character
// is '#' is ignored (even inside a continuation); a line ending in '\' is
// joined with the next. A NUL ends a line's text (udev works on C
// strings). Rule: tokens separated by white space and ',': KEY, optional
// {ATTR}, operator (== != += -= = :=), optional e/i prefixes and a
// double-quoted value; in a plain value only \" is an escape, in e"…" C
// escapes apply. A token that does not parse makes udev drop the rest of
// the line (the tokens before it have been added already).
package udevtok

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Token is one KEY{ATTR}OP"VALUE".
type Token struct {
	Key, Attr, Op, Value string
	Escaped, CaseFold    bool
}

func (t Token) Name() string {
	if t.Attr != "" {
		return t.Key + "{" + t.Attr + "}"
	}
	return t.Key
}

// Rule is one logical line of a rules file.
type Rule struct {
	Line   int
	Tokens []Token
	Err    error // the token udev stopped at, if any
}

const whitespace = " \t\n\r"

// ParseFile splits a rules file into rules as udev does.
func ParseFile(b []byte) []Rule {
	var out []Rule
	var cont *strings.Builder
	start := 0
	for n, raw := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(raw, 0); i >= 0 {
			raw = raw[:i]
		}
		line := strings.TrimLeft(raw, whitespace)
		if strings.HasPrefix(line, "#") {
			continue
		}
		if cont != nil {
			cont.WriteString(line)
			line = cont.String()
		} else {
			start = n + 1
		}
		if strings.HasSuffix(line, `\`) {
			cont = &strings.Builder{}
			cont.WriteString(line[:len(line)-1])
			continue
		}
		cont = nil
		if line == "" {
			continue
		}
		toks, err := ParseLine(line)
		out = append(out, Rule{Line: start, Tokens: toks, Err: err})
	}
	return out
}

// ParseLine tokenises one rule line.
func ParseLine(line string) ([]Token, error) {
	var toks []Token
	p := line
	for {
		p = strings.TrimLeft(p, whitespace+",")
		if p == "" {
			return toks, nil
		}
		t, rest, err := parseToken(p)
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
		p = rest
	}
}

var errInvalid = errors.New("invalid key/value pair")

func parseToken(p string) (Token, string, error) {
	var t Token
	end := 0
	for ; ; end++ {
		if end >= len(p) {
			return t, "", errInvalid
		}
		c := p[end]
		if strings.IndexByte(whitespace+"={", c) >= 0 {
			break
		}
		if strings.IndexByte("+-!:", c) >= 0 && end+1 < len(p) && p[end+1] == '=' {
			break
		}
	}
	t.Key = p[:end]
	rest := p[end:]
	if rest[0] == '{' {
		close := strings.IndexByte(rest, '}')
		if close < 0 {
			return t, "", errInvalid
		}
		t.Attr = rest[1:close]
		rest = rest[close+1:]
	}
	rest = strings.TrimLeft(rest, whitespace)
	for _, op := range []string{"==", "!=", "+=", "-=", "=", ":="} {
		if strings.HasPrefix(rest, op) {
			t.Op = op
			break
		}
	}
	if t.Op == "" {
		return t, "", fmt.Errorf("%w: no operator after %q", errInvalid, t.Key)
	}
	rest = strings.TrimLeft(rest[len(t.Op):], whitespace)
	for k := 0; k < 2 && k < len(rest) && rest[0] != '"'; k++ {
		switch {
		case rest[0] == 'e' && !t.Escaped:
			t.Escaped = true
		case rest[0] == 'i' && !t.CaseFold:
			t.CaseFold = true
		default:
			return t, "", errInvalid
		}
		rest = rest[1:]
	}
	if rest == "" || rest[0] != '"' {
		return t, "", fmt.Errorf("%w: value of %q not quoted", errInvalid, t.Key)
	}
	var v strings.Builder
	i := 1
	for ; ; i++ {
		if i >= len(rest) {
			return t, "", fmt.Errorf("%w: unterminated value of %q", errInvalid, t.Key)
		}
		c := rest[i]
		if c == '"' {
			break
		}
		if c == '\\' && i+1 < len(rest) && (rest[i+1] == '"' || t.Escaped) {
			v.WriteByte(c)
			i++
			c = rest[i]
		}
		v.WriteByte(c)
	}
	t.Value = v.String()
	if t.Escaped {
		u, err := strconv.Unquote(`"` + t.Value + `"`)
		if err != nil {
			return t, "", fmt.Errorf("%w: bad escape in %q", errInvalid, t.Key)
		}
		t.Value = u
	} else {
		t.Value = strings.ReplaceAll(t.Value, `\"`, `"`)
	}
	return t, rest[i+1:], nil
}

// Intended checks a rule nastune wrote: only the match keys nastune uses
// (with ==), device identifiers as plain literals (no '|' alternative, no
// glob), and exactly one assignment, last: ATTR{attr}="value" with attr in
// attrs, or RUN+= of smartctl setting SCT ERC on %k.
func Intended(r Rule, attrs map[string]bool) error {
	if r.Err != nil {
		return fmt.Errorf("line %d: udev would stop at: %v", r.Line, r.Err)
	}
	if len(r.Tokens) < 2 {
		return fmt.Errorf("line %d: %d tokens", r.Line, len(r.Tokens))
	}
	for i, t := range r.Tokens {
		last := i == len(r.Tokens)-1
		if t.Escaped || t.CaseFold {
			return fmt.Errorf("line %d: %s has an e/i prefix", r.Line, t.Name())
		}
		if last {
			switch {
			case t.Key == "ATTR" && t.Op == "=" && attrs[t.Attr] && literal(t.Value) && !strings.ContainsAny(t.Value, "%$"):
			case t.Name() == "RUN" && t.Op == "+=" && ercProgram(t.Value):
			default:
				return fmt.Errorf("line %d: assignment %s%s%q is not one nastune intends", r.Line, t.Name(), t.Op, t.Value)
			}
			continue
		}
		if t.Op != "==" {
			return fmt.Errorf("line %d: token %d %s%s%q is not a match", r.Line, i+1, t.Name(), t.Op, t.Value)
		}
		switch t.Name() {
		case "ACTION":
			if t.Value != "add" && t.Value != "add|change" {
				return fmt.Errorf("line %d: ACTION==%q", r.Line, t.Value)
			}
		case "SUBSYSTEM", "ENV{DEVTYPE}":
			if !literal(t.Value) {
				return fmt.Errorf("line %d: %s==%q", r.Line, t.Name(), t.Value)
			}
		case "KERNEL":
			if t.Value != "sd*[!0-9]" && t.Value != "loop*" && !literal(t.Value) {
				return fmt.Errorf("line %d: KERNEL==%q", r.Line, t.Value)
			}
		case "ENV{ID_WWN}", "ENV{ID_SERIAL}", "ENV{ID_SERIAL_SHORT}", "ENV{DM_UUID}", "ATTR{address}", "ATTR{loop/backing_file}":
			if !literal(t.Value) {
				return fmt.Errorf("line %d: %s==%q is a pattern, not one device", r.Line, t.Name(), t.Value)
			}
		default:
			return fmt.Errorf("line %d: key %s is not one nastune intends", r.Line, t.Name())
		}
	}
	return nil
}

// literal: no fnmatch wildcard, no '|' alternative, no control byte, no
// backslash, non-empty.
func literal(v string) bool {
	if v == "" || strings.ContainsAny(v, `|*?[]\`) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return false
		}
	}
	return true
}

func ercProgram(v string) bool {
	rw, ok := strings.CutPrefix(v, "/usr/sbin/smartctl -q silent -l scterc,")
	if !ok {
		return false
	}
	rw, ok = strings.CutSuffix(rw, " /dev/%k")
	r, w, ok2 := strings.Cut(rw, ",")
	_, e1 := strconv.ParseUint(r, 10, 16)
	_, e2 := strconv.ParseUint(w, 10, 16)
	return ok && ok2 && e1 == nil && e2 == nil
}
