// Package confsyntax holds nastune's one writer per config syntax: udev
// rules, sysctl.d, modprobe.d, smb.conf, nfs.conf and the shell variables
// of /etc/default files. Each writer accepts only values inside that
// syntax's safe set and returns an error (a *RefusedError saying why,
// without echoing the value raw) for anything else; the caller turns the
// step into a manual instruction, never a written line.
//
// The same functions serve every caller: plan builds its persisted lines
// and edits with them, tune builds its persisted udev rule with them, and
// apply checks every line and edit with them again just before it writes
// (a line the writer would not make is refused and nothing is written).
//
// Values a device, a user or a peer chose (a disk's serial or WWN, a loop
// device's backing file, a share name) pass only through these allowlists
// (see ../../shared/THREATS.md).
//
// The package is pure: no I/O.
package confsyntax

import (
	"fmt"
	"strconv"
	"strings"
)

// RefusedError says a value is outside a syntax's safe set.
type RefusedError struct {
	What   string // "the disk's serial", "sysctl key"
	Syntax string // "udev rule", "sysctl.d"
	Value  string // the refused value (shown only through Quote)
	Why    string // what the safe set is
	// TooLong is set when the value is refused for its length alone.
	TooLong int // the limit in bytes
}

func (e *RefusedError) Error() string {
	if e.TooLong > 0 {
		return fmt.Sprintf("%s %s is %d bytes, longer than a %s carries here (at most %d)", e.What, Quote(e.Value), len(e.Value), e.Syntax, e.TooLong)
	}
	return fmt.Sprintf("%s %s holds characters a %s cannot carry safely (%s)", e.What, Quote(e.Value), e.Syntax, e.Why)
}

func refuse(what, syntax, value, why string) error {
	return &RefusedError{What: what, Syntax: syntax, Value: value, Why: why}
}

// Quote shows a value that may be hostile: Go-quoted with every byte
// outside printable ASCII escaped (no terminal escape, no newline, no
// quote survives) and cut to 64 bytes.
func Quote(v string) string {
	if len(v) > 64 {
		return strconv.QuoteToASCII(v[:64]) + "…"
	}
	return strconv.QuoteToASCII(v)
}

// Show is v as one inert shell word, for manual instructions, which are
// often commands an admin pastes into a root shell: v as it is when it
// holds only letters, digits and _ . , : + = @ % / - (and does not start
// with '-'), else single-quoted (a ' inside closes, escapes and reopens
// the quotes), so no $, `, ;, glob or space in a value a device or a
// captured tree chose can expand or split. Bytes outside printable ASCII
// are shown escaped inside the quotes (as Quote does), so no control byte
// survives either.
func Show(v string) string {
	if only(v, 64, in("_.,:+=@%/-")) && v[0] != '-' {
		return v
	}
	if !only(v, 1<<20, func(c byte) bool { return c >= 0x20 && c < 0x7f }) && v != "" {
		q := Quote(v)
		if strings.HasSuffix(q, "…") {
			v = q[1:len(q)-len(`"…`)] + "…"
		} else {
			v = q[1 : len(q)-1]
		}
	} else if len(v) > 64 {
		v = v[:64] + "…"
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// only reports whether every byte of s is in the set allowed, and
// 0 < len(s) <= max.
func only(s string, max int, allowed func(c byte) bool) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// in returns a byte test for alphanumerics plus the bytes of extra.
func in(extra string) func(byte) bool {
	return func(c byte) bool {
		if alnum(c) {
			return true
		}
		for i := 0; i < len(extra); i++ {
			if extra[i] == c {
				return true
			}
		}
		return false
	}
}
