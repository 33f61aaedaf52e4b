package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/units"
)

// Conflict is one file or value changed since the apply in a way undo
// cannot merge.
type Conflict struct {
	Path   string
	Reason string
	Diff   string // unified diff from what apply wrote to what is there now
}

// ConflictError: undo changed nothing because of these conflicts.
type ConflictError struct {
	Run       string
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "undo %s: nothing restored: %s changed since the apply and the change cannot be merged:\n", e.Run, units.Count(len(e.Conflicts), "path", "paths"))
	for _, c := range e.Conflicts {
		fmt.Fprintf(&b, "  %s: %s\n", c.Path, c.Reason)
		if c.Diff != "" {
			for _, l := range strings.SplitAfter(strings.TrimSuffix(c.Diff, "\n"), "\n") {
				b.WriteString("    " + l)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("restore anyway (losing those later edits) with: nastune undo --force " + e.Run)
	return b.String()
}

// Undo restores the run with id ("" for the newest run not undone).
func Undo(id string, o Options) (*Manifest, error) {
	o.defaults()
	if id != "" && !validRunID(id) {
		return nil, fmt.Errorf("%w: %q (nastune undo --list shows them)", ErrBadRunID, id)
	}
	if _, err := os.Stat(o.runsDir()); errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("no run to undo: no journal recorded yet")
	}
	l, err := lock(&o)
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	return undoLocked(id, &o)
}

// undoLocked is Undo; the caller holds the journal lock.
func undoLocked(id string, o *Options) (*Manifest, error) {
	runs, err := list(o)
	if err != nil {
		return nil, err
	}
	if id == "" {
		for i := len(runs) - 1; i >= 0; i-- {
			st := runs[i].State
			if st == StateDamaged {
				return nil, fmt.Errorf("the newest run %s is damaged (%s); remove its journal with nastune undo --discard %s, or name the run to undo",
					runs[i].ID, runs[i].Error, runs[i].ID)
			}
			if st != StateUndone && st != StateRolledBack {
				id = runs[i].ID
				break
			}
		}
		if id == "" {
			return nil, errors.New("no run to undo (nastune undo --list shows them)")
		}
	}
	dir := filepath.Join(o.runsDir(), id)
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s is damaged: %w; nothing restored (remove its journal with: nastune undo --discard %s)", id, err, id)
	}
	if m.ID != id {
		return nil, fmt.Errorf("run %s: its manifest names run %q; nothing restored", id, m.ID)
	}
	if m.State == StateUndone || m.State == StateRolledBack {
		return m, fmt.Errorf("run %s is already %s", id, m.State)
	}
	if err := checkSteps(m); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	if m.Version < 2 {
		upgradeV1(m)
	}
	for _, s := range m.Steps {
		if s.Kind == "file" {
			sweepTemps(o.Root, s.Path)
		}
	}
	// Check everything before touching anything.
	var conflicts []Conflict
	for i := range m.Steps {
		if !needsRestore(m.Steps[i].State) {
			continue
		}
		if _, c, err := planRestore(&m.Steps[i], m.Steps[i].State, dir, o, o.Force); err != nil {
			return m, fmt.Errorf("undo %s: %s: %w", id, m.Steps[i].Path, err)
		} else if c != nil {
			conflicts = append(conflicts, *c)
		}
	}
	if len(conflicts) > 0 {
		return m, &ConflictError{Run: id, Conflicts: conflicts}
	}
	o.at("undo-start")
	m.State = StateUndoInProgress
	m.Error = ""
	if err := writeManifest(dir, m, o); err != nil {
		return m, fmt.Errorf("undo %s: %w; nothing restored", id, err)
	}
	o.at("undo-journaled")
	if err := restoreSteps(m, dir, o, len(m.Steps), o.Force); err != nil {
		m.Error = err.Error()
		_ = writeManifest(dir, m, o)
		return m, fmt.Errorf("undo %s: %w (journal %s; run undo again to finish what is left)", id, err, dir)
	}
	o.at("undo-restored")
	m.State = StateUndone
	m.Finished = o.Now().UTC().Format(time.RFC3339)
	return m, writeManifest(dir, m, o)
}

