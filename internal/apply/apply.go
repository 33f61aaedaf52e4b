// Package apply is the only part of nastune that changes the system. It
// carries out a plan.Plan and can undo it, safely on a machine other
// people and programs also change.
//
// One at a time: apply and undo hold an exclusive lock on the journal
// folder (StateDir/runs); a second one says "another nastune apply is
// running (pid N)" or, with Wait, waits and then plans again from what is
// on disk, so nothing planned before the wait is stale.
//
// Journal first: every run has a journal under StateDir/runs/RUN_ID
// (RUN_ID = SEQ-YYYYMMDD-HHMMSS, ordered by the sequence). manifest.json
// (versioned, with its sha256) lists each step with its state (pending,
// applying, applied, …), the value or file it replaces and what it wrote:
// file backups and copies of the new content sit in the run folder, with
// owner, group, mode and xattrs. The journal is written and fsynced before
// each change; if that fails, the change is not made and the run is rolled
// back. A failing step rolls back the steps done, recording the state of
// each: a rollback that could not finish leaves the run
// "rollback-incomplete" and undo finishes it.
//
// Root-safe writes (safefs.go): paths are walked per component with
// O_NOFOLLOW by safefile's walker, trusted links (theirs and their
// folder's owner root or us) are followed inside the root (a symlinked
// smb.conf keeps its link, its target is edited), temp files are
// O_EXCL|O_NOFOLLOW with random names next to the target, and the target
// is compared with what was planned just before the rename.
//
// Undo restores exactly (bytes and metadata) when a file still holds what
// apply wrote. When someone edited it since, undo reverses our hunk with a
// three-way merge if their edit touches other lines, else it refuses with
// a ConflictError showing the diff (Force overrides). Coupled sysctls
// (vm.dirty_bytes/vm.dirty_ratio and the background pair: the kernel
// zeroes one when the other is written) are journaled as one group and
// restored in the order the kernel accepts; every runtime value is read
// back after apply and after undo. Undo only touches the paths its run
// recorded, and only paths nastune writes.
//
// Re-applying an applied plan finds nothing to change and records no run.
package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/parse/modprobed"
	"github.com/nastune/nastune/internal/parse/sysctlconf"
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
	// ReadFile, when set, is how Preview reads what is there now: every
	// file and runtime value its steps start from, as an absolute path of
	// the machine (the CLI reads a --root tree through hostfs, which
	// resolves links inside the tree, opens regular files only and
	// redacts). A missing file is an error matching fs.ErrNotExist. Apply
	// and Undo never use it: what they change and journal they read with
	// their own walker (safefs.go), which is also Preview's without it.
	ReadFile func(path string) ([]byte, error)
	// Wait for another apply or undo to finish instead of failing with a
	// BusyError; Waiting (optional) is told once, with the holder's pid.
	Wait    bool
	Waiting func(pid int)
	Context context.Context
	// Replan, when set, is called once the lock is held; the changes it
	// returns replace the plan's, restricted to the change IDs of the plan
	// the caller confirmed.
	Replan func() (plan.Plan, error)
	// Force makes undo restore files and values changed since the apply
	// (their later edits are lost).
	Force bool
	// Confirm > 0 arms the run (apply --confirm): confirm.json with the
	// deadline (Confirm after the last step) is written with the first
	// journal, before any change, and this process holds the run's
	// watchdog lock until StartWatchdog hands it over (confirm.go).
	Confirm time.Duration
	Now     func() time.Time
	// Tune names the tune run a run belongs to (its trials and the run
	// that persists what it kept); `undo --list` shows them as one entry.
	Tune string

	// test hooks
	hostCommands bool                     // run command steps (smartctl) with Root != "/"
	failAt       int                      // step failAt fails
	journalFault func(*Manifest) error    // called before each journal write
	pause        func(stage string)       // called between operations (kill tests)
	beforeRename func(real string)        // called just before a file's rename
	afterStep    func(i int, m *Manifest) // called after step i is done
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

// currentFile reads the file p as it is now, through ReadFile when set.
func (o *Options) currentFile(p string) (*fileState, error) {
	if o.ReadFile == nil {
		return readFile(o.Root, p, false)
	}
	b, err := o.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &fileState{Real: path.Clean(p)}, nil
	}
	if err != nil {
		return nil, err
	}
	return &fileState{Exists: true, Content: b, Real: path.Clean(p)}, nil
}

