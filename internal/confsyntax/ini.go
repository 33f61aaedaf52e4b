package confsyntax

import (
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/parse/svcconf"
)

// smb.conf (Samba's params.c): "[section]" on a line of its own starts a
// section, "name = value" sets a parameter, lines starting with '#' or ';'
// are comments and a '\' at the end of a line continues it. nfs.conf
// (nfs-utils conffile.c) has the same shape. So nothing nastune writes
// holds a newline, a control byte, a '\', '[' or ']', or a '#' or ';'
// (not comments inside a value, but audit reads them as one, and they
// would be once the value moves to its own line); a smb.conf value also
// holds no '%' (Samba's substitutions).

func iniText(extra string) func(byte) bool {
	return func(c byte) bool {
		if c < 0x20 || c > 0x7e {
			return false
		}
		for i := 0; i < len(extra); i++ {
			if extra[i] == c {
				return false
			}
		}
		return true
	}
}

var (
	iniSection = iniText(`[]\#;=`)
	iniName    = in(" _.:*-")
	smbValue   = iniText(`[]\#;%`)
	nfsValue   = in(" _.:,+-/")
)

func trimmed(s string) bool { return s != "" && s[0] != ' ' && s[len(s)-1] != ' ' }

// SmbParam says whether [section] name = value can be written to smb.conf.
func SmbParam(section, name, value string) error {
	if !only(section, 64, iniSection) || !trimmed(section) {
		return refuse("the share name", "smb.conf line", section, "printable text without [ ] \\ # ; =")
	}
	if !only(name, 64, iniName) || !trimmed(name) {
		return refuse("the parameter name", "smb.conf line", name, "letters, digits, spaces and _ . : * -")
	}
	if !only(value, 1024, smbValue) || !trimmed(value) {
		return refuse("the value of "+name, "smb.conf line", value, "printable text without [ ] \\ # ; %")
	}
	return nil
}

// EditSmbConf sets [section] name = value in smb.conf's text src (the
// minimal edit of smbconf.Set) after SmbParam's check.
func EditSmbConf(src []byte, section, name, value string) ([]byte, error) {
	if err := SmbParam(section, name, value); err != nil {
		return nil, err
	}
	return smbconf.Set(src, section, name, value)
}

// NFSConfParam says whether [section] key = value can be written to
// nfs.conf.
func NFSConfParam(section, key, value string) error {
	if !only(section, 64, in("_-")) {
		return refuse("the section", "nfs.conf line", section, "letters, digits, _ and -")
	}
	if !only(key, 64, in("_.-")) {
		return refuse("the key", "nfs.conf line", key, "letters, digits and _ . -")
	}
	if !only(value, 256, nfsValue) || !trimmed(value) {
		return refuse("the value of "+key, "nfs.conf line", value, "letters, digits, spaces and _ . : , + - /")
	}
	return nil
}

// EditNFSConf sets [section] key = value in nfs.conf's text src after
// NFSConfParam's check.
func EditNFSConf(src []byte, section, key, value string) ([]byte, error) {
	if err := NFSConfParam(section, key, value); err != nil {
		return nil, err
	}
	return svcconf.SetINI(src, section, key, value), nil
}
