// Package modprobed reads what nastune needs from modprobe.d files
// (modprobe.d(5), kmod): the order in which modprobe reads them and the
// module options they set, so plan can tell whether an option in
// /etc/modprobe.d/90-nastune.conf is the one a module gets when it loads;
// and takes a parameter out of a file's options lines (DisableOption) for
// apply, when an admin file would override nastune's.
//
// Order (kmod's libkmod-config.c, checked with `modprobe -C DIR
// --showconfig` in modprobed_test.go): the *.conf files of
// /etc/modprobe.d, /run/modprobe.d, /usr/local/lib/modprobe.d and
// /usr/lib/modprobe.d (and /lib/modprobe.d) are read together sorted by
// file name; a name in an earlier folder masks the same name in later
// ones. kmod hands a module the text of all its `options` lines joined in
// that order (libkmod-module.c, kmod_module_get_options: one string,
// space separated, for init_module), and then the `module.param=` words
// of the kernel command line (kmod_config_parse_kcmdline runs after the
// files). The kernel's
// parse_args sets a parameter once per occurrence, so the last one wins:
// a later file, or the command line, overrides an earlier file.
package modprobed

import (
	"strings"

	"github.com/nastune/nastune/internal/parse/confdirs"
)

// Dirs are the modprobe.d folders in precedence order.
var Dirs = []string{"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d"}

// Order takes, per folder of Dirs, the names found there and returns the
// *.conf paths in the order modprobe reads them.
func Order(found map[string][]string) []string {
	return confdirs.Order(Dirs, ".conf", found)
}

// Option is one param=value of an `options` line (Line is where the line
// starts), or of the kernel command line (Line 0).
type Option struct {
	Line          int
	Module, Param string
	Value         string
}

// Name folds a module or parameter name the way kmod and the kernel
// compare them: "-" and "_" are the same.
func Name(s string) string { return strings.ReplaceAll(s, "-", "_") }

// Options returns the param=value words of a file's `options` lines, in
// order. Comments (#) and blank lines are skipped; a line ending in a
// backslash continues on the next one (kmod's getline_wrapped).
func Options(data []byte) []Option {
	var out []Option
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		l := lines[i]
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = l[:len(l)-1] + " " + lines[i]
		}
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "options" {
			continue
		}
		for _, w := range words(strings.Join(f[2:], " ")) {
			p, v, _ := strings.Cut(w, "=")
			out = append(out, Option{Line: start, Module: Name(f[1]), Param: Name(p), Value: v})
		}
	}
	return out
}

// Cmdline returns the module.param=value words of a kernel command line
// (words after a lone "--" go to init, not to the kernel).
func Cmdline(s string) []Option {
	var out []Option
	for _, w := range words(strings.TrimSpace(s)) {
		if w == "--" {
			break
		}
		k, v, _ := strings.Cut(w, "=")
		m, p, ok := strings.Cut(k, ".")
		if !ok || m == "" || p == "" {
			continue
		}
		out = append(out, Option{Module: Name(m), Param: Name(p), Value: v})
	}
	return out
}

// words splits at spaces outside double quotes and drops the quotes, as
// the kernel's next_arg reads a parameter string.
func words(s string) []string {
	var out []string
	var b strings.Builder
	inQ, has := false, false
	for _, c := range s {
		switch {
		case c == '"':
			inQ, has = !inQ, true
		case (c == ' ' || c == '\t') && !inQ:
			if has {
				out = append(out, b.String())
				b.Reset()
				has = false
			}
		default:
			b.WriteRune(c)
			has = true
		}
	}
	if has {
		out = append(out, b.String())
	}
	return out
}

// DisableOption takes module's param out of a file's `options` lines (a
// later file that would override nastune's value when the module loads):
// each such line, with its continuation lines, is commented out after a
// "# note" line, and when the line sets other parameters too they stay on
// a new line right after it ("options MODULE" and the other words as they
// were written). Every other byte is kept, so undo can put the file back
// as it was. n counts the lines taken out.
func DisableOption(data []byte, module, param, note string) (out []byte, n int) {
	module, param = Name(module), Name(param)
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		first := i
		l := strings.TrimRight(lines[i], "\r\n")
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = l[:len(l)-1] + " " + strings.TrimRight(lines[i], "\r\n")
		}
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "options" || Name(f[1]) != module {
			b.WriteString(strings.Join(lines[first:i+1], ""))
			continue
		}
		var keep []string
		hit := false
		for _, w := range rawWords(strings.Join(f[2:], " ")) {
			p, _, _ := strings.Cut(strings.ReplaceAll(w, `"`, ""), "=")
			if Name(p) == param {
				hit = true
				continue
			}
			keep = append(keep, w)
		}
		if !hit {
			b.WriteString(strings.Join(lines[first:i+1], ""))
			continue
		}
		eol := "\n"
		if strings.HasSuffix(lines[first], "\r\n") {
			eol = "\r\n" // keep a CRLF file CRLF
		}
		b.WriteString("# " + note + eol)
		for _, pl := range lines[first : i+1] {
			b.WriteString("# " + pl)
			if !strings.HasSuffix(pl, "\n") {
				b.WriteString(eol)
			}
		}
		if len(keep) > 0 {
			b.WriteString("options " + f[1] + " " + strings.Join(keep, " ") + eol)
		}
		n++
	}
	return []byte(b.String()), n
}

// rawWords splits like words but keeps the double quotes, so a word can
// be written back as it was.
func rawWords(s string) []string {
	var out []string
	var b strings.Builder
	inQ := false
	for _, c := range s {
		switch {
		case c == '"':
			inQ = !inQ
			b.WriteRune(c)
		case (c == ' ' || c == '\t') && !inQ:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(c)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
