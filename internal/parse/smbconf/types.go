package smbconf

import (
	"regexp"
	"sync"
)

// ParamType is a parameter's type in Samba's parameter table
// (lib/param/param_table.c, without the P_ prefix): BOOL, BOOLREV, ENUM,
// BYTES, INTEGER, OCTAL, CHAR, STRING, USTRING, LIST, CMDLIST.
type ParamType string

// TypeOf returns the type of a canonical key ("" when Samba has no such
// parameter in the table nastune was built with).
func TypeOf(key string) ParamType { return paramTypes[key] }

// How Samba's loader (lib/param/loadparm.c set_variable_helper) treats a
// value, by type, measured with testparm 4.17:
//   - BOOL, BOOLREV, ENUM, BYTES: an illegal value ("yes # c", "sometimes")
//     makes lp_load fail: testparm prints "value is not boolean!", "Ignoring
//     invalid value ..." or "value is not a valid size specifier!" and then
//     "Error loading services.", and smbd exits at start
//     (source3/smbd/server.c: if (!reload_services(...)) exit(1)).
//   - INTEGER, OCTAL: read with atoi/strtol, so the leading number counts and
//     trailing text ("10 # max") is dropped.
//   - STRING, USTRING, LIST, CMDLIST, CHAR: the whole text after '=' is the
//     value, an inline comment included ("path = /srv # data").

// Fatal reports whether an illegal value of this type stops Samba from
// loading the file.
func (t ParamType) Fatal() bool {
	return t == "BOOL" || t == "BOOLREV" || t == "ENUM" || t == "BYTES"
}

// Numeric reports whether Samba reads only the leading number.
func (t ParamType) Numeric() bool { return t == "INTEGER" || t == "OCTAL" }

// Text reports whether the whole text after '=' is the value.
func (t ParamType) Text() bool {
	return t == "STRING" || t == "USTRING" || t == "LIST" || t == "CMDLIST" || t == "CHAR"
}

var sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\d+\s*(?:[kmgtp]b?)?$`) })

func validTyped(key, v string) bool {
	switch paramTypes[key] {
	case "BOOL", "BOOLREV":
		_, ok := Bool(v)
		return ok
	case "ENUM":
		for _, e := range paramEnums[key] {
			if e == v {
				return true
			}
		}
		return false
	case "BYTES":
		return sizeRE().MatchString(v)
	}
	return true
}
