package smbconf

import (
	"maps"
	"strconv"
	"strings"
)

// Defaults are the Samba 4.11+ defaults (smb.conf(5)) of the parameters
// nastune reads, by canonical key. Live hosts use testparm's values
// instead, which know the installed version.
var Defaults = map[string]string{
	"usesendfile": "no", "readraw": "yes", "writeraw": "yes", "maxxmit": "16644",
	"aioreadsize": "1", "aiowritesize": "1", "socketoptions": "tcp_nodelay", "strictlocking": "auto",
	"widelinks": "no", "smb1unixextensions": "yes", "allowinsecurewidelinks": "no", "followsymlinks": "yes",
	"servermultichannelsupport": "yes", "serverminprotocol": "smb2_02", "serversigning": "default",
	"serversmbencrypt": "default", "servermaxprotocol": "smb3", "loglevel": "0", "readonly": "yes", "oplocks": "yes", "path": "",
	"guestok": "no", "browseable": "yes",
}

// booleans among Defaults, whose values are normalized to yes/no.
var booleans = map[string]bool{
	"usesendfile": true, "readraw": true, "writeraw": true, "widelinks": true, "smb1unixextensions": true,
	"allowinsecurewidelinks": true, "followsymlinks": true, "servermultichannelsupport": true,
	"readonly": true, "oplocks": true, "guestok": true, "browseable": true,
}

// enumAliases map enum values to the name testparm prints for them (the
// first alias of each value in Samba's enum tables; measured with testparm
// 4.17).
var enumAliases = map[string]map[string]string{
	"serversigning":     signingAliases,
	"serversmbencrypt":  signingAliases,
	"serverminprotocol": {"smb2_10": "smb2", "smb3_11": "smb3"},
	"servermaxprotocol": {"smb2_10": "smb2", "smb3_11": "smb3"},
	"strictlocking":     {"true": "yes", "1": "yes", "false": "no", "0": "no"},
}

var signingAliases = map[string]string{
	"false": "no", "0": "no", "off": "no", "disabled": "no",
	"yes": "if_required", "true": "if_required", "1": "if_required", "on": "if_required", "enabled": "if_required", "auto": "if_required",
	"mandatory": "required", "force": "required", "forced": "required", "enforced": "required",
}

// NormalizeValue writes a value the way nastune compares it: booleans as
// yes/no, enums by testparm's name, everything else lower case with single
// spaces. A path keeps its case and spaces: Linux paths are case-sensitive.
func NormalizeValue(key, v string) string {
	if key == "path" {
		return strings.TrimSpace(v)
	}
	if a, ok := enumAliases[key]; ok {
		l := strings.ToLower(strings.TrimSpace(v))
		if c, ok := a[l]; ok {
			return c
		}
		return l
	}
	if booleans[key] {
		if b, ok := Bool(v); ok {
			if b {
				return "yes"
			}
			return "no"
		}
	}
	return strings.ToLower(strings.Join(strings.Fields(v), " "))
}

// Effective are the values in force: the global section and, per share,
// its own settings over the global ones.
type Effective struct {
	Global map[string]string
	Shares map[string]map[string]string // share name (as written) → key → value
}

// Share returns the effective value of key in share (its own, else global).
func (e Effective) Share(share, key string) string {
	if v, ok := e.Shares[share][key]; ok {
		return v
	}
	return e.Global[key]
}

// Effective computes the values in force from the file and Defaults: the
// last setting wins; share parameters set in [global] are the default of
// every share.
func (c *Config) Effective() Effective { return c.values(Defaults) }

// values applies the file's parameters in order over defaults.
func (c *Config) values(defaults map[string]string) Effective {
	e := Effective{Global: maps.Clone(defaults), Shares: map[string]map[string]string{}}
	if e.Global == nil {
		e.Global = map[string]string{}
	}
	for _, s := range c.Shares() {
		e.Shares[s] = map[string]string{}
	}
	for _, p := range c.Params {
		if !Valid(p.Key, p.Value) {
			continue // Samba ignores the line; the previous value stays
		}
		v := NormalizeValue(p.Key, p.Value)
		if strings.EqualFold(p.Section, "global") {
			e.Global[p.Key] = v
			continue
		}
		for s := range e.Shares {
			if strings.EqualFold(s, p.Section) {
				e.Shares[s][p.Key] = v
			}
		}
	}
	return e
}

// FromTestparm reads `testparm -s -v` output, which lists every global
// parameter (defaults included) and each share's own settings.
// testparm prints its own debug level as "log level"; callers take that
// one from the file.
func FromTestparm(out []byte) (Effective, error) {
	c, err := Parse(out)
	if c == nil {
		return Effective{}, err
	}
	e := c.values(nil)
	return e, err
}

// versionDefaults are defaults that differ before the Samba version that
// changed them (release notes): server min protocol was LANMAN1 before
// 4.11, ntlm auth yes before 4.5, multichannel off before 4.15.
var versionDefaults = []struct {
	before     [2]int
	key, value string
}{
	{[2]int{4, 11}, "serverminprotocol", "lanman1"},
	{[2]int{4, 5}, "ntlmauth", "yes"},
	{[2]int{4, 15}, "servermultichannelsupport", "no"},
}

// DefaultsFor returns the defaults of Samba version v ("4.9.5-Debian");
// an unknown or unparsable version gets Defaults (4.11+ for the keys above
// is what a current server does).
func DefaultsFor(v string) map[string]string {
	d := maps.Clone(Defaults)
	major, minor, ok := sambaVersion(v)
	if !ok {
		return d
	}
	for _, x := range versionDefaults {
		if major < x.before[0] || (major == x.before[0] && minor < x.before[1]) {
			d[x.key] = x.value
		}
	}
	return d
}

func sambaVersion(v string) (major, minor int, ok bool) {
	f := strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(f[0])
	b, err2 := strconv.Atoi(f[1])
	return a, b, err1 == nil && err2 == nil && a > 0
}

// EffectiveFor is Effective with the defaults of Samba version v.
func (c *Config) EffectiveFor(v string) Effective { return c.values(DefaultsFor(v)) }

// VersionBefore reports whether Samba version v is known and older than
// major.minor.
func VersionBefore(v string, major, minor int) bool {
	a, b, ok := sambaVersion(v)
	return ok && (a < major || a == major && b < minor)
}
