package probe

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/udevrules"
)

// ownUdevRules is the file name of nastune's rules (plan.UdevFile; plan
// imports probe's facts, not the other way round).
const ownUdevRules = "90-nastune.rules"

// udevLater records the ATTR{} assignments of the udev rules files that
// udev reads after 90-nastune.rules, so plan can say when a rule nastune
// writes may be overridden at boot. Only those files are read.
func (p *prober) udevLater() {
	p.readAfter(udevrules.Order(p.dropIns(udevrules.Dirs)), ownUdevRules, func(f, _ string, data []byte) {
		for _, a := range udevrules.Assignments(data) {
			p.h.UdevLater = append(p.h.UdevLater, facts.UdevAssign{File: f, Line: a.Line, Attr: a.Attr, Value: a.Value})
		}
	})
}
