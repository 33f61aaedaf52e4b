// Package udevrules reads what nastune needs from udev rules files
// (udev(7)): the order in which udev reads them and the ATTR{} values they
// assign, so plan can tell whether a rule in 90-nastune.rules is the last
// one to write an attribute at boot.
//
// Order (udev(7)): the files of /etc/udev/rules.d, /run/udev/rules.d,
// /usr/local/lib/udev/rules.d and /usr/lib/udev/rules.d (and /lib/udev/rules.d
// on systems without a merged /usr) are read together sorted by file name;
// a name in an earlier folder masks the same name in later ones. Rules run
// in that order and each ATTR{} assignment is written when its rule
// matches, so of two rules that match one device the later file's value
// stays.
package udevrules

import (
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/parse/confdirs"
)

// Dirs are the rules folders in precedence order.
var Dirs = []string{"/etc/udev/rules.d", "/run/udev/rules.d", "/usr/local/lib/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"}

// Order takes, per folder of Dirs, the names found there and returns the
// *.rules paths in the order udev reads them.
func Order(found map[string][]string) []string {
	return confdirs.Order(Dirs, ".rules", found)
}

// Assign is an ATTR{Attr}="Value" assignment on line Line.
type Assign struct {
	Line        int
	Attr, Value string
}

// "ATTR{x}=" or ":=". A match ("==", "!=") cannot match: after "}" and
// one "=" the regexp wants the opening quote.
var attrAssign = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`ATTR\{([^}]+)\}\s*:?=\s*"([^"]*)"`) })

// Assignments returns the ATTR{} assignments of a rules file, skipping
// comments. Lines continued with a trailing backslash count as the line
// they start on.
func Assignments(data []byte) []Assign {
	var out []Assign
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		l := strings.TrimRight(lines[i], "\r")
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + strings.TrimRight(lines[i], "\r")
		}
		if t := strings.TrimSpace(l); t == "" || t[0] == '#' {
			continue
		}
		for _, m := range attrAssign().FindAllStringSubmatch(l, -1) {
			out = append(out, Assign{Line: start, Attr: m[1], Value: m[2]})
		}
	}
	return out
}

// LastAssign returns the last ATTR{} assignment of one rule line (what
// nastune writes into 90-nastune.rules).
func LastAssign(rule string) (attr, value string, ok bool) {
	as := Assignments([]byte(rule))
	if len(as) == 0 {
		return "", "", false
	}
	a := as[len(as)-1]
	return a.Attr, a.Value, true
}
