package confsyntax

import (
	"fmt"
	"regexp"
	"sync"
)

// modprobe.d (modprobe.d(5)): "options MODULE OPT=VALUE ..." splits on
// white space, so a space in a value adds an option; a '\' at the end of a
// line continues it and '#' starts a comment line. Module and option names
// are C identifiers; a value is letters, digits and _ . : , + -.

var (
	modName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_]{1,56}$`) })
	modValue = in("_.:,+-")
)

// ModprobeOption is the "options" line that sets a module parameter.
func ModprobeOption(module, param, value string) (string, error) {
	if !modName().MatchString(module) {
		return "", refuse("the module name", "modprobe.d line", module, "letters, digits and _")
	}
	if !modName().MatchString(param) {
		return "", refuse("the module option", "modprobe.d line", param, "letters, digits and _")
	}
	if !only(value, 128, modValue) {
		return "", refuse("the value of "+module+"."+param, "modprobe.d line", value, "letters, digits and _ . : , + -")
	}
	return "options " + module + " " + param + "=" + value, nil
}

var modLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^options ([^ ]+) ([^ =]+)=([^ ]*)$`) })

// ModprobeKey is "options MODULE OPT", what identifies a line
// ModprobeOption makes (a newer value replaces it).
func ModprobeKey(line string) (string, error) {
	m := modLine().FindStringSubmatch(line)
	if m != nil {
		if out, err := ModprobeOption(m[1], m[2], m[3]); err == nil && out == line {
			return "options " + m[1] + " " + m[2], nil
		}
	}
	return "", fmt.Errorf("modprobe.d line %s is not one nastune writes", Quote(line))
}