// upgradeV1 gives version-1 steps their states: done ones are applied,
// and in an unfinished run the first one not done may have happened.
func upgradeV1(m *Manifest) {
	last := -1
	for i := range m.Steps {
		if m.Steps[i].Done {
			m.Steps[i].State = StepApplied
			last = i
		} else if m.Steps[i].State == "" {
			m.Steps[i].State = StepPending
		}
	}
	if (m.State == StateInProgress || m.State == StateUndoInProgress) && last+1 < len(m.Steps) {
		m.Steps[last+1].State = StepApplying
	}
}

// uncertain: the step was journaled as about to happen (or failed), so
// its change may or may not have landed.
func uncertain(state string) bool { return state == StepApplying || state == StepFailed }

func needsRestore(state string) bool {
	switch state {
	case StepApplying, StepApplied, StepFailed, StepRestoring, StepRestoreFailed:
		return true
	}
	return false
}

// restoreSteps undoes steps [0, n) in reverse order, recording each
// step's state in the journal as it goes.
func restoreSteps(m *Manifest, dir string, o *Options, n int, force bool) error {
	var errs, jerrs []string
	for i := n - 1; i >= 0; i-- {
		s := &m.Steps[i]
		if !needsRestore(s.State) {
			continue
		}
		prev := s.State
		s.State = StepRestoring
		// The journal already says this step may have happened, so a
		// restore is safe to repeat: a journal that cannot be written
		// (a full /var) does not stop it.
		jerr := writeManifest(dir, m, o)
		o.at("restore")
		err := restoreStep(s, prev, dir, o, force)
		if err != nil {
			s.State = StepRestoreFailed
			errs = append(errs, fmt.Sprintf("%s: %v", s.Path, err))
		} else {
			s.State = StepRestored
			s.Done = false
		}
		if err := writeManifest(dir, m, o); err != nil && jerr == nil {
			jerr = err
		}
		if jerr != nil && len(jerrs) == 0 {
			jerrs = append(jerrs, jerr.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(append(errs, jerrs...), "; "))
	}
	if len(jerrs) > 0 {
		return &journalError{errors.New(jerrs[0])}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// journalError: every step was restored, only the journal could not
// record it.
type journalError struct{ error }

type action int

const (
	actNone action = iota
	actWrite
	actRemove
	actValue
	actGroup
	actCommand
)

type restorePlan struct {
	act     action
	content []byte
	meta    *FileMeta
	want    expect
}

// planRestore decides how to restore a step from what is there now; a
// change made by someone else since the apply is merged or reported.
func planRestore(s *Step, state, dir string, o *Options, force bool) (*restorePlan, *Conflict, error) {
	switch s.Kind {
	case "value":
		cur, err := readValue(o.Root, s.Path)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case normalize(cur) == normalize(s.Before):
			return &restorePlan{act: actNone}, nil, nil
		case normalize(cur) == normalize(s.After) || force || uncertain(state) || state == StepRestoring:
			// A write journaled as under way may have been cut
			// halfway: writing the old value again is always right.
			return &restorePlan{act: actValue}, nil, nil
		}
		return nil, &Conflict{Path: s.Path, Reason: fmt.Sprintf("now %q; nastune set %q and found %q", cur, s.After, s.Before)}, nil
	case "group":
		isBefore, isAfter, cur, err := groupState(s, o)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case isBefore:
			return &restorePlan{act: actNone}, nil, nil
		case isAfter || force || state != StepApplied:
			return &restorePlan{act: actGroup}, nil, nil
		}
		return nil, &Conflict{Path: s.Path, Reason: "changed since the apply: now " + strings.Join(cur, " ")}, nil
	case "file":
		return planRestoreFile(s, state, dir, o, force)
	case "command":
		return planRestoreCommand(s, state, o, force)
	}
	return nil, nil, fmt.Errorf("unknown step kind %q", s.Kind)
}

func planRestoreFile(s *Step, state, dir string, o *Options, force bool) (*restorePlan, *Conflict, error) {
	cur, err := readFile(o.Root, s.Path, true)
	if err != nil {
		return nil, nil, err
	}
	if s.Real != "" && cur.Real != s.Real {
		if !force {
			return nil, &Conflict{Path: s.Path, Reason: fmt.Sprintf("now leads to %s, not %s as at the apply", cur.Real, s.Real)}, nil
		}
	}
	want := expect{exists: cur.Exists, sha: sha(cur.Content)}
	var before []byte
	if s.Existed {
		b, err := os.ReadFile(filepath.Join(dir, s.Backup))
		if err != nil {
			return nil, nil, fmt.Errorf("backup: %w", err)
		}
		if sha(b) != s.BeforeSHA {
			return nil, nil, fmt.Errorf("backup %s does not match its recorded sha256", s.Backup)
		}
		before = b
	}
	meta := s.Meta
	if meta == nil && cur.Exists {
		m := cur.Meta // version-1 journal: keep what the file has now
		meta = &m
	}
	restore := &restorePlan{act: actWrite, content: before, meta: meta, want: want}
	if !s.Existed {
		restore = &restorePlan{act: actRemove, want: want}
	}
	curSHA := sha(cur.Content)
	switch {
	case !cur.Exists && !s.Existed:
		return &restorePlan{act: actNone}, nil, nil
	case cur.Exists && s.Existed && curSHA == s.BeforeSHA:
		if metaEqual(cur.Meta, meta) {
			return &restorePlan{act: actNone}, nil, nil
		}
		return restore, nil, nil // the bytes are back; the owner or mode is not
	case cur.Exists && curSHA == s.After:
		return restore, nil, nil
	case force:
		return restore, nil, nil
	case uncertain(state):
		// The write may not have happened, and what is there is not
		// ours: someone else's file, left alone.
		return &restorePlan{act: actNone}, nil, nil
	}
	// Changed by someone else since the apply.
	var after []byte
	if s.AfterCopy != "" {
		after, _ = os.ReadFile(filepath.Join(dir, s.AfterCopy))
	}
	haveAfter := s.AfterCopy != "" && sha(after) == s.After
	if cur.Exists && s.Existed && haveAfter {
		if merged, ok := merge3(string(after), string(before), string(cur.Content)); ok {
			return &restorePlan{act: actWrite, content: []byte(merged), meta: &cur.Meta, want: want}, nil, nil
		}
	}
	c := &Conflict{Path: s.Path}
	switch {
	case !cur.Exists:
		c.Reason = "removed since the apply"
	case !s.Existed:
		c.Reason = "created by this run, edited since"
	default:
		c.Reason = "edited since the apply, in the lines nastune changed"
	}
	if haveAfter && cur.Exists {
		c.Diff = unified(s.Path, string(after), string(cur.Content))
	}
	return nil, c, nil
}

func metaEqual(a FileMeta, b *FileMeta) bool {
	if b == nil {
		return true
	}
	if a.Mode != b.Mode || a.UID != b.UID || a.GID != b.GID || len(a.Xattrs) != len(b.Xattrs) {
		return false
	}
	for k, v := range a.Xattrs {
		if string(b.Xattrs[k]) != string(v) {
			return false
		}
	}
	return true
}

func restoreStep(s *Step, state, dir string, o *Options, force bool) error {
	rp, c, err := planRestore(s, state, dir, o, force)
	if err != nil {
		return err
	}
	if c != nil {
		return fmt.Errorf("%s (nastune undo --force overrides)", c.Reason)
	}
	switch rp.act {
	case actValue:
		if err := writeValue(o.Root, s.Path, s.Before); err != nil {
			return err
		}
		got, err := readValue(o.Root, s.Path)
		if err != nil {
			return err
		}
		if normalize(got) != normalize(s.Before) {
			return fmt.Errorf("wrote %q back but it reads %q", s.Before, got)
		}
	case actGroup:
		return restoreGroup(s, o)
	case actCommand:
		return setCommand(s, s.Before, o)
	case actWrite:
		return writeFile(o.Root, s.Path, rp.content, rp.meta, rp.want, o.beforeRename)
	case actRemove:
		return removeFile(o.Root, s.Path, rp.want)
	}
	return nil
}
