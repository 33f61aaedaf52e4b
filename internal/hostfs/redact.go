package hostfs

// Redaction: the one place where secrets are kept out of nastune's reads.
//
// Every read of a Root (ReadFile, ReadHead, Command) passes through here
// before a probe or the snapshot recorder sees the bytes, so evidence,
// facts.json, snapshots and fleet reports can only hold what survived.
// Two layers:
//
//   - NeverRead: files that are secrets as a whole (/etc/shadow, Samba's
//     secrets.tdb and passdb, SSH and TLS private keys, /proc/PID/environ)
//     or that block a reader forever (/proc/kmsg, tracing pipes) are not
//     opened at all. The check uses the real path, so a link to
//     /etc/shadow is refused too.
//   - Redact: in what is read, values of secret-looking keys (password=,
//     credentials= and pass= mount options, "PrivateKey = …", token=,
//     --psk VALUE in a command line), PEM bodies, OpenVPN inline key
//     blocks, passwords in URLs and in "user:pass@host" values, the
//     kernel command line's systemd.setenv=X_PASSWORD=… and
//     systemd.set_credential=…, items of a quoted list
//     (GRUB_CMDLINE_LINUX="…"), dm-crypt keys in `dmsetup table` and
//     net.ipv4.tcp_fastopen_key are replaced by Redacted.
//
// Redaction keeps the layout (the key, the line, the field count), so
// parsers still work and evidence still says where a value was. It costs
// a byte scan where no secret is: files the kernel writes whole of its
// own names and numbers (/proc/crypto, /proc/stat: noSecretForms) are not
// scanned; elsewhere a line reaches the regular expressions only when
// mayHoldSecret finds a trigger in it, and each expression only when a
// cheap test shows it can match (BenchmarkRedact).

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret value.
const Redacted = "<redacted>"

// neverReadExact are real host paths never opened.
var neverReadExact = map[string]bool{
	"/etc/shadow": true, "/etc/shadow-": true, "/etc/gshadow": true, "/etc/gshadow-": true,
	"/etc/security/opasswd": true, "/etc/krb5.keytab": true, "/etc/ppp/chap-secrets": true,
	"/etc/ppp/pap-secrets": true, "/proc/kmsg": true, "/proc/kcore": true, "/dev/mem": true,
	"/dev/kmem": true, "/dev/port": true, "/etc/cifspw": true,
}

// neverReadBase are file names never opened wherever they are.
var neverReadBase = map[string]bool{
	"secrets.tdb": true, "passdb.tdb": true, "secrets.ldb": true, "smbpasswd": true, "sam.ldb": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
	"trace_pipe": true, "trace_pipe_raw": true, ".netrc": true, ".pgpass": true,
	".my.cnf": true, "master.key": true,
}

// neverReadDirs are folders whose whole content is secret.
var neverReadDirs = []string{
	"/var/lib/samba/private/", "/etc/ssl/private/", "/etc/wireguard/", "/etc/ipsec.d/private/",
	"/etc/letsencrypt/archive/", "/etc/letsencrypt/keys/", "/etc/NetworkManager/system-connections/",
}

// NeverRead reports whether the real host path p is a file nastune must
// not open: it holds secrets or blocks a reader.
func NeverRead(p string) bool {
	p = path.Clean(p)
	base := path.Base(p)
	switch {
	case neverReadExact[p], neverReadBase[base]:
		return true
	case strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".keytab") ||
		strings.HasSuffix(base, ".p12") || strings.HasSuffix(base, ".pfx"):
		return true
	case strings.HasPrefix(base, "ssh_host_") && strings.HasSuffix(base, "_key"):
		return true
	case strings.Contains(p, "/.ssh/") && !strings.HasSuffix(base, ".pub") && base != "known_hosts" && base != "config":
		return true
	case strings.Contains(p, "/.gnupg/"):
		return true
	case strings.HasPrefix(p, "/proc/") && (base == "environ" || base == "mem" || base == "pagemap"):
		return true // another process's environment (passwords) and memory
	}
	for _, d := range neverReadDirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// Redact returns data, read from the real host path p, with its secrets
