package apply

import (
	"os"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/plan"
)

var dirtyFiles = []string{"/proc/sys/vm/dirty_bytes", "/proc/sys/vm/dirty_ratio", "/proc/sys/vm/dirty_background_bytes", "/proc/sys/vm/dirty_background_ratio"}

// saveDirty records the four coupled values of the real kernel and puts
// them back in t.Cleanup (vm.* is global, not per namespace), writing the
// member in force of each pair.
func saveDirty(t *testing.T) map[string]string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: writes /proc/sys/vm")
	}
	saved := map[string]string{}
	for _, p := range dirtyFiles {
		v, err := readValue("/", p)
		if err != nil {
			t.Skipf("%s: %v", p, err)
		}
		saved[p] = v
	}
	// The restore is registered before the first write (the probe below),
	// so it runs however the test ends: failure, Fatal or Skip.
	t.Cleanup(func() {
		same := true
		for _, p := range dirtyFiles {
			if v, _ := readValue("/", p); v != saved[p] {
				same = false
			}
		}
		if same { // nothing changed (also: read-only /proc/sys, skipped)
			return
		}
		for _, pr := range coupledPairs {
			p := pr[1]
			if saved[pr[0]] != "0" {
				p = pr[0]
			}
			if err := writeValue("/", p, saved[p]); err != nil {
				t.Errorf("restoring %s: %v", p, err)
			}
		}
		for _, p := range dirtyFiles {
			if v, _ := readValue("/", p); v != saved[p] {
				t.Errorf("cleanup: %s = %s, want %s", p, v, saved[p])
			}
		}
	})
	// Probe writability with the member in force of the background pair:
	// rewriting a ratio that reads 0 in bytes mode would zero the bytes.
	probe := "/proc/sys/vm/dirty_background_ratio"
	if saved["/proc/sys/vm/dirty_background_bytes"] != "0" {
		probe = "/proc/sys/vm/dirty_background_bytes"
	}
	if err := writeValue("/", probe, saved[probe]); err != nil {
		t.Skipf("/proc/sys/vm is not writable here: %v", err)
	}
	return saved
}

func sysctlChange(key, to string) plan.Change {
	return plan.Change{ID: "sysctl-" + key, Kind: "sysctl", Target: key, To: to, Runtime: "/proc/sys/" + strings.ReplaceAll(key, ".", "/")}
}

// TestCoupledSysctlsRealKernel: setting vm.dirty_bytes and
// vm.dirty_background_bytes on the real kernel zeroes the ratios; the run
// journals all four and undo brings every one back (the old code wrote
// dirty_bytes=0 back, which the kernel refuses with EINVAL).
func TestCoupledSysctlsRealKernel(t *testing.T) {
	saved := saveDirty(t)
	if saved["/proc/sys/vm/dirty_bytes"] != "0" || saved["/proc/sys/vm/dirty_background_bytes"] != "0" {
		t.Skip("this kernel runs in bytes mode already; the test starts from ratio mode")
	}
	p := plan.Plan{Changes: []plan.Change{sysctlChange("vm.dirty_bytes", "268435456"), sysctlChange("vm.dirty_background_bytes", "67108864")}}
	o := Options{StateDir: t.TempDir()}
	m, err := Apply(p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 || m.Steps[0].Kind != "group" || len(m.Steps[0].Members) != 4 {
		t.Fatalf("steps %+v", m.Steps)
	}
	for p, want := range map[string]string{"/proc/sys/vm/dirty_bytes": "268435456", "/proc/sys/vm/dirty_ratio": "0",
		"/proc/sys/vm/dirty_background_bytes": "67108864", "/proc/sys/vm/dirty_background_ratio": "0"} {
		if got, _ := readValue("/", p); got != want {
			t.Errorf("after apply %s = %s, want %s (the kernel couples the pair)", p, got, want)
		}
	}
	for _, mb := range m.Steps[0].Members {
		if mb.Before != saved[mb.Path] {
			t.Errorf("journal %s before %s, want %s", mb.Path, mb.Before, saved[mb.Path])
		}
	}
	if _, err := Undo(m.ID, o); err != nil {
		t.Fatal(err)
	}
	for _, p := range dirtyFiles {
		if got, _ := readValue("/", p); got != saved[p] {
			t.Errorf("after undo %s = %s, want %s", p, got, saved[p])
		}
	}

	// From bytes mode back through a ratio plan: undo writes the bytes.
	if err := writeValue("/", "/proc/sys/vm/dirty_bytes", "134217728"); err != nil {
		t.Fatal(err)
	}
	m, err = Apply(plan.Plan{Changes: []plan.Change{sysctlChange("vm.dirty_ratio", "15")}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readValue("/", "/proc/sys/vm/dirty_bytes"); got != "0" {
		t.Errorf("writing dirty_ratio left dirty_bytes %s", got)
	}
	if _, err := Undo(m.ID, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := readValue("/", "/proc/sys/vm/dirty_bytes"); got != "134217728" {
		t.Errorf("after undo dirty_bytes = %s", got)
	}
	if got, _ := readValue("/", "/proc/sys/vm/dirty_ratio"); got != "0" {
		t.Errorf("after undo dirty_ratio = %s", got)
	}
}

// TestCoupledPlanContradiction: a plan setting both members of a pair
// cannot hold (the second write zeroes the first): apply reads back,
// fails and rolls back.
func TestCoupledPlanContradiction(t *testing.T) {
	saved := saveDirty(t)
	p := plan.Plan{Changes: []plan.Change{sysctlChange("vm.dirty_bytes", "268435456"), sysctlChange("vm.dirty_ratio", "12")}}
	_, err := Apply(p, Options{StateDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "reads back") {
		t.Fatalf("err = %v", err)
	}
	for _, p := range dirtyFiles {
		if got, _ := readValue("/", p); got != saved[p] {
			t.Errorf("after rollback %s = %s, want %s", p, got, saved[p])
		}
	}
}
