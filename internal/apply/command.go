package apply

import (
	"context"
	"fmt"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/plan"
)

// Command steps: a setting only a tool can change. The one kind is SCT
// Error Recovery Control ("scterc"), set with `smartctl -l scterc,R,W` on a
// disk named by its /dev/disk/by-id name (sdX names move between boots, a
// journal must name the same disk at undo). Like a value step: the value
// before is read (`smartctl -l scterc DEV`) and journaled, the step is
// journaled "applying" before smartctl sets anything, the value is read
// back, and undo sets the recorded value again (0,0 = disabled) after
// checking that it still reads what apply set.
const cmdSCTERC = "scterc"

func (o *Options) scterc(dev, set string) (string, error) {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return cmdrun.SCTERC(ctx, cmdrun.Limits{}, dev, set)
}

// commandStep turns a plan change with a Command into a step, or nil when
// the disk already holds the value.
func commandStep(c plan.Change, o *Options) (*Step, error) {
	cm := c.Command
	if cm.Tool != "smartctl-scterc" {
		return nil, fmt.Errorf("%s: unknown command %q", c.ID, cm.Tool)
	}
	if !cmdrun.ValidERCDevice(cm.Device) || !cmdrun.ValidERCValue(cm.Value) {
		return nil, fmt.Errorf("%s: smartctl -l scterc,%s %s is not a command nastune runs", c.ID, cm.Value, cm.Device)
	}
	cur := c.From
	if o.ReadFile == nil && o.Root != "/" && !o.hostCommands {
		// smartctl acts on this machine's disk, never on a tree: an
		// apply to a --root tree (or a scratch tree) leaves it out.
		return nil, nil
	}
	if o.ReadFile == nil {
		// apply (and a preview of this machine without the hook) asks
		// the disk; a preview of a tree shows what the facts said.
		v, err := o.scterc(cm.Device, "")
		if err != nil {
			return nil, fmt.Errorf("reading SCT ERC of %s: %w", cm.Device, err)
		}
		cur = v
	}
	if cur == cm.Value {
		return nil, nil
	}
	return &Step{Change: c.ID, Kind: "command", Command: cmdSCTERC, Path: cm.Device, Before: cur, After: cm.Value}, nil
}

func checkCommand(s Step) error {
	if s.Command != cmdSCTERC || !cmdrun.ValidERCDevice(s.Path) || !cmdrun.ValidERCValue(s.After) ||
		(s.Before != "" && !cmdrun.ValidERCValue(s.Before)) {
		return fmt.Errorf("step command %q %q (%s → %s) is not a command nastune runs: refusing the journal", s.Command, s.Path, s.Before, s.After)
	}
	return nil
}

func recordCommand(s *Step, o *Options) error {
	v, err := o.scterc(s.Path, "")
	if err != nil {
		return fmt.Errorf("reading SCT ERC of %s: %w", s.Path, err)
	}
	s.Before = v
	return nil
}

// setCommand sets v and reads it back.
func setCommand(s *Step, v string, o *Options) error {
	if _, err := o.scterc(s.Path, v); err != nil {
		return err
	}
	got, err := o.scterc(s.Path, "")
	if err != nil {
		return err
	}
	if got != v {
		return fmt.Errorf("smartctl set SCT ERC %s but it reads back as %s", v, got)
	}
	return nil
}

func planRestoreCommand(s *Step, state string, o *Options, force bool) (*restorePlan, *Conflict, error) {
	cur, err := o.scterc(s.Path, "")
	if err != nil {
		return nil, nil, err
	}
	switch {
	case cur == s.Before:
		return &restorePlan{act: actNone}, nil, nil
	case cur == s.After || force || uncertain(state) || state == StepRestoring:
		return &restorePlan{act: actCommand}, nil, nil
	}
	return nil, &Conflict{Path: s.Path, Reason: fmt.Sprintf("SCT ERC now %s; nastune set %s and found %s", cur, s.After, s.Before)}, nil
}
