package rules_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

var idPattern = regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)+$`)

// TestRegistry enforces what every rule must carry.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	families := map[string]bool{}
	for _, f := range rules.Families {
		families[f] = true
	}
	for _, r := range rules.All() {
		m := r.Meta
		switch {
		case seen[m.ID]:
			t.Errorf("duplicate rule ID %q", m.ID)
		case !idPattern.MatchString(m.ID):
			t.Errorf("%q: IDs are lower-case words joined by dashes", m.ID)
		case !families[m.Family]:
			t.Errorf("%s: family %q is not in rules.Families", m.ID, m.Family)
		case m.Title == "" || len(m.Doc) < 80 || m.Since == "":
			t.Errorf("%s: needs a title, a doc paragraph and a since version", m.ID)
		case len(m.Refs) == 0:
			t.Errorf("%s: needs primary references", m.ID)
		case r.Check == nil:
			t.Errorf("%s: no check", m.ID)
		}
		for _, ref := range m.Refs {
			if !strings.HasPrefix(ref, "https://") {
				t.Errorf("%s: reference %q is not an https URL", m.ID, ref)
			}
		}
		seen[m.ID] = true
	}
}

// fixtureFindings audits every fixture host.
func fixtureFindings(t *testing.T) map[string][]rule.Finding {
	t.Helper()
	out := map[string][]rule.Finding{}
	for _, name := range fixture.HostNames(t) {
		h := probeDir(t, fixture.HostDir(t, name))
		out[name] = rules.Run(rule.Input{Host: h})
	}
	return out
}

// TestEveryRuleFiresOnAFixture: a rule no fixture triggers is untested.
func TestEveryRuleFiresOnAFixture(t *testing.T) {
	fired := map[string]bool{}
	for _, fs := range fixtureFindings(t) {
		for _, f := range fs {
			fired[f.ID] = true
		}
	}
	for _, r := range rules.All() {
		if !fired[r.ID] {
			t.Errorf("rule %s fires on no fixture host: add a host (or a file to one) that shows the problem", r.ID)
		}
	}
}

// TestNoFolklore: whatever the host, nastune never recommends the popular
// wrong tips (KNOWLEDGE.md §1, §2, §4).
func TestNoFolklore(t *testing.T) {
	for host, fs := range fixtureFindings(t) {
		for _, f := range fs {
			r := f.Recommendation
			if r == nil {
				continue
			}
			num, _ := strconv.Atoi(r.Value)
			switch {
			case r.Target == "net.ipv4.tcp_timestamps" && r.Value == "0":
				t.Errorf("%s: %s recommends tcp_timestamps=0", host, f.ID)
			case strings.HasSuffix(r.Target, "/tx_queue_len") && num > 1000:
				t.Errorf("%s: %s recommends txqueuelen %d", host, f.ID, num)
			case r.Target == "vm.vfs_cache_pressure" && num > 200:
				t.Errorf("%s: %s recommends vfs_cache_pressure %d", host, f.ID, num)
			case r.Target == "net.ipv4.tcp_mem" || r.Target == "net.ipv4.tcp_adv_win_scale":
				t.Errorf("%s: %s recommends setting %s", host, f.ID, r.Target)
			case r.Target == "net.core.netdev_max_backlog" && f.ID != "net-softnet-drops" && r.Kind == rule.KindSysctl:
				t.Errorf("%s: %s raises netdev_max_backlog without drop evidence", host, f.ID)
			}
		}
	}
}

// TestFolkloreIsFlagged: the same wrong tips, found set, are reported.
func TestFolkloreIsFlagged(t *testing.T) {
	fs := fixtureFindings(t)["kirkwood-nas"]
	want := []string{"net-tcp-timestamps-off", "nic-txqueuelen-high", "mem-vfs-cache-pressure", "net-backlog-no-evidence", "sysctl-dead-key"}
	for _, id := range want {
		found := false
		for _, f := range fs {
			found = found || f.ID == id
		}
		if !found {
			t.Errorf("kirkwood-nas sets the folklore value behind %s, but it was not flagged", id)
		}
	}
}