// replaced by Redacted. data is not changed; the result may share it when
// nothing was redacted.
func Redact(p string, data []byte) []byte {
	p = path.Clean(p)
	switch {
	case strings.HasPrefix(p, "/proc/sys/") && strings.HasSuffix(p, "_key"):
		// net.ipv4.tcp_fastopen_key and its kin: the value is the key.
		if len(bytes.TrimSpace(data)) == 0 {
			return data
		}
		return []byte(Redacted + "\n")
	case strings.HasPrefix(p, "/proc/") && path.Base(p) == "cmdline":
		return redactCmdline(data)
	case noSecretForms[procNet(p)]:
		return data
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return data // binary (a superblock): no text secrets to find
	}
	return redactText(data)
}

// noSecretForms are files the kernel writes whole, of names and numbers
// it chose, where none of Redact's forms can occur: not scanned at all.
// /proc/crypto alone ("min keysize", 600 lines) took most of the audit's
// redaction time before the line prefilter.
var noSecretForms = map[string]bool{
	"/proc/crypto": true, "/proc/cpuinfo": true, "/proc/meminfo": true, "/proc/stat": true, "/proc/vmstat": true,
	"/proc/interrupts": true, "/proc/softirqs": true, "/proc/diskstats": true, "/proc/partitions": true,
	"/proc/mdstat": true, "/proc/swaps": true, "/proc/uptime": true, "/proc/loadavg": true, "/proc/zoneinfo": true,
	"/proc/buddyinfo": true, "/proc/pressure/cpu": true, "/proc/pressure/io": true, "/proc/pressure/memory": true,
	"/proc/net/dev": true, "/proc/net/snmp": true, "/proc/net/snmp6": true, "/proc/net/netstat": true,
	"/proc/net/softnet_stat": true, "/proc/net/sockstat": true, "/proc/net/sockstat6": true,
	"/proc/spl/kstat/zfs/arcstats": true,
}

// procNet maps /proc/PID/net/X (where /proc/net leads) to /proc/net/X.
func procNet(p string) string {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return p
	}
	pid, tail, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(tail, "net/") {
		return p
	}
	for _, c := range pid {
		if c < '0' || c > '9' {
			if pid != "self" && pid != "thread-self" {
				return p
			}
			break
		}
	}
	return "/proc/" + tail
}

// RedactString redacts free text that did not come from a file (an error
// message, a line of command output).
func RedactString(s string) string { return string(redactText([]byte(s))) }

// RedactCommand redacts the output of argv (live or captured).
func RedactCommand(argv []string, out []byte) []byte {
	if len(out) == 0 {
		return out
	}
	if len(argv) > 0 && argv[0] == "dmsetup" {
		out = redactDMTable(out)
	}
	return redactText(out)
}

// RedactArgs returns a copy of a command line with secret arguments
// replaced: "--psk VALUE", "--password=VALUE", "-p VALUE", "token=VALUE"
// and passwords in URLs. A word naming a program whose own options carry
// passwords (mysql -pX, sshpass -p X, curl -u user:X) starts that
// program's arguments anywhere in the line ("sh -c 'mysql -pX'", a
// command line written in a file), up to a ';', '|' or '&'.
func RedactArgs(argv []string) []string { return redactArgv(argv, true) }

