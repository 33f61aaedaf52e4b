// Package apply is the only part of nastune that changes the system. It
// carries out a plan.Plan and can undo it.
//
// Every run has a journal under StateDir/runs/RUN_ID: manifest.json lists
// each step with the value or file it replaces (file backups are copied
// into the run folder with their sha256), and it is written and fsynced
// before the first change and again after each one. Files are replaced by
// write-to-temp, fsync, rename, fsync of the folder: a reader sees the old
// or the new file, never half of one. If a step fails, the steps already
// done are rolled back at once. If the process dies between two steps, the
// run stays "in-progress" and `nastune undo` restores everything from the
// journal; apply refuses to start while such a run exists.
//
// Re-applying an applied plan finds nothing to change and records no run.
package apply

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/parse/svcconf"
	"github.com/nastune/nastune/internal/plan"
)

// Options of a run.
type Options struct {
	// Root prefixes every path (tests apply to a scratch tree); "/" for
	// the live system.
	Root string
	// StateDir holds the journals (default /var/lib/nastune, under Root).
	StateDir string
	// Validate checks a config file's new content before it replaces the
	// old one (testparm for smb.conf); an error changes nothing.
	Validate func(path string, content []byte) error
	// FaultAfter, when > 0, stops the process abruptly after that many
	// steps (crash testing: NASTUNE_FAULT_AFTER).
	FaultAfter int
	Now        func() time.Time
	// failAt makes step failAt fail (tests of the rollback path).
	failAt int
}