// currentValue reads the runtime value at p, through ReadFile when set.
func (o *Options) currentValue(p string) (string, error) {
	if o.ReadFile == nil {
		return readValue(o.Root, p)
	}
	b, err := o.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		// A preview of a captured tree (or a plan for an attribute the
		// kernel does not offer now): show the change, never fail on it.
		// Apply itself reads without the hook and refuses a missing target.
		return Absent, nil
	}
	if err != nil {
		return "", err
	}
	return valueOf(b), nil
}

// Absent is the current value a preview shows for a runtime attribute that
// the tree it reads does not hold (captures keep only what audit read).
const Absent = "(absent)"

// crashPoint, when set (the nastune_faults build only), is called at every
// stage Options.at marks.
var crashPoint func(stage string)

func (o *Options) runsDir() string { return filepath.Join(o.Root, o.StateDir, "runs") }

// at marks a stage of a run (a crash point): tests pause or kill the
// process there, and the nastune_faults build kills itself at the stage
// NASTUNE_CRASH_AT names (faults.go). Release builds have no crash points.
func (o *Options) at(stage string) {
	if o.pause != nil {
		o.pause(stage)
	}
	if crashPoint != nil {
		crashPoint(stage)
	}
}

// Run states.
const (
	StateInProgress         = "in-progress"
	StateComplete           = "complete"
	StateRolledBack         = "rolled-back"
	StateRollbackIncomplete = "rollback-incomplete"
	StateUndoInProgress     = "undo-in-progress"
	StateUndone             = "undone"
	StateDamaged            = "damaged"
)

// Step states.
const (
	StepPending       = "pending"
	StepApplying      = "applying" // journaled as about to change: may have happened
	StepApplied       = "applied"
	StepFailed        = "failed" // the change failed, perhaps halfway
	StepRestoring     = "restoring"
	StepRestored      = "restored"
	StepRestoreFailed = "restore-failed"
)

// Step is one write: a runtime value, a group of coupled values, or a
// whole file.
type Step struct {
	Change string `json:"change"` // plan change ID(s) it serves, comma-separated
	Kind   string `json:"kind"`   // value, group, file or command
	Path   string `json:"path"`
	// Command is what a command step runs ("scterc"; Path is the disk).
	Command string `json:"command,omitempty"`
	// Real is the file written when Path is a symbolic link (its target).
	Real string `json:"real,omitempty"`
	// Before is the runtime value (value steps); for files Existed,
	// Backup (relative to the run folder), BeforeSHA and Meta describe
	// the old file.
	Before    string    `json:"before,omitempty"`
	Existed   bool      `json:"existed,omitempty"`
	Backup    string    `json:"backup,omitempty"`
	BeforeSHA string    `json:"before_sha256,omitempty"`
	Meta      *FileMeta `json:"meta,omitempty"`
	// After is the value read back after the write, or the sha256 of the
	// new file, whose copy is AfterCopy (for three-way merges on undo).
	After     string   `json:"after,omitempty"`
	AfterCopy string   `json:"after_copy,omitempty"`
	Members   []Member `json:"members,omitempty"`
	State     string   `json:"state,omitempty"`
	Done      bool     `json:"done,omitempty"` // version 1 journals
	content   []byte
}

// Member is one value of a coupled group.
type Member struct {
	Path   string `json:"path"`
	Before string `json:"before"`
	Set    string `json:"set,omitempty"`   // written by apply ("" = only journaled)
	After  string `json:"after,omitempty"` // read back after apply
}

// Manifest is a run's journal.
type Manifest struct {
	Version  int      `json:"version"`
	ID       string   `json:"id"`
	Started  string   `json:"started"`
	Finished string   `json:"finished,omitempty"`
	State    string   `json:"state"`
	PID      int      `json:"pid,omitempty"` // for people: never read as liveness (a pid is reused)
	Changes  []string `json:"changes"`       // human summary, one per plan change
	Steps    []Step   `json:"steps"`
	Error    string   `json:"error,omitempty"`
	// Tune is the tune run this run belongs to (Options.Tune).
	Tune string `json:"tune,omitempty"`
}

// ErrNothingToDo means the plan changes nothing on this system.
var ErrNothingToDo = errors.New("nothing to change: the system already matches the plan")

// ErrIncomplete means an earlier run did not finish (or is damaged).
var ErrIncomplete = errors.New("an earlier run did not finish")

