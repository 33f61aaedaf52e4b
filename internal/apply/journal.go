package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/safefile"
)

// The journal of a run is StateDir/runs/RUN_ID/manifest.json, an envelope
// holding the manifest and its sha256: a truncated, damaged or edited
// manifest is detected and the run is listed as damaged (it blocks apply
// until `nastune undo --discard RUN_ID`). Run IDs are SEQ-YYYYMMDD-HHMMSS:
// the sequence number, allocated under the lock, orders runs (two runs in
// the same second keep their order); the time is for people.

const (
	journalFormat  = "nastune-journal"
	journalVersion = 2
)

type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	SHA256  string          `json:"sha256"`
	Body    json.RawMessage `json:"body"`
}

var (
	newID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{6,})-[0-9]{8}-[0-9]{6}$`) })
	oldID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$`) })
)

// seqOf returns the sequence number of a run ID; old-format IDs (before
// sequence numbers) are 0 and sort before every new one, by time.
func seqOf(id string) int {
	if m := newID().FindStringSubmatch(id); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func validRunID(id string) bool { return newID().MatchString(id) || oldID().MatchString(id) }

// sortRuns orders runs by sequence (old-format runs first, by ID).
func sortRuns(ms []Manifest) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := seqOf(ms[i].ID), seqOf(ms[j].ID)
		if a != b {
			return a < b
		}
		return ms[i].ID < ms[j].ID
	})
}

func writeManifest(dir string, m *Manifest, o *Options) error {
	if o != nil && o.journalFault != nil {
		if err := o.journalFault(m); err != nil {
			return fmt.Errorf("writing the journal: %w", err)
		}
	}
	m.Version = journalVersion
	body, err := json.MarshalIndent(m, "  ", "  ")
	if err != nil {
		return err
	}
	s := sha256.Sum256(body)
	b, err := json.MarshalIndent(envelope{Format: journalFormat, Version: journalVersion, SHA256: hex.EncodeToString(s[:]), Body: body}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile("/", filepath.Join(dir, "manifest.json"), append(b, '\n'), &FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}, expect{any: true}, nil); err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	return nil
}

// readManifest reads and checks a run's journal; old-format manifests
// (plain JSON, before version 2) are converted.
func readManifest(dir string) (*Manifest, error) {
	fs, err := readFile("/", filepath.Join(dir, "manifest.json"), true)
	if err != nil {
		return nil, err
	}
	if !fs.Exists {
		return nil, errors.New("no manifest.json (the run was interrupted before its journal was written, or it was removed)")
	}
	var env envelope
	if err := json.Unmarshal(fs.Content, &env); err != nil {
		return nil, fmt.Errorf("manifest.json is not valid JSON (truncated?): %w", err)
	}
	var m Manifest
	if env.Format == "" {
		// Version 1: the manifest itself, no checksum.
		if err := json.Unmarshal(fs.Content, &m); err != nil {
			return nil, fmt.Errorf("manifest.json is not a nastune journal: %w", err)
		}
		if m.ID == "" {
			return nil, errors.New("manifest.json is not a nastune journal: no run id")
		}
		m.Version = 1
		for i := range m.Steps {
			s := &m.Steps[i]
			if s.Done {
				s.State = StepApplied
			}
		}
		return &m, nil
	}
	if env.Format != journalFormat || env.Version != journalVersion {
		return nil, fmt.Errorf("manifest.json: unknown format %q version %d (written by a newer nastune?)", env.Format, env.Version)
	}
	s := sha256.Sum256(env.Body)
	if hex.EncodeToString(s[:]) != env.SHA256 {
		return nil, errors.New("manifest.json does not match its sha256: damaged or edited")
	}
	if err := json.Unmarshal(env.Body, &m); err != nil {
		return nil, fmt.Errorf("manifest.json body: %w", err)
	}
	return &m, nil
}

// List returns the recorded runs in order, damaged ones included (State
// "damaged", Error saying why).
func List(o Options) ([]Manifest, error) {
	o.defaults()
	return list(&o)
}

func list(o *Options) ([]Manifest, error) {
	ents, err := os.ReadDir(o.runsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Manifest
	for _, e := range ents {
		if !e.IsDir() || !validRunID(e.Name()) {
			continue
		}
		m, err := readManifest(filepath.Join(o.runsDir(), e.Name()))
		if err != nil {
			out = append(out, Manifest{ID: e.Name(), State: StateDamaged, Error: err.Error()})
			continue
		}
		if m.ID != e.Name() {
			out = append(out, Manifest{ID: e.Name(), State: StateDamaged, Error: fmt.Sprintf("manifest.json names run %q", m.ID)})
			continue
		}
		out = append(out, *m)
	}
	sortRuns(out)
	return out, nil
}

// nextID allocates the next run ID (caller holds the lock): one more than
// the highest sequence ever used, kept in runs/.seq and in the run names.
func nextID(o *Options) (string, error) {
	n := 0
	if b, err := os.ReadFile(filepath.Join(o.runsDir(), ".seq")); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	ents, _ := os.ReadDir(o.runsDir())
	for _, e := range ents {
		n = max(n, seqOf(e.Name()))
	}
	n++
	if err := writeFile("/", filepath.Join(o.runsDir(), ".seq"), []byte(strconv.Itoa(n)+"\n"),
		&FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}, expect{any: true}, nil); err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	return fmt.Sprintf("%06d-%s", n, o.Now().UTC().Format("20060102-150405")), nil
}

