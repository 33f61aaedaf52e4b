package smbconf

import "strings"

// Samba's parameter parser (lib/param/loadparm.c set_variable_helper)
// refuses a boolean or enum value it does not know: it logs "value is not
// boolean" or "value is not legal option" and ignores the line, so the
// parameter keeps its previous (usually default) value. smb.conf has no
// inline comments: in "server signing = mandatory  # strict" the value is
// the whole text after "=", which no enum table holds.

var signingValues = words("default no false 0 off disabled yes true 1 on enabled auto if_required desired required mandatory force forced enforced")

// enumValues are the names of Samba's enum tables (lib/param/param_table.c),
// lower case, for the enum parameters nastune reads.
var enumValues = map[string]map[string]bool{
	"serversigning":     signingValues,
	"serversmbencrypt":  signingValues,
	"serverminprotocol": protocolWords,
	"servermaxprotocol": protocolWords,
	"strictlocking":     words("no false 0 yes true 1 auto"),
}

var protocolWords = words("default smb3 smb3_11 smb3_10 smb3_02 smb3_00 smb2 smb2_10 smb2_02 nt1 lanman2 lanman1 core coreplus core+")

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Known reports whether nastune checks the values of key (a canonical key).
// These are the parameters whose illegal values stop Samba from loading
// the file: booleans, enums and byte sizes (TypeOf(key).Fatal()).
func Known(key string) bool {
	return booleans[key] || enumValues[key] != nil || TypeOf(key).Fatal()
}

// Valid reports whether Samba accepts v for the canonical key. Values of
// parameters nastune does not check are valid.
func Valid(key, v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	if TypeOf(key) != "" {
		return validTyped(key, v)
	}
	if booleans[key] {
		_, ok := Bool(v)
		return ok
	}
	if e := enumValues[key]; e != nil {
		return e[v]
	}
	return true
}

// CommentTail splits a value with what looks like an inline comment
// ("mandatory  # strict", "no ; was yes") into the part before it. ok is
// false when the value has no '#' or ';' after some text.
func CommentTail(v string) (before string, ok bool) {
	i := strings.IndexAny(v, "#;")
	if i <= 0 {
		return v, false
	}
	return strings.TrimSpace(v[:i]), true
}

// ProtocolRank orders protocol names (Samba's enum_protocol): CORE 0 …
// SMB3_11 9; -1 for an unknown name or "default".
func ProtocolRank(v string) int {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "core":
		return 0
	case "coreplus", "core+":
		return 1
	case "lanman1":
		return 2
	case "lanman2":
		return 3
	case "nt1":
		return 4
	case "smb2_02":
		return 5
	case "smb2", "smb2_10":
		return 6
	case "smb3_00":
		return 7
	case "smb3_02":
		return 8
	case "smb3_10":
		return 8
	case "smb3", "smb3_11":
		return 9
	}
	return -1
}
