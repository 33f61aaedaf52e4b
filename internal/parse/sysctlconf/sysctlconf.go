// Package sysctlconf parses sysctl configuration files (sysctl.conf(5),
// sysctl.d(5)) and knows the order in which `sysctl --system` and
// systemd-sysctl apply them.
//
// Format: one "key = value" per line; "#" and ";" start comment lines; a
// key may use "/" instead of "." as separator; a leading "-" on the key
// means "ignore a failure to set it", and "-key" alone keeps globs from
// setting key. Values keep inner white space folded to single spaces
// (tcp_rmem = 4096 87380 6291456). boot.go computes which assignment wins
// at boot.
package sysctlconf

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/parse/confdirs"
	"github.com/nastune/nastune/internal/parse/perr"
)

// Setting is one assignment in a file.
type Setting struct {
	Key      string
	Value    string
	Line     int
	Optional bool // the key had a leading "-"
	// Exclude is a "-key" line without "=": systemd-sysctl keeps globs
	// from setting that key (sysctl.d(5)).
	Exclude bool
}

// Parse reads one file. Lines without "=" are returned as errors (the
// first one), while every valid line is still returned: sysctl itself
// skips bad lines and applies the rest.
func Parse(data []byte) ([]Setting, error) {
	var out []Setting
	var first error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok && strings.HasPrefix(k, "-") && len(strings.Fields(k)) == 1 && len(k) > 1 {
			out = append(out, Setting{Key: NormalizeKey(k[1:]), Line: n, Exclude: true})
			continue
		}
		if !ok || k == "" {
			if first == nil {
				first = &perr.Error{Line: n, Msg: fmt.Sprintf("%q is not 'key = value'", clip(line))}
			}
			continue
		}
		s := Setting{Line: n, Value: strings.Join(strings.Fields(v), " ")}
		if strings.HasPrefix(k, "-") {
			s.Optional = true
			k = strings.TrimSpace(k[1:])
		}
		if k == "" {
			if first == nil {
				first = &perr.Error{Line: n, Msg: fmt.Sprintf("%q has no key", clip(line))}
			}
			continue
		}
		s.Key = NormalizeKey(k)
		out = append(out, s)
	}
	if err := sc.Err(); err != nil && first == nil {
		first = &perr.Error{Line: n + 1, Msg: err.Error()}
	}
	return out, first
}

// NormalizeKey turns "net/ipv4/tcp_rmem" into "net.ipv4.tcp_rmem". As in
// sysctl(8), when the first separator is "/" the two characters swap
// roles, so an interface name with a dot (eth0.100) survives:
// "net/ipv4/conf/eth0.100/rp_filter" → "net.ipv4.conf.eth0/100.rp_filter".
func NormalizeKey(k string) string {
	i := strings.IndexAny(k, "./")
	if i < 0 || k[i] == '.' {
		return k
	}
	b := []byte(k)
	for j, c := range b {
		switch c {
		case '/':
			b[j] = '.'
		case '.':
			b[j] = '/'
		}
	}
	return string(b)
}

// Dirs are the sysctl.d folders in precedence order: a file name in an
// earlier folder hides the same name in later ones (sysctl.d(5)).
var Dirs = []string{"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d"}

// MainFile is applied after every sysctl.d file by `sysctl --system`.
const MainFile = "/etc/sysctl.conf"

// Order takes, per folder of Dirs, the *.conf names found there and returns
// the full paths in the order they are applied: by file name across all
// folders, the first folder winning for a repeated name, then MainFile when
// it exists.
func Order(found map[string][]string, mainExists bool) []string {
	out := confdirs.Order(Dirs, ".conf", found)
	if mainExists {
		out = append(out, MainFile)
	}
	return out
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
