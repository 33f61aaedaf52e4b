package bench

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ShareURL is a parsed `bench share` target:
// smb://[USER@]HOST[:PORT]/SHARE[/DIR] or nfs://HOST[:PORT]/EXPORT[/DIR].
// It never holds a password (a URL with one is refused).
type ShareURL struct {
	Scheme string // "smb" or "nfs"
	User   string // smb only; "" is a guest/anonymous session
	Host   string // name or address, without brackets
	Port   int    // 0: the protocol's default (445, or the portmapper's answer)
	// Path are the segments after the host: for smb the share and then
	// the folder inside it; for nfs the export path and the folder (the
	// split is found at mount time: the longest prefix mountd accepts).
	Path []string
}

// String is the URL without a password (it never has one).
func (u ShareURL) String() string {
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != "" {
		b.WriteString(url.PathEscape(u.User) + "@")
	}
	h := u.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	b.WriteString(h)
	if u.Port != 0 {
		b.WriteString(":" + strconv.Itoa(u.Port))
	}
	for _, s := range u.Path {
		b.WriteString("/" + url.PathEscape(s))
	}
	return b.String()
}

// Address is HOST:PORT with the given default port.
func (u ShareURL) Address(defPort int) string {
	p := u.Port
	if p == 0 {
		p = defPort
	}
	return net.JoinHostPort(u.Host, strconv.Itoa(p))
}

// ErrPasswordInURL refuses smb://user:secret@host: argv is visible to
// every local user (ps) and lands in shell history.
var ErrPasswordInURL = errors.New("the URL holds a password")

// ParseShareURL parses a share URL strictly: every error names the part
// that is wrong, and quotes none of it when the text may hold a password
// (a ':' before an '@' the parser did not read as USER@: a mistyped
// smb:/alice:secret@nas/x or a password with a '/' in it).
func ParseShareURL(s string) (ShareURL, error) {
	u, err := parseShareURL(s)
	if err != nil && !errors.Is(err, ErrPasswordInURL) && mayHoldPassword(s) {
		return ShareURL{}, fmt.Errorf("share URL: %w (a ':' before '@' looks like USER:PASSWORD@; the URL is not repeated): "+
			"drop it from the URL and give it with --password-file FILE, $NASTUNE_SMB_PASSWORD or at the prompt; "+
			"write smb://[USER@]HOST[:PORT]/SHARE[/DIR] or nfs://HOST[:PORT]/EXPORT[/DIR]", ErrPasswordInURL)
	}
	return u, err
}

// mayHoldPassword: a ':' after the scheme (smb://, or smb:/ mistyped)
// and before the last '@'.
func mayHoldPassword(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	before := s[:at]
	if k := strings.Index(before, "://"); k >= 0 {
		before = before[k+3:]
	} else if k := strings.IndexByte(before, ':'); k > 0 && k+1 < len(before) && strings.ContainsRune(`/\`, rune(before[k+1])) &&
		strings.Trim(strings.ToLower(before[:k]), "abcdefghijklmnopqrstuvwxyz") == "" {
		// A scheme with too few slashes: smb:/alice:secret@nas.
		before = before[k+1:]
	}
	return strings.Contains(before, ":")
}

func parseShareURL(s string) (ShareURL, error) {
	var u ShareURL
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return u, fmt.Errorf("share URL: control character %q", r)
		}
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return u, fmt.Errorf("share URL %q: no scheme: give smb://HOST/SHARE or nfs://HOST/EXPORT", s)
	}
	switch strings.ToLower(scheme) {
	case "smb", "cifs":
		u.Scheme = "smb"
	case "nfs":
		u.Scheme = "nfs"
	default:
		return u, fmt.Errorf("share URL: scheme %q: only smb:// and nfs:// are measured", scheme)
	}
	if strings.ContainsAny(rest, "?#") {
		return u, fmt.Errorf("share URL: a query or fragment (%q) is not part of a share URL", rest[strings.IndexAny(rest, "?#"):])
	}
	if strings.Contains(rest, `\`) {
		return u, errors.New(`share URL: backslash: write smb://HOST/SHARE/DIR with forward slashes, not \\HOST\SHARE`)
	}
	authority, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo := authority[:at]
		authority = authority[at+1:]
		if strings.Contains(userinfo, ":") {
			return u, fmt.Errorf("share URL: %w: drop it from the URL and give it with --password-file FILE, $NASTUNE_SMB_PASSWORD or at the prompt", ErrPasswordInURL)
		}
		if u.Scheme == "nfs" {
			return u, errors.New("share URL: nfs:// takes no user (NFSv3 with AUTH_SYS sends this process's uid)")
		}
		user, err := url.PathUnescape(userinfo)
		if err != nil || user == "" {
			return u, fmt.Errorf("share URL: user %q: not a valid user name", userinfo)
		}
		u.User = user
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return u, fmt.Errorf("share URL: host %q: unclosed [", authority)
		}
		host, port = authority[1:end], strings.TrimPrefix(authority[end+1:], ":")
		if authority[end+1:] != "" && !strings.HasPrefix(authority[end+1:], ":") {
			return u, fmt.Errorf("share URL: host %q: junk after ]", authority)
		}
	} else if i := strings.LastIndexByte(authority, ':'); i >= 0 {
		host, port = authority[:i], authority[i+1:]
		if strings.Contains(host, ":") {
			return u, fmt.Errorf("share URL: host %q: put an IPv6 address in brackets, e.g. smb://[fd00::1]/share", authority)
		}
	}
	if host == "" {
		return u, errors.New("share URL: no host")
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':' || r == '%' || r == '_') {
			return u, fmt.Errorf("share URL: host %q: character %q is not allowed in a host name", host, r)
		}
	}
	u.Host = host
	if port != "" || strings.HasSuffix(authority, ":") {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return u, fmt.Errorf("share URL: port %q: give a number 1-65535", port)
		}
		u.Port = p
	}
	path = strings.TrimSuffix(path, "/")
	if path == "" {
		if u.Scheme == "smb" {
			return u, errors.New("share URL: no share: give smb://HOST/SHARE[/DIR]")
		}
		return u, errors.New("share URL: no export: give nfs://HOST/EXPORT[/DIR]")
	}
	for _, seg := range strings.Split(path, "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return u, fmt.Errorf("share URL: path segment %q: %v", seg, err)
		}
		switch {
		case dec == "":
			return u, fmt.Errorf("share URL: empty path segment (//) in %q", path)
		case dec == "." || dec == "..":
			return u, fmt.Errorf("share URL: path segment %q: give the folder itself, without . or ..", dec)
		case strings.ContainsAny(dec, "/\\\x00"):
			return u, fmt.Errorf("share URL: path segment %q holds a slash or NUL once decoded", dec)
		}
		u.Path = append(u.Path, dec)
	}
	return u, nil
}
