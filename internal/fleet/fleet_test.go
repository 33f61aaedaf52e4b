package fleet

import (
	"reflect"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/rule"
)

func f(id, fam string, sev rule.Severity, subj string) rule.Finding {
	return rule.Finding{ID: id, Family: fam, Severity: sev, Subject: subj, Title: id}
}

func TestBuild(t *testing.T) {
	a := &audit.Report{Host: audit.HostSummary{Hostname: "nas1"}, Findings: []rule.Finding{
		f("blk-scheduler", "block", rule.Warn, "sda"), f("blk-scheduler", "block", rule.Warn, "sdb"), f("smb-wide", "samba", rule.Crit, "x")}}
	b := &audit.Report{Host: audit.HostSummary{Hostname: "nas2"}, Findings: []rule.Finding{f("blk-scheduler", "block", rule.Warn, "sda")}}
	c := &audit.Report{Host: audit.HostSummary{Hostname: "nas2"}}
	r := Build([]Input{{"b.json", b}, {"a.json", a}, {"c.json", c}}, []InputError{{"bad.json", "garbled"}})
	if got := []string{r.Hosts[0].Name, r.Hosts[1].Name, r.Hosts[2].Name}; !reflect.DeepEqual(got, []string{"nas1", "nas2 (b.json)", "nas2 (c.json)"}) {
		t.Errorf("host order %v", got)
	}
	if !reflect.DeepEqual(r.Families, []string{"block", "samba"}) {
		t.Errorf("families %v", r.Families)
	}
	h := r.Hosts[0]
	if h.Crit != 1 || h.Warn != 2 || h.Families["block"] != 2 || h.Worst["samba"] != rule.Crit {
		t.Errorf("host %+v", h)
	}
	// A rule counts once per host, however many subjects it has there.
	if r.Common[0].ID != "blk-scheduler" || r.Common[0].Count != 2 || !reflect.DeepEqual(r.Common[0].HostList, []string{"nas1", "nas2 (b.json)"}) {
		t.Errorf("common %+v", r.Common[0])
	}
	if len(r.Errors) != 1 || r.Hosts[2].Findings == nil {
		t.Errorf("errors %v, findings nil=%v", r.Errors, r.Hosts[2].Findings == nil)
	}
}