// blocking says whether a run in this state blocks the next apply.
func blocking(state string) bool {
	switch state {
	case StateInProgress, StateUndoInProgress, StateRollbackIncomplete, StateDamaged:
		return true
	}
	return false
}

// Apply carries out the plan and returns its journal.
func Apply(p plan.Plan, o Options) (*Manifest, error) {
	o.defaults()
	o.ReadFile = nil // writes start from what the walker reads (see Options.ReadFile)
	l, err := lock(&o)
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	runs, err := list(&o)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.State == StateDamaged {
			return nil, fmt.Errorf("%w: run %s is damaged (%s); look at %s, then remove its journal with: nastune undo --discard %s",
				ErrIncomplete, r.ID, r.Error, filepath.Join(o.runsDir(), r.ID), r.ID)
		}
		if blocking(r.State) {
			return nil, fmt.Errorf("%w: run %s is %s; finish it first (nastune undo %s)", ErrIncomplete, r.ID, r.State, r.ID)
		}
	}
	if o.Replan != nil {
		np, err := o.Replan()
		if err != nil {
			return nil, fmt.Errorf("planning again after taking the lock: %w", err)
		}
		confirmed := map[string]bool{}
		for _, c := range p.Changes {
			confirmed[c.ID] = true
		}
		p = plan.Plan{}
		for _, c := range np.Changes {
			if confirmed[c.ID] {
				p.Changes = append(p.Changes, c)
			}
		}
	}
	steps, summary, err := buildSteps(p, &o)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, ErrNothingToDo
	}
	for _, s := range steps {
		if s.Kind == "file" {
			sweepTemps(o.Root, s.Path)
		}
	}
	id, err := nextID(&o)
	if err != nil {
		return nil, err
	}
	m := &Manifest{ID: id, Started: o.Now().UTC().Format(time.RFC3339), State: StateInProgress, PID: os.Getpid(), Changes: summary, Steps: steps, Tune: o.Tune}
	// The run is prepared in a hidden folder and renamed into place once
	// its first journal is written: a run killed before that leaves no
	// run without a manifest, and changes nothing.
	removeIncoming(&o)
	final := filepath.Join(o.runsDir(), m.ID)
	dir := filepath.Join(o.runsDir(), incomingPrefix+m.ID)
	if err := os.MkdirAll(filepath.Join(dir, "files"), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// Record every before-value and back up every file before touching
	// anything; a failure here changes nothing.
	for i := range m.Steps {
		if err := recordBefore(&m.Steps[i], i, dir, &o); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := checkSteps(m); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := writeManifest(dir, m, &o); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	if o.Confirm > 0 {
		// Armed before any change: a run killed halfway is reverted
		// after its deadline like one never confirmed.
		fd, held, err := tryFlock(filepath.Join(dir, watchLockName), true)
		if err == nil && held {
			err = errors.New("held by another process")
		}
		if err == nil {
			keepWatch(m.ID, fd)
			err = writeConfirmAt(dir, ConfirmState{Deadline: o.Now().Add(o.Confirm).UTC(), State: ConfirmPending})
		}
		if err != nil {
			ReleaseWatch(m.ID)
			os.RemoveAll(dir)
			return nil, fmt.Errorf("arming the confirmation: %w; nothing was changed", err)
		}
	}
	if err := publish(dir, final); err != nil {
		ReleaseWatch(m.ID)
		os.RemoveAll(dir)
		return nil, fmt.Errorf("journal: %w; nothing was changed", err)
	}
	dir = final
	o.at("journaled")
	for i := range m.Steps {
		s := &m.Steps[i]
		s.State = StepApplying
		if err := writeManifest(dir, m, &o); err != nil {
			s.State = StepPending // not changed
			return m, rollback(m, dir, &o, i, i, fmt.Sprintf("journaling step %d (%s): %v; the change was not made", i+1, s.Path, err))
		}
		o.at("before-step")
		err := perform(s, &o)
		if o.failAt > 0 && i == o.failAt {
			err = errors.New("injected failure")
		}
		o.at("after-step")
		if err != nil {
			s.State = StepFailed
			return m, rollback(m, dir, &o, i+1, i, fmt.Sprintf("%s %s: %v", s.Kind, s.Path, err))
		}
		s.State = StepApplied
		if err := writeManifest(dir, m, &o); err != nil {
			return m, rollback(m, dir, &o, i+1, i, fmt.Sprintf("journaling step %d (%s): %v", i+1, s.Path, err))
		}
		if o.afterStep != nil {
			o.afterStep(i, m)
		}
	}
	m.State = StateComplete
	m.Finished = o.Now().UTC().Format(time.RFC3339)
	if err := writeManifest(dir, m, &o); err != nil {
		// Every change is live and journaled as applied; only the final
		// state is missing, which undo handles like an in-progress run.
		return m, fmt.Errorf("all changes applied, but the final journal write failed: %w (undo with: nastune undo %s)", err, m.ID)
	}
	o.at("complete")
	if o.Confirm > 0 {
		// The admin's window starts now that every change is live. A
		// failed write keeps the earlier deadline: sooner, never later.
		_ = writeConfirmAt(dir, ConfirmState{Deadline: o.Now().Add(o.Confirm).UTC(), State: ConfirmPending})
		o.at("armed")
	}
	return m, nil
}

// rollback restores steps [0, n) after step failed failed and records the
// result.
func rollback(m *Manifest, dir string, o *Options, n, failed int, why string) error {
	defer ReleaseWatch(m.ID)
	m.Error = why
	rbErr := restoreSteps(m, dir, o, n, false)
	var je *journalError
	if errors.As(rbErr, &je) {
		m.State = StateRolledBack
		m.Finished = o.Now().UTC().Format(time.RFC3339)
		_ = writeManifest(dir, m, o)
		return fmt.Errorf("%s; the changes were rolled back, but the journal could not record it: %w (nastune undo %s closes the run)", why, je.error, m.ID)
	}
	if rbErr == nil {
		m.State = StateRolledBack
	} else {
		m.State = StateRollbackIncomplete
	}
	m.Finished = o.Now().UTC().Format(time.RFC3339)
	werr := writeManifest(dir, m, o)
	switch {
	case rbErr != nil:
		return fmt.Errorf("%s; rolling back also failed: %w (journal %s; finish with: nastune undo %s)", why, rbErr, dir, m.ID)
	case werr != nil:
		return fmt.Errorf("%s; the changes were rolled back, but the journal could not record it: %w (journal %s)", why, werr, dir)
	}
	if n := countApplied(m, failed); n != 1 {
		return fmt.Errorf("%s; the %d earlier changes were rolled back", why, n)
	}
	return fmt.Errorf("%s; the 1 earlier change was rolled back", why)
}

func countApplied(m *Manifest, n int) int {
	c := 0
	for _, s := range m.Steps[:n] {
		if s.State == StepRestored {
			c++
		}
	}
	return c
}

// buildSteps turns changes into steps: runtime values first (coupled
// sysctls as one group), then one whole-file step per file (nastune's own
// files rewritten with every line they should hold; user config files
// edited minimally and validated).
func buildSteps(p plan.Plan, o *Options) ([]Step, []string, error) {
	var steps []Step
	var summary []string
	owned := map[string][]string{}
	ownedBy := map[string][]string{}
	edits := map[string][]plan.Change{}
	var editOrder []string
	groups := map[string]int{} // group name -> index in steps
	for _, c := range p.Changes {
		summary = append(summary, fmt.Sprintf("%s %s: %s → %s", c.Kind, c.Target, c.From, c.To))
		if c.Command != nil {
			st, err := commandStep(c, o)
			if err != nil {
				return nil, nil, err
			}
			if st != nil {
				steps = append(steps, *st)
			}
		}
		if c.Runtime != "" {
			if !allowed("value", c.Runtime) {
				return nil, nil, fmt.Errorf("%s: not a /proc/sys or /sys attribute; nastune does not write it", c.Runtime)
			}
			cur, err := o.currentValue(c.Runtime)
			if err != nil {
				return nil, nil, err
			}
			if g := coupledGroup(c.Runtime); g != "" {
				i, ok := groups[g]
				if !ok {
					st, err := newGroupStep(g, o)
					if err != nil {
						return nil, nil, err
					}
					steps = append(steps, st)
					i = len(steps) - 1
					groups[g] = i
				}
				st := &steps[i]
				st.Change = joinID(st.Change, c.ID)
				for j := range st.Members {
					if st.Members[j].Path == c.Runtime {
						st.Members[j].Set = c.To
					}
				}
			} else if normalize(cur) != normalize(c.To) {
				steps = append(steps, Step{Change: c.ID, Kind: "value", Path: c.Runtime, After: c.To})
			}
		}
		if c.Persist == nil {
			continue
		}
		if !allowed("file", c.Persist.File) {
			return nil, nil, fmt.Errorf("%s: not a file nastune writes", c.Persist.File)
		}
		if c.Persist.Line != "" {
			if err := checkOwnedLine(c.Persist.File, c.Persist.Line); err != nil {
				return nil, nil, fmt.Errorf("change %s: %w; nothing was changed", c.ID, err)
			}
			owned[c.Persist.File] = append(owned[c.Persist.File], c.Persist.Line)
			ownedBy[c.Persist.File] = append(ownedBy[c.Persist.File], c.ID)
			continue
		}
		if _, ok := edits[c.Persist.File]; !ok {
			editOrder = append(editOrder, c.Persist.File)
		}
		edits[c.Persist.File] = append(edits[c.Persist.File], c)
	}
	// A group whose planned values all hold already is no step.
	kept := steps[:0]
	for _, s := range steps {
		if s.Kind == "group" && !groupNeeded(s) {
			continue
		}
		kept = append(kept, s)
	}
	steps = kept
	files := make([]string, 0, len(owned))
	for f := range owned {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		old, err := o.currentFile(f)
		if err != nil {
			return nil, nil, err
		}
		content := ownedContent(f, old.Content, owned[f])
		if string(content) != string(old.Content) {
			steps = append(steps, Step{Change: strings.Join(ownedBy[f], ","), Kind: "file", Path: f, After: sha(content), content: content})
		}
	}
	for _, f := range editOrder {
		old, err := o.currentFile(f)
		if err != nil {
			return nil, nil, err
		}
		content := old.Content
		var ids []string
		for _, c := range edits[f] {
			e := c.Persist.Edit
			// confsyntax checks the section, key and value against the
			// file's syntax before making the minimal edit.
			switch e.Format {
			case "smbconf":
				content, err = confsyntax.EditSmbConf(content, e.Section, e.Key, e.Value)
			case "ini":
				content, err = confsyntax.EditNFSConf(content, e.Section, e.Key, e.Value)
			case "shellvar":
				content, err = confsyntax.EditShellVar(content, e.Key, e.Value)
			case "sysctl":
				// A user sysctl file that would override nastune's at boot:
				// its lines for the key are commented out (plan.persistence).
				// The key and value go into the comment: the sysctl.d
				// writer's safe set applies to them too.
				var line string
				if line, err = confsyntax.SysctlLine(e.Key, e.Value); err == nil {
					content, _ = sysctlconf.DisableKey(content, e.Key, fmt.Sprintf(
						"nastune: disabled so %s (%s) holds at boot; `nastune undo` restores this line", plan.SysctlFile, line))
				}
			case "modprobe":
				// A user modprobe.d file that would override nastune's
				// option when the module loads: the parameter goes out of
				// its options lines (plan.modprobePersistence). The line
				// in the comment passes the modprobe.d writer's safe set.
				var line string
				if path.Dir(f) != "/etc/modprobe.d" {
					err = fmt.Errorf("the modprobe edit is for /etc/modprobe.d files only")
				} else if line, err = confsyntax.ModprobeOption(e.Section, e.Key, e.Value); err == nil {
					content, _ = modprobed.DisableOption(content, e.Section, e.Key, fmt.Sprintf(
						"nastune: %s taken out so %s (%s) holds when %s loads; `nastune undo` restores this line", e.Key, plan.ModprobeFile, line, e.Section))
				}
			default:
				err = fmt.Errorf("unknown edit format %q", e.Format)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w; nothing was changed", f, err)
			}
			ids = append(ids, c.ID)
		}
		if string(content) == string(old.Content) {
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

func joinID(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

const ownedHeader = "# Managed by nastune: written by `nastune apply`, removed by `nastune undo`.\n# Edit at your own risk; `nastune undo` restores the state before each run.\n"

// checkOwnedLine refuses a line for a file nastune owns that its
// syntax's writer (internal/confsyntax) would not make: nothing reaches a
// rules, sysctl.d or modprobe.d file unless it passes that allowlist here,
// just before it is written, whoever built the plan.
func checkOwnedLine(file, line string) error {
	switch {
	case strings.HasSuffix(file, ".rules"):
		return confsyntax.CheckUdevRule(line)
	case file == plan.SysctlFile:
		_, _, err := confsyntax.ParseSysctlLine(line)
		return err
	case file == plan.ModprobeFile:
		_, err := confsyntax.ModprobeKey(line)
		return err
	}
	return fmt.Errorf("%s: not a file nastune writes lines to", file)
}

// ownedContent merges new lines into a file nastune owns: a line with the
// same key (sysctl key, udev match and assigned key, modprobe option)
// replaces the old one. An old rule the udev writer would not make is
// kept as it is (keyed by its whole text).
func ownedContent(file string, old []byte, lines []string) []byte {
	keyOf := func(l string) string {
		switch {
		case strings.HasSuffix(file, ".rules"):
			if k, ok := confsyntax.UdevRuleKey(l); ok {
				return k
			}
		case strings.HasPrefix(l, "options "):
			if i := strings.IndexByte(l, '='); i > 0 {
				return strings.Join(strings.Fields(l[:i]), " ")
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

// recordBefore journals what step i replaces: the runtime value(s), or a
// backup of the file (bytes and metadata) and a copy of the new content.
func recordBefore(s *Step, i int, dir string, o *Options) error {
	s.State = StepPending
	switch s.Kind {
	case "value":
		v, err := readValue(o.Root, s.Path)
		if err != nil {
			return err
		}
		s.Before = v
	case "group":
		for j := range s.Members {
			v, err := readValue(o.Root, s.Members[j].Path)
			if err != nil {
				return err
			}
			s.Members[j].Before = v
		}
	case "command":
		return recordCommand(s, o)
	case "file":
		fs, err := readFile(o.Root, s.Path, true)
		if err != nil {
			return fmt.Errorf("backing up %s: %w", s.Path, err)
		}
		s.Real = fs.Real
		if !allowed("file", s.Real) && !safeReal(s.Real) {
			return fmt.Errorf("%s leads to %s: refusing to write there", s.Path, s.Real)
		}
		own := &FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}
		base := fmt.Sprintf("files/%02d-%s", i, strings.ReplaceAll(strings.TrimPrefix(s.Path, "/"), "/", "%"))
		if fs.Exists {
			s.Existed = true
			s.BeforeSHA = sha(fs.Content)
			meta := fs.Meta
			s.Meta = &meta
			s.Backup = base + ".before"
			if err := writeFile("/", filepath.Join(dir, s.Backup), fs.Content, own, expect{}, nil); err != nil {
				return fmt.Errorf("backing up %s: %w", s.Path, err)
			}
		}
		s.AfterCopy = base + ".after"
		if err := writeFile("/", filepath.Join(dir, s.AfterCopy), s.content, own, expect{}, nil); err != nil {
			return fmt.Errorf("journaling the new %s: %w", s.Path, err)
		}
	}
	return nil
}

func perform(s *Step, o *Options) error {
	switch s.Kind {
	case "value":
		if err := writeValue(o.Root, s.Path, s.After); err != nil {
			return err
		}
		got, err := readValue(o.Root, s.Path)
		if err != nil {
			return err
		}
		if normalize(got) != normalize(s.After) {
			return fmt.Errorf("wrote %q but it reads back as %q", s.After, got)
		}
		s.After = got
		return nil
	case "group":
		return applyGroup(s, o)
	case "command":
		return setCommand(s, s.After, o)
	case "file":
		if err := mkdirAll(o.Root, s.Real); err != nil {
			return err
		}
		meta := s.Meta
		if meta == nil {
			meta = &FileMeta{Mode: 0o644, UID: os.Geteuid(), GID: os.Getegid()}
		}
		return writeFile(o.Root, s.Path, s.content, meta, expect{exists: s.Existed, sha: s.BeforeSHA}, o.beforeRename)
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}

func normalize(v string) string { return strings.Join(strings.Fields(v), " ") }

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
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
	steps, _, err := buildSteps(p, &o)
	if err != nil {
		return nil, nil, err
	}
	var vals []ValueChange
	var files []FileChange
	for _, s := range steps {
		switch s.Kind {
		case "group":
			for _, m := range s.Members {
				if m.Set != "" {
					vals = append(vals, ValueChange{Path: m.Path, From: m.Before, To: m.Set})
				}
			}
		case "value":
			cur, _ := o.currentValue(s.Path)
			vals = append(vals, ValueChange{Path: s.Path, From: cur, To: s.After})
		case "command":
			vals = append(vals, ValueChange{Path: "smartctl -l scterc " + s.Path, From: s.Before, To: s.After})
		case "file":
			old, err := o.currentFile(s.Path)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, FileChange{Path: s.Path, Old: old.Content, New: s.content, OldExisted: old.Exists})
		}
	}
	return vals, files, nil
}
