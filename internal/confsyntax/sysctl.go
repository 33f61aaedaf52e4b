package confsyntax

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// sysctl.d (sysctl.d(5), procps sysctl and systemd-sysctl): one
// "key = value" a line; a line starting with '#' or ';' is a comment; a key
// starting with '-' means "ignore failures" and a glob in a key applies to
// every match. So a key is dot-separated names of letters, digits, _ and
// - (an interface name may hold '-'), starting with a letter; a value is
// words of letters, digits and _ . : , + - separated by single spaces
// ("4096 87380 6291456"), never a newline or a comment start.

var (
	sysctlKey   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[A-Za-z0-9_-]+)+$`) })
	sysctlValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.:,+-]+( [A-Za-z0-9_.:,+-]+)*$`) })
)

// SysctlLine is the line of a sysctl.d file that sets key to value.
func SysctlLine(key, value string) (string, error) {
	if len(key) > 128 || !sysctlKey().MatchString(key) {
		return "", refuse("the sysctl key", "sysctl.d line", key, "dot-separated names of letters, digits, _ and -")
	}
	v := strings.Join(strings.Fields(value), " ") // /proc/sys separates with tabs
	if len(v) > 256 || !sysctlValue().MatchString(v) || strings.ContainsAny(value, "\n\r\v\f") {
		return "", refuse("the value of "+key, "sysctl.d line", value, "words of letters, digits and _ . : , + -")
	}
	return key + " = " + v, nil
}

// ParseSysctlLine reads a line SysctlLine makes.
func ParseSysctlLine(line string) (key, value string, err error) {
	k, v, ok := strings.Cut(line, " = ")
	if ok {
		if out, err := SysctlLine(k, v); err == nil && out == line {
			return k, v, nil
		}
	}
	return "", "", fmt.Errorf("sysctl.d line %s is not one nastune writes", Quote(line))
}
