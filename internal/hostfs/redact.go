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
//     blocks, passwords in URLs, dm-crypt keys in `dmsetup table` and
//     net.ipv4.tcp_fastopen_key are replaced by Redacted.
//
// Redaction keeps the layout (the key, the line, the field count), so
// parsers still work and evidence still says where a value was.

import (
	"bytes"
	"path"
	"regexp"
	"strings"
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
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return data // binary (a superblock): no text secrets to find
	}
	return redactText(data)
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
// and passwords in URLs.
func RedactArgs(argv []string) []string {
	out := append([]string(nil), argv...)
	prog := ""
	if len(out) > 0 {
		prog = path.Base(out[0])
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case i > 0 && dashPPassword[prog] && strings.HasPrefix(a, "-p") && len(a) > 2 && !portOrPath(a[2:]):
			out[i] = "-p" + Redacted
			continue
		case i+1 < len(out) && (a == "-U" || a == "--user" || a == "--username" || a == "-u" && prog == "curl"):
			out[i+1] = redactUserPass(out[i+1], a != "-U")
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			name, _, hasVal := strings.Cut(a, "=")
			switch {
			case hasVal && secretKey(name):
				out[i] = name + "=" + Redacted
			case !hasVal && i+1 < len(out) && (secretKey(a) || a == "-p" && !portOrPath(out[i+1])):
				out[i+1] = Redacted
				i++
			}
			continue
		}
		if k, _, ok := strings.Cut(a, "="); ok && secretKey(k) {
			out[i] = k + "=" + Redacted
			continue
		}
		out[i] = string(redactText([]byte(a)))
	}
	return out
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
	"cred": true, "creds": true, "apikey": true, "secretkey": true, "accesskey": true, "authkey": true,
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
	return secretWords[last] || secretWords[strings.Join(words, "")]
}

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
	kvRe = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.-]*)=("[^"]*"|'[^']*'|(?:[^\s,;&"']|,,)*)`)
	// a whole line "key = value" or "key: value" (ini, smb.conf, YAML, WireGuard).
	lineRe = regexp.MustCompile(`^(\s*[#;]?\s*([A-Za-z][A-Za-z0-9 _.-]*?)\s*[=:]\s*)(\S.*?)\s*$`)
	// a line "key value" of configs without "=" (OpenVPN, Samba's "username map", .netrc).
	spaceRe = regexp.MustCompile(`^(\s*[#;]?\s*([A-Za-z][A-Za-z0-9_.-]*)\s+)(\S.*?)\s*$`)
	// user:password@ in a URL.
	urlRe = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*):([^/\s@]+)@`)
)

// inlineBlocks are OpenVPN's inline files that hold keys or passwords.
var inlineBlocks = map[string]bool{
	"key": true, "tls-auth": true, "tls-crypt": true, "tls-crypt-v2": true, "secret": true,
	"pkcs12": true, "auth-user-pass": true, "http-proxy-user-pass": true,
}

// hint is a quick test that a text may hold anything redactText changes.
var hint = []string{"pass", "secret", "psk", "token", "key", "cred", "-----begin", "://", "pwd", "pin", "user"}

func redactText(data []byte) []byte {
	low := bytes.ToLower(data)
	found := false
	for _, h := range hint {
		if bytes.Contains(low, []byte(h)) {
			found = true
			break
		}
	}
	if !found {
		return data
	}
	lines := strings.SplitAfter(string(data), "\n")
	var sb strings.Builder
	sb.Grow(len(data))
	block := "" // inside a PEM ("-----END") or inline ("</key>") block: its end line
	for _, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		nl := l[len(body):]
		t := strings.TrimSpace(body)
		if block != "" {
			if strings.HasPrefix(t, block) {
				sb.WriteString(l)
				block = ""
			}
			continue
		}
		if strings.HasPrefix(t, "-----BEGIN ") && strings.HasSuffix(t, "-----") {
			sb.WriteString(l + Redacted + "\n")
			block = "-----END "
			continue
		}
		if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && inlineBlocks[strings.ToLower(t[1:len(t)-1])] {
			sb.WriteString(l + Redacted + "\n")
			block = "</" + t[1:]
			continue
		}
		sb.WriteString(redactLine(body) + nl)
	}
	return []byte(sb.String())
}

// redactLine redacts one line. Comments are redacted too: a
// commented-out password is a password.
func redactLine(l string) string {
	if strings.TrimSpace(l) == "" {
		return l
	}
	if m := lineRe.FindStringSubmatchIndex(l); m != nil && secretKey(l[m[4]:m[5]]) && !plainValue(l[m[6]:m[7]]) {
		return l[:m[6]] + Redacted
	}
	if !strings.ContainsAny(l, "=:") {
		if m := spaceRe.FindStringSubmatchIndex(l); m != nil && secretKey(l[m[4]:m[5]]) && !plainValue(l[m[6]:m[7]]) {
			return l[:m[6]] + Redacted
		}
	}
	l = kvRe.ReplaceAllStringFunc(l, func(s string) string {
		k, v, _ := strings.Cut(s, "=")
		if secretKey(k) && !plainValue(v) {
			return k + "=" + Redacted
		}
		if userKey(k) {
			return k + "=" + redactUserPass(v, false)
		}
		return s
	})
	l = urlRe.ReplaceAllString(l, "${1}:"+Redacted+"@")
	return redactFlags(l)
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

// redactFlags replaces the word after a secret flag ("--psk VALUE") in a
// line of text (a command line shown by a tool).
func redactFlags(l string) string {
	if !strings.Contains(l, "-") {
		return l
	}
	f := strings.Fields(l)
	changed := false
	for i := 0; i+1 < len(f); i++ {
		if strings.HasPrefix(f[i], "--") && !strings.Contains(f[i], "=") && secretKey(f[i]) && f[i+1] != Redacted {
			f[i+1] = Redacted
			changed = true
		}
	}
	if !changed {
		return l
	}
	return strings.Join(f, " ")
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
