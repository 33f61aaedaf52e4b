package rules

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// The SMART advice of md-failed-member names the whole disk of a failed
// partition member, the one smartctl is pointed at.
func TestMDFailedMemberNamesWholeDisk(t *testing.T) {
	a := facts.MDArray{Name: "md11", Level: "raid1", RaidDisks: 2, ActiveDisks: 2, Status: "UU",
		Members: []facts.MDMember{
			{Device: "sda3", Disk: "sda", Role: "active"},
			{Device: "sdb3", Disk: "sdb", Role: "active"},
			{Device: "sdc3", Disk: "sdc", Role: "faulty"},
		}}
	out := checkMDFailedMember(rule.Input{Host: &facts.Host{MD: []facts.MDArray{a}}})
	if len(out) != 1 || out[0].Recommendation == nil {
		t.Fatalf("want one finding with advice, got %+v", out)
	}
	got := out[0].Recommendation.Target
	if !strings.Contains(got, "--remove /dev/sdc3") || !strings.Contains(got, "check SMART of sdc ") {
		t.Errorf("advice %q: want the member removed and the disk sdc checked", got)
	}
}
