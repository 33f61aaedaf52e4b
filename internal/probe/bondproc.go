package probe

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

const pathProcBonding = "/proc/net/bonding"

// procOnlyBonds evaluates the bonds that /proc/net/bonding lists but
// /sys/class/net did not (a partial capture, a tree made from a bug
// report): the procfs file alone still tells the mode, the slaves and
// their aggregators, so the bond is kept, and the missing sysfs directory
// is recorded as not collected instead of the bond vanishing silently.
func (p *prober) procOnlyBonds() {
	ents, err := p.root.ReadDir(pathProcBonding)
	if err != nil {
		return // no bonding driver loaded: nothing to say
	}
	seen := map[string]bool{}
	for _, i := range p.h.Interfaces {
		seen[i.Name] = true
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || seen[name] || e.IsDir() {
			continue
		}
		b := p.bond(name)
		if b == nil {
			continue
		}
		p.skip(pathClassNet+"/"+name, "missing: bond evaluated from "+pathProcBonding+"/"+name+" only")
		p.h.Interfaces = append(p.h.Interfaces, facts.Interface{Name: name, Kind: "bond", Bond: b})
	}
}