func (o *Options) defaults() {
	if o.Root == "" {
		o.Root = "/"
	}
	if o.StateDir == "" {
		o.StateDir = "/var/lib/nastune"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

func (o *Options) path(p string) string { return filepath.Join(o.Root, p) }

func (o *Options) runsDir() string { return o.path(filepath.Join(o.StateDir, "runs")) }

// Run states.
const (
	StateInProgress     = "in-progress"
	StateComplete       = "complete"
	StateRolledBack     = "rolled-back"
	StateUndoInProgress = "undo-in-progress"
	StateUndone         = "undone"
)

// Step is one write: a runtime value, or a whole file.
type Step struct {
	Change string `json:"change"` // plan change ID(s) it serves, comma-separated
	Kind   string `json:"kind"`   // value or file
	Path   string `json:"path"`
	// Before is the runtime value (value steps); for files Existed,
	// Backup (relative to the run folder) and BeforeSHA describe the old
	// file.
	Before    string `json:"before,omitempty"`
	Existed   bool   `json:"existed,omitempty"`
	Backup    string `json:"backup,omitempty"`
	BeforeSHA string `json:"before_sha256,omitempty"`
	After     string `json:"after,omitempty"` // value, or sha256 of the new file
	Done      bool   `json:"done"`
	content   []byte
}

// Manifest is a run's journal.
type Manifest struct {
	ID       string   `json:"id"`
	Started  string   `json:"started"`
	Finished string   `json:"finished,omitempty"`
	State    string   `json:"state"`
	Changes  []string `json:"changes"` // human summary, one per plan change
	Steps    []Step   `json:"steps"`
	Error    string   `json:"error,omitempty"`
}

// ErrNothingToDo means the plan changes nothing on this system.
var ErrNothingToDo = errors.New("nothing to change: the system already matches the plan")

// ErrIncomplete means an earlier run did not finish.
var ErrIncomplete = errors.New("an earlier run did not finish")

// Apply carries out the plan and returns its journal.
func Apply(p plan.Plan, o Options) (*Manifest, error) {
	o.defaults()
	if id, err := incomplete(o); err != nil {
		return nil, err
	} else if id != "" {
		return nil, fmt.Errorf("%w: run %s; undo it first (nastune undo %s)", ErrIncomplete, id, id)
	}
	steps, summary, err := buildSteps(p, o)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, ErrNothingToDo
	}
	m := &Manifest{ID: o.Now().UTC().Format("20060102-150405") + "-" + randHex(), Started: o.Now().UTC().Format(time.RFC3339),
		State: StateInProgress, Changes: summary, Steps: steps}
	dir := filepath.Join(o.runsDir(), m.ID)
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// Record every before-value and back up every file before touching
	// anything.
	for i := range m.Steps {
		if err := recordBefore(&m.Steps[i], dir, o); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := writeManifest(dir, m); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for i := range m.Steps {
		if o.FaultAfter > 0 && i == o.FaultAfter {
			fmt.Fprintf(os.Stderr, "nastune: fault injection: stopping after %d steps\n", i)
			os.Exit(99)
		}
		err := perform(&m.Steps[i], o)
		if o.failAt > 0 && i == o.failAt {
			err = errors.New("injected failure")
		}
		if err != nil {
			m.Error = fmt.Sprintf("%s %s: %v", m.Steps[i].Kind, m.Steps[i].Path, err)
			// The failing step may have partly happened (a rename done, the
			// folder fsync failed): restore it too; restoring a step that did
			// not happen writes the old value back, harmlessly.
			rbErr := restore(m, dir, o, i+1)
			m.State = StateRolledBack
			m.Finished = o.Now().UTC().Format(time.RFC3339)
			if werr := writeManifest(dir, m); werr != nil {
				rbErr = errors.Join(rbErr, werr)
			}
			if rbErr != nil {
				return m, fmt.Errorf("%s; rolling back also failed: %w (journal %s)", m.Error, rbErr, dir)
			}
			return m, fmt.Errorf("%s; the %d earlier change(s) were rolled back", m.Error, i)
		}
		m.Steps[i].Done = true
		if err := writeManifest(dir, m); err != nil {
			return m, err
		}
	}
	m.State = StateComplete
	m.Finished = o.Now().UTC().Format(time.RFC3339)
	return m, writeManifest(dir, m)
}

// Undo restores the run with id ("" for the newest run not undone).
func Undo(id string, o Options) (*Manifest, error) {
	o.defaults()
	if id == "" {
		runs, err := List(o)
		if err != nil {
			return nil, err
		}
		for i := len(runs) - 1; i >= 0; i-- {
			if runs[i].State != StateUndone && runs[i].State != StateRolledBack {
				id = runs[i].ID
				break
			}
		}
		if id == "" {
			return nil, errors.New("no run to undo (nastune undo --list shows them)")
		}
	}
	dir := filepath.Join(o.runsDir(), filepath.Base(id))
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	if m.State == StateUndone || m.State == StateRolledBack {
		return m, fmt.Errorf("run %s is already %s", id, m.State)
	}
	// A step not marked done may still have happened just before a crash:
	// restore up to and including the first step not marked done.
	upto := 0
	for i, s := range m.Steps {
		if s.Done {
			upto = i + 1
		}
	}
	if m.State == StateInProgress || m.State == StateUndoInProgress {
		upto = min(upto+1, len(m.Steps))
	}
	m.State = StateUndoInProgress
	if err := writeManifest(dir, m); err != nil {
		return m, err
	}
	if err := restore(m, dir, o, upto); err != nil {
		return m, fmt.Errorf("undo %s: %w (journal %s; run undo again after fixing it)", id, err, dir)
	}
	m.State = StateUndone
	m.Finished = o.Now().UTC().Format(time.RFC3339)
	return m, writeManifest(dir, m)
}

// restore undoes steps [0, n) in reverse order.
func restore(m *Manifest, dir string, o Options, n int) error {
	var errs []string
	for i := n - 1; i >= 0; i-- {
		s := &m.Steps[i]
		var err error
		switch s.Kind {
		case "value":
			err = writeValue(o.path(s.Path), s.Before)
		case "file":
			if !s.Existed {
				err = os.Remove(o.path(s.Path))
				if errors.Is(err, os.ErrNotExist) {
					err = nil
				}
				break
			}
			var b []byte
			if b, err = os.ReadFile(filepath.Join(dir, s.Backup)); err == nil {
				if sha(b) != s.BeforeSHA {
					err = fmt.Errorf("backup %s does not match its recorded sha256", s.Backup)
				} else {
					err = atomicWrite(o.path(s.Path), b)
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", s.Path, err))
			continue
		}
		s.Done = false
		if err := writeManifest(dir, m); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// List returns the recorded runs, oldest first.
func List(o Options) ([]Manifest, error) {
	o.defaults()
	ents, err := os.ReadDir(o.runsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Manifest
	for _, e := range ents {
		if m, err := readManifest(filepath.Join(o.runsDir(), e.Name())); err == nil {
			out = append(out, *m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func incomplete(o Options) (string, error) {
	runs, err := List(o)
	if err != nil {
		return "", err
	}
	for _, r := range runs {
		if r.State == StateInProgress || r.State == StateUndoInProgress {
			return r.ID, nil
		}
	}
	return "", nil
}

// buildSteps turns changes into steps: runtime values first, then one
// whole-file step per file (nastune's own files rewritten with every line
// they should hold; user config files edited minimally and validated).
func buildSteps(p plan.Plan, o Options) ([]Step, []string, error) {
	var steps []Step
	var summary []string
	owned := map[string][]string{}
	ownedBy := map[string][]string{}
	edits := map[string][]plan.Change{}
	var editOrder []string
	for _, c := range p.Changes {
		summary = append(summary, fmt.Sprintf("%s %s: %s → %s", c.Kind, c.Target, c.From, c.To))
		if c.Runtime != "" {
			cur, err := readValue(o.path(c.Runtime))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", c.Runtime, err)
			}
			if normalize(cur) != normalize(c.To) {
				steps = append(steps, Step{Change: c.ID, Kind: "value", Path: c.Runtime, After: c.To})
			}
		}
		if c.Persist == nil {
			continue
		}
		if c.Persist.Line != "" {
			owned[c.Persist.File] = append(owned[c.Persist.File], c.Persist.Line)
			ownedBy[c.Persist.File] = append(ownedBy[c.Persist.File], c.ID)
			continue
		}
		if _, ok := edits[c.Persist.File]; !ok {
			editOrder = append(editOrder, c.Persist.File)
		}
		edits[c.Persist.File] = append(edits[c.Persist.File], c)
	}
	files := make([]string, 0, len(owned))
	for f := range owned {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		old, _ := os.ReadFile(o.path(f))
		content := ownedContent(f, old, owned[f])
		if string(content) != string(old) {
			steps = append(steps, Step{Change: strings.Join(ownedBy[f], ","), Kind: "file", Path: f, After: sha(content), content: content})
		}
	}
	for _, f := range editOrder {
		old, err := os.ReadFile(o.path(f))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		content := old
		var ids []string
		for _, c := range edits[f] {
			e := c.Persist.Edit
			switch e.Format {
			case "smbconf":
				if content, err = smbconf.Set(content, e.Section, e.Key, e.Value); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", f, err)
				}
			case "ini":
				content = svcconf.SetINI(content, e.Section, e.Key, e.Value)
			case "shellvar":
				content = svcconf.SetShellVar(content, e.Key, e.Value)
			default:
				return nil, nil, fmt.Errorf("%s: unknown edit format %q", f, e.Format)
			}
			ids = append(ids, c.ID)
		}
		if string(content) == string(old) {
			continue
		}
		if o.Validate != nil {
			if err := o.Validate(f, content); err != nil {
				return nil, nil, fmt.Errorf("the edited %s does not validate, nothing was changed: %w", f, err)
			}
		}
		steps = append(steps, Step{Change: strings.Join(ids, ","), Kind: "file", Path: f, After: sha(content), content: content})
	}
	return steps, summary, nil
}

const ownedHeader = "# Managed by nastune: written by `nastune apply`, removed by `nastune undo`.\n# Edit at your own risk; `nastune undo` restores the state before each run.\n"

// ownedContent merges new lines into a file nastune owns: a line with the
// same key (sysctl key, udev match, modprobe option) replaces the old one.
func ownedContent(file string, old []byte, lines []string) []byte {
	keyOf := func(l string) string {
		switch {
		case strings.HasSuffix(file, ".rules"):
			if i := strings.LastIndex(l, "ATTR{"); i > 0 {
				if j := strings.Index(l[i:], "}="); j > 0 {
					return l[:i+j]
				}
			}
		case strings.HasPrefix(l, "options "):
			if i := strings.IndexByte(l, '='); i > 0 {
				return l[:i]
			}
		default:
			if k, _, ok := strings.Cut(l, "="); ok {
				return strings.TrimSpace(k)
			}
		}
		return l
	}
	var keep []string
	seen := map[string]bool{}
	for _, l := range lines {
		seen[keyOf(l)] = true
	}
	for _, l := range strings.Split(string(old), "\n") {
		if l == "" || strings.HasPrefix(l, "#") || seen[keyOf(l)] {
			continue
		}
		keep = append(keep, l)
	}
	all := append(keep, lines...)
	return []byte(ownedHeader + strings.Join(all, "\n") + "\n")
}

func recordBefore(s *Step, dir string, o Options) error {
	switch s.Kind {
	case "value":
		v, err := readValue(o.path(s.Path))
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		s.Before = v
	case "file":
		b, err := os.ReadFile(o.path(s.Path))
		switch {
		case errors.Is(err, os.ErrNotExist):
			s.Existed = false
		case err != nil:
			return fmt.Errorf("backing up %s: %w", s.Path, err)
		default:
			s.Existed = true
			s.BeforeSHA = sha(b)
			s.Backup = filepath.Join("files", strings.ReplaceAll(strings.TrimPrefix(s.Path, "/"), "/", "%"))
			if err := atomicWrite(filepath.Join(dir, s.Backup), b); err != nil {
				return fmt.Errorf("backing up %s: %w", s.Path, err)
			}
		}
	}
	return nil
}

func perform(s *Step, o Options) error {
	switch s.Kind {
	case "value":
		return writeValue(o.path(s.Path), s.After)
	case "file":
		if err := os.MkdirAll(filepath.Dir(o.path(s.Path)), 0o755); err != nil {
			return err
		}
		return atomicWrite(o.path(s.Path), s.content)
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}

// readValue reads a sysctl or sysfs attribute; a bracketed choice list
// (queue/scheduler) reads as its active entry.
func readValue(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if i := strings.IndexByte(v, '['); i >= 0 {
		if j := strings.IndexByte(v[i:], ']'); j > 0 {
			return v[i+1 : i+j], nil
		}
	}
	return strings.Join(strings.Fields(v), " "), nil
}

func normalize(v string) string { return strings.Join(strings.Fields(v), " ") }

// writeValue writes a runtime attribute in one write(2), as the kernel
// wants for /proc/sys and /sys.
func writeValue(p, v string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(v + "\n")); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// atomicWrite replaces p: temp file in the same folder, fsync, rename,
// fsync of the folder. The new file keeps the old one's mode.
func atomicWrite(p string, b []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".nastune-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(p))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, "manifest.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	return nil
}

func readManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	return &m, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func randHex() string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux; a zero suffix is still unique enough with the timestamp
	return hex.EncodeToString(b[:])
}

// FileChange is one file a plan would write, with its old and new content.
type FileChange struct {
	Path       string
	Old, New   []byte
	OldExisted bool
}

// ValueChange is one runtime value a plan would write.
type ValueChange struct {
	Path, From, To string
}

// Preview computes what Apply would write, without writing.
func Preview(p plan.Plan, o Options) ([]ValueChange, []FileChange, error) {
	o.defaults()
	steps, _, err := buildSteps(p, o)
	if err != nil {
		return nil, nil, err
	}
	var vals []ValueChange
	var files []FileChange
	for _, s := range steps {
		switch s.Kind {
		case "value":
			cur, _ := readValue(o.path(s.Path))
			vals = append(vals, ValueChange{Path: s.Path, From: cur, To: s.After})
		case "file":
			old, err := os.ReadFile(o.path(s.Path))
			files = append(files, FileChange{Path: s.Path, Old: old, New: s.content, OldExisted: err == nil})
		}
	}
	return vals, files, nil
}