// redactArgv is RedactArgs; words says whether each other word also
// passes redactText (for a command line from /proc, not for the words of
// a line redactLine already redacted as a whole).
func redactArgv(argv []string, words bool) []string {
	out := append([]string(nil), argv...)
	// A word's trailing ';', '|' or '&' ends a command: it is kept aside
	// while the word is looked at and ends the program's arguments.
	seps := make([]string, len(out))
	for i, a := range out {
		t := strings.TrimRight(a, ";|&")
		if t != "" {
			out[i], seps[i] = t, a[len(t):]
		}
	}
	prog := ""
	if len(out) > 0 {
		prog = path.Base(out[0])
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		if b := path.Base(a); i > 0 && passwordOptions[b] {
			prog = b
			continue
		}
		switch {
		case i > 0 && dashPPassword[prog] && strings.HasPrefix(a, "-p") && len(a) > 2 && !portOrPath(a[2:]):
			out[i] = "-p" + Redacted
		case i+1 < len(out) && (a == "-U" || a == "--user" || a == "--username" || a == "-u" && prog == "curl"):
			out[i+1] = redactUserPass(out[i+1], a != "-U")
			i++
		case strings.HasPrefix(a, "-"):
			name, _, hasVal := strings.Cut(a, "=")
			switch {
			case hasVal && secretKey(name) && words:
				out[i] = name + "=" + Redacted
			case !hasVal && i+1 < len(out) && (secretKey(a) || a == "-p" && !portOrPath(out[i+1])):
				out[i+1] = Redacted
				i++
			}
		default:
			if k, _, ok := strings.Cut(a, "="); ok && secretKey(k) && words {
				out[i] = k + "=" + Redacted
			} else if words {
				out[i] = string(redactText([]byte(a)))
			}
		}
		if seps[i] != "" {
			prog = ""
		}
	}
	for i := range out {
		out[i] += seps[i]
	}
	return out
}

// passwordOptions are programs with an option that takes a password in
// a form no key names: dashPPassword's "-pVALUE", curl's "-u user:VALUE".
var passwordOptions = map[string]bool{"mysql": true, "mysqldump": true, "mysqladmin": true, "mariadb": true,
	"mariadb-dump": true, "sshpass": true, "curl": true}

// redactWords redacts a line of text as the command line it may be
// (smb.conf's "root preexec = sshpass -p X ssh h", a cron line): its
// words pass RedactArgs' rules, and only the words that changed are put
// back, so the line keeps its layout.
func redactWords(l string) string {
	var words []string
	var at [][2]int
	for i := 0; i < len(l); {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		j := i
		for j < len(l) && l[j] != ' ' && l[j] != '\t' {
			j++
		}
		if j > i {
			words = append(words, l[i:j])
			at = append(at, [2]int{i, j})
		}
		i = j
	}
	if len(words) < 2 {
		return l
	}
	red := redactArgv(words, false)
	var b strings.Builder
	last := 0
	for k, w := range red {
		if w != words[k] {
			b.WriteString(l[last:at[k][0]])
			b.WriteString(w)
			last = at[k][1]
		}
	}
	if last == 0 {
		return l
	}
	b.WriteString(l[last:])
	return b.String()
}

// portOrPath tells the common meanings of "-p VALUE" (a port, a pid
// file) from a password (sshpass -p SECRET).
func portOrPath(v string) bool {
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t") {
		return true
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return v != ""
}

func redactCmdline(data []byte) []byte {
	trail := bytes.HasSuffix(data, []byte{0})
	args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if len(args) == 1 && strings.Contains(args[0], " ") {
		// A process that rewrote its title: one space-separated string.
		args = strings.Split(args[0], " ")
		return []byte(strings.Join(RedactArgs(args), " "))
	}
	s := strings.Join(RedactArgs(args), "\x00")
	if trail {
		s += "\x00"
	}
	return []byte(s)
}

// secretWords are the last words of keys whose value is a secret.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "passphrase": true, "secret": true,
	"psk": true, "token": true, "key": true, "privatekey": true, "presharedkey": true, "credentials": true,
	"cred": true, "creds": true, "credential": true, "apikey": true, "secretkey": true, "accesskey": true, "authkey": true,
	"wpapsk": true, "pin": true,
}

// InlineKeyBlock reports whether an OpenVPN inline block (<tls-auth>,
// written with or without the brackets) holds key material.
func InlineKeyBlock(name string) bool {
	return inlineBlocks[strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(name, "<"), ">"))]
}

// SecretKey reports whether a configuration key or option names a secret.
func SecretKey(k string) bool { return secretKey(k) }

