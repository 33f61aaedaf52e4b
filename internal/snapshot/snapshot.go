// Package snapshot captures what an audit read into one .tar.gz and loads
// such a file back, safely, as a captured tree.
//
// A snapshot holds:
//
//   - every file, directory listing and symbolic link the probes read
//     (recorded by hostfs.Recorder during a live run), at their host paths;
//   - command output under /.nastune/commands, as a captured tree keeps it;
//   - /.nastune/facts.json: the facts the live run collected, including
//     what only a live kernel answers (netlink addresses, ethtool ioctls,
//     superblocks), so a replay yields the findings of the live audit;
//   - /.nastune/snapshot.json: format, nastune version, time, hostname, and
//     the facts layout fingerprint.
//
// Never captured: password databases, private keys and keytabs (see
// Excluded). Values of keys that name a password or secret, and OpenVPN
// inline key blocks, are redacted in files and facts alike.
//
// Loading treats the file as hostile: only regular files, directories and
// symlinks are accepted; absolute or ".." names, links that leave the tree,
// entries below a link, duplicates, device files, and archives above the
// size and entry limits are refused with an error naming the entry, before
// anything is written outside a fresh private temporary directory.
package snapshot

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
)

// Format is the archive layout version.
const Format = 1

// Paths of the metadata inside a snapshot.
const (
	MetaFile  = "/.nastune/snapshot.json"
	FactsFile = "/.nastune/facts.json"
)

// Limits for loading.
const (
	MaxEntries    = 100000
	MaxTotalBytes = 64 << 20 // uncompressed file content
	MaxFileBytes  = hostfs.MaxFileSize
)

// Meta describes a snapshot.
type Meta struct {
	Format       int       `json:"format"`
	Version      string    `json:"nastune_version"`
	Created      time.Time `json:"created"`
	Hostname     string    `json:"hostname"`
	FactsLayout  string    `json:"facts_layout"`
	Files        int       `json:"files"`
	Excluded     []string  `json:"excluded,omitempty"`
	RedactedKeys int       `json:"redacted_values"`
}

// patterns are compiled on first use: snapshot is linked into every
// command, and the audit's start-up should not pay for them.
//   - excluded: paths never put into a snapshot;
//   - secretKey: a configuration key whose value is a secret (it ends in
//     password, passwd, passphrase, secret, psk or token);
//   - secretOpt: a password inside a mount option list (fstab cifs);
//   - secretLine / secretWord: "key = value" and "key: value" lines, and
//     "key value" lines (OpenVPN, sshd style).
var patterns = sync.OnceValue(func() (p struct{ excluded, secretKey, secretOpt, secretLine, secretWord *regexp.Regexp }) {
	p.excluded = regexp.MustCompile(`^/etc/(g?shadow-?|security/opasswd)$|/private/|\.(key|pem|p12|pfx|keytab)$|/ssh_host_[^/]*_key$|^/var/lib/samba/.*\.tdb$|^/(root|home)/|/proc/[^/]+/environ$`)
	p.secretKey = regexp.MustCompile(`(?i)(pass(word|wd|phrase)|secret|psk|token)$`)
	p.secretOpt = regexp.MustCompile(`(?i)\b(pass(word|wd)?)=([^,\s]+)`)
	p.secretLine = regexp.MustCompile(`^(\s*)([A-Za-z0-9_. -]*[A-Za-z0-9_.-])(\s*[=:]\s*)(\S.*)$`)
	p.secretWord = regexp.MustCompile(`^(\s*)([A-Za-z0-9_.-]+)(\s+)(\S.*)$`)
	return p
})

// Excluded reports whether a path is never captured.
func Excluded(p string) bool { return patterns().excluded.MatchString(p) }

const redacted = "[redacted by nastune]"

// inlineBlocks are OpenVPN's inline key material.
var inlineBlocks = []string{"key", "secret", "tls-auth", "tls-crypt", "tls-crypt-v2", "pkcs12", "auth-user-pass", "http-proxy-user-pass"}

// Redact removes secret values from a text file; n counts redactions:
// OpenVPN inline key blocks, password= mount options, and the value of
// "key = value", "key: value" or "key value" lines whose key ends in
// password, passphrase, secret, psk or token.
func Redact(b []byte) (out []byte, n int) {
	lines := strings.SplitAfter(string(b), "\n")
	var w strings.Builder
	inBlock := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if inBlock != "" {
			if t == "</"+inBlock+">" {
				inBlock = ""
				w.WriteString(l)
			}
			continue
		}
		if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && !strings.HasPrefix(t, "</") {
			name := t[1 : len(t)-1]
			for _, bl := range inlineBlocks {
				if name == bl {
					inBlock = name
					n++
					w.WriteString(l)
					w.WriteString(redacted + "\n")
				}
			}
			if inBlock != "" {
				continue
			}
		}
		if !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, ";") {
			body := strings.TrimRight(l, "\r\n")
			m := patterns().secretLine.FindStringSubmatch(body)
			if m == nil {
				m = patterns().secretWord.FindStringSubmatch(body)
			}
			if m != nil && patterns().secretKey.MatchString(strings.TrimSpace(m[2])) && m[4] != redacted {
				n++
				w.WriteString(m[1] + m[2] + m[3] + redacted + l[len(body):])
				continue
			}
			if patterns().secretOpt.MatchString(l) {
				n++
				l = patterns().secretOpt.ReplaceAllString(l, "${1}="+redacted)
			}
		}
		w.WriteString(l)
	}
	return []byte(w.String()), n
}

