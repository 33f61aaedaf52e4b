package apply

import (
	"fmt"
	"strings"
)

// Coupled sysctls. The kernel keeps vm.dirty_bytes and vm.dirty_ratio
// exclusive: writing a new value to one zeroes the other
// (mm/page-writeback.c, dirty_bytes_handler and dirty_ratio_handler), and
// likewise vm.dirty_background_bytes and vm.dirty_background_ratio. The
// *_bytes files refuse 0 (EINVAL: their minimum is 1 byte, two pages for
// dirty_bytes), so the way back to "ratio mode" is writing the ratio. All
// four are journaled as one group; undo writes, for each pair, the member
// that was non-zero before (the ratio when both were 0) and reads all four
// back.

var coupledPairs = [][2]string{
	{"/proc/sys/vm/dirty_bytes", "/proc/sys/vm/dirty_ratio"},
	{"/proc/sys/vm/dirty_background_bytes", "/proc/sys/vm/dirty_background_ratio"},
}

const dirtyGroup = "vm.dirty"

func coupledGroup(p string) string {
	for _, pr := range coupledPairs {
		if p == pr[0] || p == pr[1] {
			return dirtyGroup
		}
	}
	return ""
}

func newGroupStep(g string, o *Options) (Step, error) {
	s := Step{Kind: "group", Path: g}
	for _, pr := range coupledPairs {
		for _, p := range pr {
			v, err := o.currentValue(p)
			if err != nil {
				return s, err
			}
			s.Members = append(s.Members, Member{Path: p, Before: v})
		}
	}
	return s, nil
}

// groupNeeded: some planned member differs from its current value.
func groupNeeded(s Step) bool {
	for _, m := range s.Members {
		if m.Set != "" && normalize(m.Set) != normalize(m.Before) {
			return true
		}
	}
	return false
}

// applyGroup writes the planned members and reads all of them back.
func applyGroup(s *Step, o *Options) error {
	for _, m := range s.Members {
		if m.Set == "" {
			continue
		}
		if err := writeValue(o.Root, m.Path, m.Set); err != nil {
			return err
		}
	}
	var bad []string
	for i := range s.Members {
		m := &s.Members[i]
		v, err := readValue(o.Root, m.Path)
		if err != nil {
			return err
		}
		m.After = v
		if m.Set != "" && normalize(v) != normalize(m.Set) {
			bad = append(bad, fmt.Sprintf("%s reads back %q, not %q", m.Path, v, m.Set))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("coupled values: %s (the plan sets both members of a coupled pair?)", strings.Join(bad, "; "))
	}
	return nil
}

// restoreGroup writes back, per pair, the member that was in force, then
// checks all four.
func restoreGroup(s *Step, o *Options) error {
	before := map[string]string{}
	for _, m := range s.Members {
		before[m.Path] = m.Before
	}
	for _, pr := range coupledPairs {
		bytesV, ok1 := before[pr[0]]
		ratioV, ok2 := before[pr[1]]
		if !ok1 || !ok2 {
			continue
		}
		p, v := pr[1], ratioV
		if normalize(bytesV) != "0" {
			p, v = pr[0], bytesV
		}
		if err := writeValue(o.Root, p, v); err != nil {
			return err
		}
	}
	return checkGroup(s, o)
}

func checkGroup(s *Step, o *Options) error {
	var bad []string
	for _, m := range s.Members {
		v, err := readValue(o.Root, m.Path)
		if err != nil {
			return err
		}
		if normalize(v) != normalize(m.Before) {
			bad = append(bad, fmt.Sprintf("%s is %s, was %s", m.Path, v, m.Before))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("after restoring: %s", strings.Join(bad, "; "))
	}
	return nil
}

// groupState compares the current values with before and after apply.
func groupState(s *Step, o *Options) (isBefore, isAfter bool, cur []string, err error) {
	isBefore, isAfter = true, true
	for _, m := range s.Members {
		v, err := readValue(o.Root, m.Path)
		if err != nil {
			return false, false, nil, err
		}
		cur = append(cur, fmt.Sprintf("%s=%s", m.Path, v))
		if normalize(v) != normalize(m.Before) {
			isBefore = false
		}
		if m.After == "" || normalize(v) != normalize(m.After) {
			isAfter = false
		}
	}
	return isBefore, isAfter, cur, nil
}