// secretKey reports whether a key (an option, a config key, a flag) names
// a secret: its last word, or its whole name without separators, is one
// of secretWords. "encrypt passwords" and "passdb backend" are not.
func secretKey(k string) bool {
	k = strings.ToLower(strings.TrimLeft(strings.TrimSpace(k), "-"))
	if k == "" {
		return false
	}
	words := strings.FieldsFunc(k, func(r rune) bool { return r == ' ' || r == '_' || r == '-' || r == '.' || r == '\t' })
	if len(words) == 0 {
		return false
	}
	last := strings.TrimRight(words[len(words)-1], "0123456789") // password2
	if (last == "in" || last == "out") && len(words) > 1 {
		last = words[len(words)-2] // iSCSI's mutual CHAP: node.session.auth.password_in
	}
	if secretWords[last] || secretWords[strings.Join(words, "")] {
		return true
	}
	// A name glued to a secret word: PGPASSWORD, rpcpassword, adminpasswd.
	for _, w := range gluedSecretWords {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	return false
}

// gluedSecretWords end names that are secrets even without a separator
// before them (PGPASSWORD, rpcpassword); the short words (pass, key, pin)
// do not, they end too many other words (bypass, hotkey, spin).
var gluedSecretWords = []string{"password", "passwd", "passphrase", "secret", "token"}

// userKey reports whether a key or flag names a user, whose value may
// carry the password: mount.cifs and smbclient take "user%password".
func userKey(k string) bool {
	switch strings.ToLower(strings.TrimLeft(k, "-")) {
	case "user", "username", "u":
		return true
	}
	return false
}

// redactUserPass keeps the user of "user%password" (mount.cifs user=,
// smbclient -U) or, with colon, "user:password" (curl -u) and redacts the
// rest.
func redactUserPass(v string, colon bool) string {
	i := strings.IndexByte(v, '%')
	if i < 0 && colon {
		i = strings.IndexByte(v, ':')
	}
	if i < 0 || i == len(v)-1 {
		return v
	}
	return v[:i+1] + Redacted
}

// dashPPassword are programs whose "-pVALUE" is a password (mysql
// -psecret, sshpass -psecret).
var dashPPassword = map[string]bool{"mysql": true, "mysqldump": true, "mysqladmin": true, "mariadb": true, "mariadb-dump": true, "sshpass": true}

var (
	// key=value inside a line: mount options, command arguments, query strings.
	// A doubled comma is part of the value: mount.cifs and the kernel's
	// CIFS option parser read "password=a,,b" as the password "a,b".
	kvRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.-]*)=("[^"]*"|'[^']*'|(?:[^\s,;&"']|,,)*)`)
	})
	// a whole line "key = value" or "key: value" (ini, smb.conf, YAML, WireGuard).
	lineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*[#;]?\s*([A-Za-z][A-Za-z0-9 _.-]*?)\s*[=:]\s*)(\S.*?)\s*$`)
	})
	// a line "key value" of configs without "=" (OpenVPN, Samba's "username map", .netrc).
	spaceRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*[#;]?\s*([A-Za-z][A-Za-z0-9_.-]*)\s+)(\S.*?)\s*$`)
	})
	// user:password@ in a URL.
	// The password runs to the last '@' before the path: it may hold one.
	urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*):([^/\s]+)@`) })
)

// inlineBlocks are OpenVPN's inline files that hold keys or passwords.
var inlineBlocks = map[string]bool{
	"key": true, "tls-auth": true, "tls-crypt": true, "tls-crypt-v2": true, "secret": true,
	"pkcs12": true, "auth-user-pass": true, "http-proxy-user-pass": true,
}

// redactText redacts every line of data that may hold a secret (see
// mayHoldSecret), and PEM and OpenVPN inline key blocks. It costs one
// byte scan when nothing is redacted, and returns data itself then.
func redactText(data []byte) []byte {
	var out []byte // nil until a line changes
	block := ""    // inside a PEM ("-----END") or inline ("</key>") block: its end line
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		end := len(data)
		if j >= 0 {
			end = i + j + 1
		}
		line := data[i:end]
		start := i
		i = end
		if block == "" && !mayHoldSecret(line) {
			if out != nil {
				out = append(out, line...)
			}
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(data)+64), data[:start]...)
		}
		l := string(line)
		body := strings.TrimRight(l, "\r\n")
		nl := l[len(body):]
		t := strings.TrimSpace(body)
		switch {
		case block != "":
			if strings.HasPrefix(t, block) {
				out = append(out, l...)
				block = ""
			}
		case strings.HasPrefix(t, "-----BEGIN ") && strings.HasSuffix(t, "-----"):
			out = append(out, l+Redacted+"\n"...)
			block = "-----END "
		case strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && inlineBlocks[strings.ToLower(t[1:len(t)-1])]:
			out = append(out, l+Redacted+"\n"...)
			block = "</" + t[1:]
		default:
			out = append(out, redactLine(body)+nl...)
		}
	}
	if out == nil || bytes.Equal(out, data) {
		return data
	}
	return out
}

// lowerASCII maps ASCII letters to lower case and every other byte to
// itself: the prefilter's case-insensitive compare without a copy.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// hasFoldAt reports whether l[i:] starts with word (lower case), ignoring
// ASCII case.
func hasFoldAt(l []byte, i int, word string) bool {
	if len(l)-i < len(word) {
		return false
	}
	for k := 0; k < len(word); k++ {
		if lowerASCII[l[i+k]] != word[k] {
			return false
		}
	}
	return true
}

// mayHoldSecret is the prefilter before any regular expression: one pass
// over the line's bytes. Every form redactLine and redactText change needs
// one of these in the line, so a line without them is left as it is:
//
//   - a secret key's last word (secretWords) holds "pass", "pwd",
//     "secret", "psk", "token", "key", "cred" or "pin";
//   - a password in a URL or in "user:pass@host" is a ':' before an '@';
//   - "user=name%password" (mount.cifs, smbclient) is a '%' in a line
//     naming "user" or "u=";
//   - a PEM block starts with "-----BEGIN", an inline block with '<';
//   - a command's password option (RedactArgs: "-p VALUE", "-pVALUE",
//     "-u user:VALUE", "-U user%VALUE") is a word starting "-p" or "-u".
func mayHoldSecret(l []byte) bool {
	colon, pct, user := false, false, false
	for i := 0; i < len(l); i++ {
		switch lowerASCII[l[i]] {
		case 'p':
			if hasFoldAt(l, i, "pass") || hasFoldAt(l, i, "pwd") || hasFoldAt(l, i, "psk") || hasFoldAt(l, i, "pin") {
				return true
			}
		case 's':
			if hasFoldAt(l, i, "secret") {
				return true
			}
		case 't':
			if hasFoldAt(l, i, "token") {
				return true
			}
		case 'k':
			if hasFoldAt(l, i, "key") {
				return true
			}
		case 'c':
			if hasFoldAt(l, i, "cred") {
				return true
			}
		case 'u':
			if hasFoldAt(l, i, "user") || hasFoldAt(l, i, "u=") {
				user = true
			}
		case '-':
			if hasFoldAt(l, i, "-----begin") {
				return true
			}
			// "-p VALUE", "-pVALUE", "-u user:VALUE", "-U user%VALUE":
			// a word starting "-p" or "-u" (RedactArgs' forms).
			if i+1 < len(l) && (lowerASCII[l[i+1]] == 'p' || lowerASCII[l[i+1]] == 'u') && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t') {
				return true
			}
		case '<':
			return true
		case ':':
			colon = true
		case '@':
			if colon {
				return true
			}
		case '%':
			pct = true
		}
	}
	return pct && user
}

// redactLine redacts one line. Comments are redacted too: a
// commented-out password is a password.
func redactLine(l string) string {
	if strings.TrimSpace(l) == "" {
		return l
	}
	// Each expression runs only when a cheap test shows it can change the
	// line: the key before the first '=' or ':' (or the first word) names
	// a secret, a "word=" is in the line, a "://", a "--".
	lead := strings.TrimLeft(strings.TrimLeft(strings.TrimLeft(l, " \t\r\n\v\f"), "#;"), " \t\r\n\v\f")
	if i := strings.IndexAny(lead, "=:"); i >= 0 {
		if secretKey(lead[:i]) {
			if m := lineRe().FindStringSubmatchIndex(l); m != nil && secretKey(l[m[4]:m[5]]) && !plainValue(l[m[6]:m[7]]) {
				return l[:m[6]] + Redacted
			}
		}
	} else if w, _, _ := strings.Cut(strings.ReplaceAll(lead, "\t", " "), " "); secretKey(w) {
		if m := spaceRe().FindStringSubmatchIndex(l); m != nil && secretKey(l[m[4]:m[5]]) && !plainValue(l[m[6]:m[7]]) {
			return l[:m[6]] + Redacted
		}
	}
	if wordEquals(l) {
		l = kvRedactLine(l)
	}
	if strings.Contains(l, "://") {
		l = urlRe().ReplaceAllString(l, "${1}:"+Redacted+"@")
	}
	return redactWords(l)
}

// wordEquals reports whether l holds "word=" (a '=' right after a key
// character), which kvRe needs.
func wordEquals(l string) bool {
	for i := 1; i < len(l); i++ {
		if l[i] == '=' {
			c := l[i-1]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
				return true
			}
		}
	}
	return false
}

// kvRedactLine redacts every key=value of a line (kvRe, kvRedact). A
// secret's value runs on to the next white space or single comma: kvRe
// stops at ';', '&' and quotes (a query string's or a shell line's
// separators), but inside a password they are part of it
// ("password=pa;ss" in fstab), and stopping there would leave its tail.
func kvRedactLine(l string) string {
	ms := kvRe().FindAllStringSubmatchIndex(l, -1)
	if ms == nil {
		return l
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if m[0] < last {
			continue // inside the extended value of the key before
		}
		end := m[1]
		if secretKey(l[m[2]:m[3]]) {
			for end < len(l) && l[end] != ' ' && l[end] != '\t' && l[end] != '\n' && l[end] != '\r' {
				if l[end] == ',' {
					if end+1 < len(l) && l[end+1] == ',' {
						end += 2 // a doubled comma is part of a CIFS password
						continue
					}
					break
				}
				end++
			}
		}
		b.WriteString(l[last:m[0]])
		b.WriteString(kvRedact(l[m[0]:end]))
		last = end
	}
	b.WriteString(l[last:])
	return b.String()
}

// kvRedact redacts one key=value match of kvRe.
func kvRedact(s string) string {
	k, v, _ := strings.Cut(s, "=")
	if secretKey(k) && !plainValue(v) {
		return k + "=" + Redacted
	}
	if userKey(k) {
		return k + "=" + redactUserPass(v, false)
	}
	// A quoted list (GRUB_CMDLINE_LINUX="… password=x …"): its items.
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return k + "=" + v[:1] + redactLine(v[1:len(v)-1]) + v[len(v)-1:]
	}
	// systemd.setenv=DB_PASSWORD=x on the kernel command line, and any
	// key whose value is itself "KEY=VALUE".
	if k2, v2, ok := strings.Cut(v, "="); ok && secretKey(k2) && !plainValue(v2) {
		return k + "=" + k2 + "=" + Redacted
	}
	return k + "=" + redactUserinfo(v)
}

// redactUserinfo redacts the password of "user:password@host" in a
// value without a URL scheme: the kernel command line's
// netroot=iscsi:user:pass@host::3260::iqn…, nfsroot=, root=. Everything
// between the first ':' and the last '@' goes.
func redactUserinfo(v string) string {
	at := strings.LastIndexByte(v, '@')
	if at <= 0 || strings.Contains(v[:at], "://") {
		return v // none, or a URL (urlRe keeps its scheme and user)
	}
	c := strings.IndexByte(v[:at], ':')
	if c < 0 || c+1 == at || v[c+1:at] == Redacted {
		return v
	}
	return v[:c+1] + Redacted + v[at:]
}

// plainValue reports whether a value cannot be a secret: empty, a
// boolean or a word such as "auto" ("require strong key = Yes").
func plainValue(v string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`)) {
	case "", "yes", "no", "true", "false", "on", "off", "0", "1", "auto", "default", "none", "*":
		return true
	}
	return false
}

// redactDMTable replaces the key of dm-crypt lines of `dmsetup table`:
// "name: start length crypt cipher KEY iv_offset device offset".
func redactDMTable(out []byte) []byte {
	lines := strings.SplitAfter(string(out), "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		for k := 0; k+2 < len(f); k++ {
			if f[k] == "crypt" {
				f[k+2] = Redacted
				lines[i] = strings.Join(f, " ") + "\n"
				break
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}
