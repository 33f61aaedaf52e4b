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
// symlinks are accepted; absolute or ".." names, names or link targets
// longer than Linux allows, links that leave the tree, entries below a
// link, duplicates, device files, and archives above the size and entry
// limits (the folders an entry's path makes count as entries) are refused with an error naming the entry, before
// anything is written outside a fresh private temporary directory. The whole
// archive is checked first, writing nothing; the tree is unpacked only when
// the stored facts cannot be used (another facts layout).
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
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/safefile"
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

// excludedExtra are paths never put into a snapshot beyond those hostfs
// never reads: home folders and certificate bundles.
var excludedExtra = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/private/|\.(key|pem|p12|pfx|keytab)$|^/var/lib/samba/.*\.tdb$|^/(root|home)/`)
})

// Excluded reports whether a path is never captured: every file hostfs
// never reads (hostfs.NeverRead), home folders and key or certificate
// files.
func Excluded(p string) bool { return hostfs.NeverRead(p) || excludedExtra().MatchString(p) }

// Redact removes secret values from a file read from the host path p, with
// the one redaction layer every probe shares (hostfs.Redact); n counts the
// values redacted. A recording is already redacted when it is read; this
// pass keeps a snapshot safe whatever produced its entries.
func Redact(p string, b []byte) (out []byte, n int) {
	out = hostfs.Redact(p, b)
	n = strings.Count(string(out), hostfs.Redacted) - strings.Count(string(b), hostfs.Redacted)
	return out, max(n, 0)
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
			v := h.OpenVPN[i].Options[k]
			if v == hostfs.Redacted {
				continue
			}
			if (strings.HasPrefix(k, "<") && hostfs.InlineKeyBlock(k)) || (hostfs.SecretKey(k) && k != "secret") {
				h.OpenVPN[i].Options[k] = hostfs.Redacted
				n++
				continue
			}
			if r := hostfs.RedactString(k + " " + v); r != k+" "+v {
				h.OpenVPN[i].Options[k] = hostfs.Redacted
				n++
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
		if e.Mode == 0 {
			var n int
			e.Data, n = Redact(e.Path, e.Data)
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
// into place; it returns the size written and the final metadata. As
// root, path may be in a folder another user controls: internal/safefile
// walks to it without following a planted link, creates the temporary file
// under a random name with O_EXCL and refuses a target that is a symlink.
func WriteFile(path string, entries []hostfs.Entry, h *facts.Host, meta Meta) (int64, Meta, error) {
	name := filepath.Base(path)
	d, err := safefile.OpenDir(filepath.Dir(path))
	if err != nil {
		return 0, meta, err
	}
	defer d.Close()
	f, tmp, err := d.CreateTemp(".nastune-snapshot-", 0o600)
	if err != nil {
		return 0, meta, err
	}
	cw := &countWriter{w: f}
	m, err := write(cw, entries, h, meta)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = d.Replace(tmp, name)
	}
	if err != nil {
		_ = d.Remove(tmp, f)
		f.Close()
		return 0, meta, err
	}
	if err := f.Close(); err != nil {
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
