package sysctlconf

import (
	"path"
	"strings"
)

// Manager is the program that applies the sysctl files.
type Manager string

// The two programs that apply sysctl files. They read the same folders in
// the same order (sysctl.d(5); procps-ng sysctl.c PreloadSystem) with one
// difference: systemd-sysctl, which runs at boot on systemd machines, never
// reads /etc/sysctl.conf itself (Debian links it in as
// /etc/sysctl.d/99-sysctl.conf), while `sysctl --system` reads it after all
// sysctl.d files, so through Debian's link it is read twice and its second
// reading comes last.
const (
	Systemd Manager = "systemd-sysctl"
	Procps  Manager = "sysctl --system"
)

// Assignment is one line of a sysctl file in the order the probe applied
// it (Order: sysctl.d by file name, then MainFile; a file reached twice
// through a link is listed once, at its first place).
type Assignment struct {
	Key, Value string
	File       string // the path as listed in its folder
	Link       string // the real file when File is a symlink ("" otherwise)
	Line       int
	Exclude    bool // "-key" without "=": exclude the key from globs (systemd)
}

// IsGlob reports whether a key is a glob pattern (sysctl.d(5)).
func IsGlob(key string) bool { return strings.ContainsAny(key, "*?[") }

// Matches reports whether a configured key (a glob or a plain key) sets
// key. Globs match whole components: "net.ipv4.conf.*.rp_filter" matches
// "net.ipv4.conf.eth0.rp_filter".
func Matches(pattern, key string) bool {
	if !IsGlob(pattern) {
		return pattern == key
	}
	ok, err := path.Match(Slashed(pattern), Slashed(key))
	return err == nil && ok
}

// Slashed turns a normalized dotted key into its path under /proc/sys
// ("net.ipv4.tcp_rmem" → "net/ipv4/tcp_rmem"), undoing the "/" ↔ "." swap
// sysctl(8) makes for interface names with dots (sysctl.d(5)).
func Slashed(k string) string {
	b := []byte(k)
	for i, c := range b {
		switch c {
		case '.':
			b[i] = '/'
		case '/':
			b[i] = '.'
		}
	}
	return string(b)
}

// Sequence returns the assignments in the order m applies them.
func Sequence(all []Assignment, m Manager) []Assignment {
	var out, last []Assignment
	for _, a := range all {
		switch {
		case m == Systemd && a.File == MainFile:
			continue // systemd-sysctl does not read it unless linked in
		case m == Procps && a.Link == MainFile:
			last = append(last, a) // read again, last, as /etc/sysctl.conf
			continue
		}
		out = append(out, a)
	}
	return append(out, last...)
}

// Effective returns the assignment that sets key at boot under m, and the
// earlier assignments of the key it overrides (in order). An explicit key
// wins over any glob whatever the order (sysctl.d(5): "Keys for which an
// explicit pattern exists will be excluded from any glob matching"); among
// explicit keys, or among globs, the last one wins. A "-key" exclusion
// keeps globs away from key. The bool is false when nothing sets key.
func Effective(all []Assignment, key string, m Manager) (Assignment, []Assignment, bool) {
	var explicit, globs []Assignment
	excluded := false
	for _, a := range Sequence(all, m) {
		switch {
		case a.Exclude && a.Key == key:
			excluded = true
		case a.Exclude:
		case a.Key == key:
			explicit = append(explicit, a)
		case IsGlob(a.Key) && Matches(a.Key, key):
			globs = append(globs, a)
		}
	}
	if !excluded || len(explicit) > 0 {
		if len(explicit) > 0 {
			return explicit[len(explicit)-1], append(globs, explicit[:len(explicit)-1]...), true
		}
		if len(globs) > 0 {
			return globs[len(globs)-1], globs[:len(globs)-1], true
		}
	}
	return Assignment{}, nil, false
}

// DisableKey comments out every line of a sysctl file that sets key
// (explicitly, "-" prefix included), each after a note line, and returns
// the new content and how many lines it disabled. Comments, other keys,
// line endings and the rest of the file are kept byte for byte, so the
// edit is minimal and `nastune undo` restores the file exactly.
func DisableKey(data []byte, key, note string) ([]byte, int) {
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	n := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && t[0] != '#' && t[0] != ';' {
			k, _, ok := strings.Cut(t, "=")
			k = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "-"))
			if ok && NormalizeKey(k) == key {
				eol := "\n"
				if strings.HasSuffix(l, "\r\n") {
					eol = "\r\n" // keep a CRLF file CRLF
				}
				b.WriteString("# " + note + eol + "# " + l)
				if !strings.HasSuffix(l, "\n") {
					b.WriteString("\n")
				}
				n++
				continue
			}
		}
		b.WriteString(l)
	}
	return []byte(b.String()), n
}
