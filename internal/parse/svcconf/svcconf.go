// Package svcconf parses the configuration formats of the NFS server and
// OpenVPN: /etc/nfs.conf (INI), /etc/default/* (shell assignments),
// /etc/exports and OpenVPN configs. Pure functions; errors wrap perr.ErrSyntax
// and name the line; every good line is returned even when one is bad.
package svcconf

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
)

func scan(b []byte, fn func(n int, line string)) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, min(len(b)+1, 64<<10)), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Text())
	}
}

// INIValue is one key of an INI file with where it is.
type INIValue struct {
	Value string
	Line  int
}

// INI reads nfs.conf(5): "[section]" and "key = value" (keys and
// sections lower-cased), "#" and ";" comments. The last setting wins.
func INI(b []byte) (map[string]map[string]INIValue, error) {
	out := map[string]map[string]INIValue{}
	var first error
	section := ""
	scan(b, func(n int, l string) {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
		case t[0] == '[':
			end := strings.IndexByte(t, ']')
			if end < 0 {
				if first == nil {
					first = perr.Line(n, "section %q has no ]", t)
				}
				return
			}
			section = strings.ToLower(strings.TrimSpace(t[1:end]))
		default:
			k, v, ok := strings.Cut(t, "=")
			if !ok {
				if first == nil {
					first = perr.Line(n, "%q is not key = value", t)
				}
				return
			}
			if out[section] == nil {
				out[section] = map[string]INIValue{}
			}
			out[section][strings.ToLower(strings.TrimSpace(k))] = INIValue{strings.TrimSpace(v), n}
		}
	})
	return out, first
}

// ShellVars reads KEY=value lines of /etc/default files (quotes removed).
func ShellVars(b []byte) map[string]INIValue {
	out := map[string]INIValue{}
	scan(b, func(n int, l string) {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "export "))
		if t == "" || t[0] == '#' {
			return
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok || strings.ContainsAny(k, " \t") {
			return
		}
		out[k] = INIValue{strings.Trim(strings.TrimSpace(v), `"'`), n}
	})
	return out
}

// Exports reads exports(5): "/path client(opts) client2(opts)", with "\"
// continuations and "#" comments. A bare client has no options.
func Exports(b []byte) ([]facts.Export, error) {
	var out []facts.Export
	var first error
	var pending string
	pendingLine := 0
	scan(b, func(n int, l string) {
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		if pending == "" {
			pendingLine = n
		}
		if strings.HasSuffix(strings.TrimSpace(l), `\`) {
			pending += strings.TrimSuffix(strings.TrimSpace(l), `\`) + " "
			return
		}
		l, pending = pending+l, ""
		f := strings.Fields(l)
		if len(f) == 0 {
			return
		}
		path := strings.Trim(f[0], `"`)
		if !strings.HasPrefix(path, "/") {
			if first == nil {
				first = perr.Line(pendingLine, "export path %q is not absolute", f[0])
			}
			return
		}
		if len(f) == 1 {
			out = append(out, facts.Export{Path: path, Client: "*", Line: pendingLine})
			return
		}
		for _, c := range f[1:] {
			client, opts, _ := strings.Cut(c, "(")
			e := facts.Export{Path: path, Client: client, Line: pendingLine}
			if opts != "" {
				e.Options = strings.Split(strings.TrimSuffix(opts, ")"), ",")
			}
			if e.Client == "" {
				e.Client = "*"
			}
			out = append(out, e)
		}
	})
	return out, first
}

// OpenVPNConfig reads an OpenVPN config: one directive per line with its
// arguments, "#" and ";" comments, inline <tag>…</tag> blocks (keys,
// certificates) skipped. The last occurrence of a directive wins.
func OpenVPNConfig(b []byte) (opts map[string]string, lines map[string]int, err error) {
	opts, lines = map[string]string{}, map[string]int{}
	inBlock := ""
	scan(b, func(n int, l string) {
		t := strings.TrimSpace(l)
		if inBlock != "" {
			if t == "</"+inBlock+">" {
				inBlock = ""
			}
			return
		}
		if t == "" || t[0] == '#' || t[0] == ';' {
			return
		}
		if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && !strings.HasPrefix(t, "</") {
			inBlock = strings.Trim(t, "<>")
			return
		}
		f := strings.Fields(t)
		d := strings.TrimPrefix(strings.ToLower(f[0]), "--")
		opts[d] = strings.Join(f[1:], " ")
		lines[d] = n
	})
	if inBlock != "" {
		err = perr.Line(0, "inline <%s> block never closed", inBlock)
	}
	return opts, lines, err
}
