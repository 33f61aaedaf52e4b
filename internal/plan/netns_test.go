package plan

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// A plan made in a network namespace not known to be the host's initial
// one (apply inside `ip netns exec`, a container sharing /etc) keeps its
// net.* sysctls runtime only: /etc/sysctl.d is applied at boot to the
// initial namespace, whose value was not read. vm.* is global: persisted.
// No later file's line is commented out for the net.* key either. In the
// initial namespace ("") both are persisted as before.
func TestNetSysctlRuntimeOnlyOutsideTheInitialNamespace(t *testing.T) {
	h := &facts.Host{SysctlApplier: "systemd", SysctlConfig: []facts.SysctlSetting{
		{Key: "net.core.somaxconn", Value: "128", File: "/etc/sysctl.d/99-x.conf", Line: 1},
	}}
	fs := []rule.Finding{
		{ID: "net-somaxconn", Subject: "net.core.somaxconn", Recommendation: &rule.Recommendation{Kind: rule.KindSysctl, Target: "net.core.somaxconn", Current: "128", Value: "4096"}},
		{ID: "mem-swappiness", Subject: "vm.swappiness", Recommendation: &rule.Recommendation{Kind: rule.KindSysctl, Target: "vm.swappiness", Current: "60", Value: "10"}},
	}
	for _, where := range []string{"", "this is not the host's initial network namespace"} {
		p := MakeIn(h, fs, where)
		persisted := map[string]bool{}
		edits := 0
		for _, c := range p.Changes {
			if c.Kind == rule.KindSysctl {
				persisted[c.Target] = c.Persist != nil
			} else if c.Persist != nil && c.Persist.Edit != nil && c.Persist.Edit.Key == "net.core.somaxconn" {
				edits++
			}
		}
		inInit := where == ""
		if !persisted["vm.swappiness"] || persisted["net.core.somaxconn"] != inInit || (edits == 1) != inInit {
			t.Errorf("where %q: persisted %v, %d edits of the later file, want net.* persisted %v", where, persisted, edits, inInit)
		}
		notes := strings.Join(p.Notes, "\n")
		if says := strings.Contains(notes, "net.core.somaxconn stays runtime only: "+where); says == inInit {
			t.Errorf("where %q: notes %q", where, notes)
		}
		if !inInit && !strings.Contains(notes, "sysctl -w net.core.somaxconn='4096'") {
			t.Errorf("notes do not say how to set it where the namespace is made: %q", notes)
		}
	}
}
