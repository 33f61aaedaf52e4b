//go:build linux

package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/plan"
)

// A change the plan keeps runtime only (a net.* sysctl outside the initial
// network namespace) is not called persistent: the header counts it and
// the change says so, where it said nothing under "persistent across
// reboots".
func TestPrintPlanRuntimeOnly(t *testing.T) {
	p := plan.Plan{Changes: []plan.Change{
		{Kind: "sysctl", Target: "net.core.somaxconn", From: "128", To: "4096", Finding: "x"},
		{Kind: "sysctl", Target: "vm.swappiness", From: "60", To: "10", Finding: "y", Persist: &plan.Persist{File: plan.SysctlFile, Line: "vm.swappiness = 10"}},
	}}
	var b bytes.Buffer
	printPlan(&b, p)
	out := b.String()
	for _, want := range []string{"persistent across reboots (1 runtime only: see the notes)", "persist: none, runtime only"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "runtime only") != 2 {
		t.Errorf("the persisted change is called runtime only too:\n%s", out)
	}
}