// ErrBadRunID: the argument is not shaped like a run ID.
var ErrBadRunID = errors.New("not a run ID")

const incomingPrefix = ".incoming-"

// publish renames a prepared run folder into place and makes it durable.
func publish(dir, final string) error {
	if err := os.Rename(dir, final); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(final))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeIncoming removes run folders a killed apply was preparing (caller
// holds the lock): nothing was changed for them; and half-removed
// discarded ones.
func removeIncoming(o *Options) {
	ents, _ := os.ReadDir(o.runsDir())
	for _, e := range ents {
		if e.IsDir() && (strings.HasPrefix(e.Name(), incomingPrefix) || strings.HasPrefix(e.Name(), ".discarded-")) {
			os.RemoveAll(filepath.Join(o.runsDir(), e.Name()))
		}
	}
}

// Discard removes a run's journal without restoring anything: the way out
// for a damaged run (or one the admin has restored by hand).
func Discard(id string, o Options) error {
	o.defaults()
	if !validRunID(id) {
		return fmt.Errorf("%w: %q (nastune undo --list shows them)", ErrBadRunID, id)
	}
	if _, err := os.Lstat(filepath.Join(o.runsDir(), id)); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	l, err := lock(&o)
	if err != nil {
		return err
	}
	defer l.unlock()
	dir := filepath.Join(o.runsDir(), id)
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	// Rename first so a half-removed folder never looks like a run.
	gone := filepath.Join(o.runsDir(), safefile.RandomName(".discarded-"+id+"-"))
	if err := os.Rename(dir, gone); err != nil {
		return err
	}
	return os.RemoveAll(gone)
}

// allowed says whether undo may touch p: only what nastune writes — its
// own sysctl.d, udev and modprobe files, Samba and NFS configuration, the
// admin's sysctl files in /etc (lines plan comments out), and single
// /proc/sys and /sys attributes.
func allowed(kind, p string) bool {
	if p == "" || !path.IsAbs(p) || path.Clean(p) != p || strings.ContainsAny(p, "\x00\n") {
		return false
	}
	switch kind {
	case "value":
		return (strings.HasPrefix(p, "/proc/sys/") || strings.HasPrefix(p, "/sys/") || p == "/proc/fs/nfsd/threads") && strings.Count(p, "/") >= 3
	case "file":
		switch p {
		case "/etc/sysctl.d/90-nastune.conf", "/etc/udev/rules.d/90-nastune.rules", "/etc/udev/rules.d/90-nastune-erc.rules", "/etc/modprobe.d/90-nastune.conf",
			"/etc/nfs.conf", "/etc/default/nfs-kernel-server", "/etc/smb.conf", "/etc/samba/smb.conf":
			return true
		}
		if strings.HasPrefix(p, "/etc/samba/") || strings.HasPrefix(p, "/usr/local/samba/etc/") || strings.HasPrefix(p, "/etc/nfs.conf.d/") {
			return true
		}
		// The admin's sysctl files, where a line would override nastune's
		// at boot (plan comments it out).
		if p == "/etc/sysctl.conf" || (path.Dir(p) == "/etc/sysctl.d" && strings.HasSuffix(p, ".conf")) {
			return true
		}
		// The admin's modprobe.d files, where an option would override
		// nastune's when the module loads (plan takes it out).
		if path.Dir(p) == "/etc/modprobe.d" && strings.HasSuffix(p, ".conf") {
			return true
		}
		return path.Base(p) == "smb.conf" && strings.HasPrefix(p, "/etc/")
	}
	return false
}

// checkSteps refuses a journal whose steps reach outside what nastune
// writes or whose backups point outside the run folder.
func checkSteps(m *Manifest) error {
	for _, s := range m.Steps {
		switch s.Kind {
		case "value", "file":
			if !allowed(s.Kind, s.Path) {
				return fmt.Errorf("step %s %q is not a path nastune writes: refusing the journal", s.Kind, s.Path)
			}
			if s.Real != "" && s.Real != s.Path && !safeReal(s.Real) {
				return fmt.Errorf("step %q: link target %q is not a plausible config path: refusing the journal", s.Path, s.Real)
			}
		case "command":
			if err := checkCommand(s); err != nil {
				return err
			}
		case "group":
			for _, mb := range s.Members {
				if !allowed("value", mb.Path) {
					return fmt.Errorf("step group %q is not a path nastune writes: refusing the journal", mb.Path)
				}
			}
		default:
			return fmt.Errorf("unknown step kind %q", s.Kind)
		}
		for _, b := range []string{s.Backup, s.AfterCopy} {
			if b != "" && (!strings.HasPrefix(b, "files/") || strings.Count(b, "/") != 1 || strings.Contains(b, "..")) {
				return fmt.Errorf("step %q: backup %q is outside the run folder: refusing the journal", s.Path, b)
			}
		}
	}
	return nil
}

// safeReal: a symlinked config's target may live elsewhere, but never in
// the journal, /proc, /sys or /dev.
func safeReal(p string) bool {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return false
	}
	for _, bad := range []string{"/proc/", "/sys/", "/dev/", "/var/lib/nastune/", "/boot/"} {
		if strings.HasPrefix(p, bad) {
			return false
		}
	}
	return true
}
