package confsyntax

import (
	"regexp"
	"sync"

	"github.com/nastune/nastune/internal/parse/svcconf"
)

// /etc/default files are sourced by a root shell: a value is written
// unquoted or inside the quotes the file already uses, so it holds only
// letters, digits and _ . : , + - / (no space, quote, '$', '`', '\' or
// ';'), and the name is a shell variable name.

var shellName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,63}$`) })

// ShellVar says whether NAME=value can be written to an /etc/default file.
func ShellVar(name, value string) error {
	if !shellName().MatchString(name) {
		return refuse("the variable name", "shell assignment", name, "upper-case letters, digits and _")
	}
	if !only(value, 256, in("_.:,+-/")) {
		return refuse("the value of "+name, "shell assignment", value, "letters, digits and _ . : , + - /")
	}
	return nil
}

// EditShellVar sets NAME=value in src after ShellVar's check.
func EditShellVar(src []byte, name, value string) ([]byte, error) {
	if err := ShellVar(name, value); err != nil {
		return nil, err
	}
	return svcconf.SetShellVar(src, name, value), nil
}