// redactable files are text configuration and command output. Samba's
// configuration holds no secrets (passwords live in its .tdb databases,
// which are excluded), and its parameter names must survive for testparm
// output to parse, so it is left as it is.
func redactable(p string) bool {
	if strings.HasPrefix(p, "/etc/samba/") || strings.HasPrefix(p, hostfs.CommandsDir+"/testparm") {
		return false
	}
	return strings.HasPrefix(p, "/etc/") || strings.HasPrefix(p, hostfs.CommandsDir+"/")
}

// FactsLayout fingerprints the Go layout of facts.Host (field names, JSON
// names and types, recursively). A snapshot's stored facts are used only
// when the fingerprint matches this binary's; otherwise the captured tree
// is probed again.
func FactsLayout() string {
	h := sha256.New()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(h, "%s(", t.Kind())
		defer fmt.Fprint(h, ")")
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			fmt.Fprint(h, t.PkgPath(), ".", t.Name())
			if seen[t] {
				return
			}
			seen[t] = true
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				fmt.Fprintf(h, "%s %q ", f.Name, f.Tag.Get("json"))
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(facts.Host{}))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// redactFacts blanks secret values that facts copied from configuration.
func redactFacts(h *facts.Host) int {
	n := 0
	for i := range h.OpenVPN {
		for k := range h.OpenVPN[i].Options {
			for _, bl := range inlineBlocks {
				if k == "<"+bl+">" || (patterns().secretKey.MatchString(k) && k != "secret") {
					h.OpenVPN[i].Options[k] = redacted
					n++
				}
			}
		}
	}
	return n
}

// Write writes a snapshot of a recording and the facts collected with it.
func Write(w io.Writer, entries []hostfs.Entry, h *facts.Host, meta Meta) error {
	_, err := write(w, entries, h, meta)
	return err
}

func write(w io.Writer, entries []hostfs.Entry, h *facts.Host, meta Meta) (Meta, error) {
	meta.Format = Format
	meta.FactsLayout = FactsLayout()
	meta.Hostname = h.Hostname
	var kept []hostfs.Entry
	for _, e := range entries {
		if strings.HasPrefix(e.Path, "/.nastune/") && !strings.HasPrefix(e.Path, hostfs.CommandsDir+"/") && e.Path != hostfs.CommandsDir {
			continue // a snapshot of a snapshot: fresh metadata below
		}
		if Excluded(e.Path) {
			meta.Excluded = append(meta.Excluded, e.Path)
			continue
		}
		if e.Mode == 0 && redactable(e.Path) {
			var n int
			e.Data, n = Redact(e.Data)
			meta.RedactedKeys += n
		}
		if e.Mode == 0 {
			meta.Files++
		}
		kept = append(kept, e)
	}
	hc := *h
	hc.OpenVPN = append([]facts.OpenVPN(nil), h.OpenVPN...)
	for i := range hc.OpenVPN {
		hc.OpenVPN[i].Options = maps.Clone(hc.OpenVPN[i].Options)
	}
	meta.RedactedKeys += redactFacts(&hc)
	fb, err := json.Marshal(&hc)
	if err != nil {
		return meta, err
	}
	mb, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return meta, err
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	mtime := meta.Created
	hasDir := map[string]bool{}
	put := func(e hostfs.Entry) error {
		hdr := &tar.Header{Name: strings.TrimPrefix(e.Path, "/"), ModTime: mtime, Format: tar.FormatPAX}
		switch e.Mode {
		case fs.ModeDir:
			hdr.Typeflag, hdr.Mode, hdr.Name = tar.TypeDir, 0o755, hdr.Name+"/"
			hasDir[e.Path] = true
		case fs.ModeSymlink:
			hdr.Typeflag, hdr.Mode, hdr.Linkname = tar.TypeSymlink, 0o777, relativeTarget(e.Path, e.Target)
		default:
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, int64(len(e.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if e.Mode == 0 {
			_, err := tw.Write(e.Data)
			return err
		}
		return nil
	}
	for _, e := range kept {
		if err := put(e); err != nil {
			return meta, err
		}
	}
	if !hasDir["/.nastune"] {
		if err := put(hostfs.Entry{Path: "/.nastune", Mode: fs.ModeDir}); err != nil {
			return meta, err
		}
	}
	for _, e := range []hostfs.Entry{{Path: MetaFile, Data: append(mb, '\n')}, {Path: FactsFile, Data: fb}} {
		if err := put(e); err != nil {
			return meta, err
		}
	}
	if err := tw.Close(); err != nil {
		return meta, err
	}
	return meta, zw.Close()
}

// relativeTarget rewrites an absolute link target relative to the link's
// folder, so the unpacked tree is self-contained (hostfs reads both alike).
func relativeTarget(link, target string) string {
	if !strings.HasPrefix(target, "/") {
		return target
	}
	from := splitClean(path.Dir(link))
	to := splitClean(target)
	i := 0
	for i < len(from) && i < len(to) && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, to[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func splitClean(p string) []string {
	var out []string
	for _, c := range strings.Split(path.Clean(p), "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// errf names the entry a refusal is about.
func errf(entry, format string, a ...any) error {
	return fmt.Errorf("snapshot entry %q: %s", entry, fmt.Sprintf(format, a...))
}

// ErrNotSnapshot is returned for a file that is not a nastune snapshot.
var ErrNotSnapshot = errors.New("not a nastune snapshot (a .tar.gz made by nastune snapshot)")

// WriteFile writes a snapshot to path through a temporary file renamed
// into place; it returns the size written and the final metadata.
func WriteFile(path string, entries []hostfs.Entry, h *facts.Host, meta Meta) (int64, Meta, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".nastune-snapshot-*")
	if err != nil {
		return 0, meta, err
	}
	cw := &countWriter{w: f}
	m, err := write(cw, entries, h, meta)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, meta, err
	}
	return cw.n, m, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
