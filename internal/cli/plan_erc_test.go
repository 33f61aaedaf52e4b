package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/plan"
)

// TestPlanERC: on health-raid (md members whose SMART says SCT ERC is
// supported but disabled) the plan sets 70,70 with smartctl on the disk's
// /dev/disk/by-id name and persists it with a udev rule; -o diff shows
// the rule and lists the smartctl change among the runtime values.
func TestPlanERC(t *testing.T) {
	dir := fixture.HostDir(t, "health-raid")
	run := func(out string) string {
		var o, e bytes.Buffer
		if code := Main(context.Background(), []string{"plan", "--root", dir, "--only", "health-erc-off", "-o", out},
			Env{Stdout: &o, Stderr: &e, Getenv: os.Getenv}); code != 0 {
			t.Fatalf("plan -o %s: exit %d: %s", out, code, e.String())
		}
		return o.String()
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(run("json")), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) == 0 {
		t.Fatal("no ERC change planned on health-raid")
	}
	for _, c := range p.Changes {
		cm := c.Command
		if c.Kind != "erc" || cm == nil || cm.Tool != "smartctl-scterc" || cm.Value != "70,70" ||
			!strings.HasPrefix(cm.Device, "/dev/disk/by-id/ata-") || c.From != "0,0" {
			t.Errorf("change %+v (command %+v)", c, cm)
			continue
		}
		serial := strings.TrimPrefix(cm.Device, "/dev/disk/by-id/ata-")
		if c.Persist == nil || c.Persist.File != plan.ERCUdevFile ||
			c.Persist.Line != `ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{ID_SERIAL}=="`+serial+`", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k"` {
			t.Errorf("persist %+v", c.Persist)
		}
	}
	diff := run("diff")
	for _, want := range []string{"+++ b/etc/udev/rules.d/90-nastune-erc.rules", "RUN+=\"/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k\"",
		"smartctl -l scterc " + p.Changes[0].Command.Device + ": 0,0 -> 70,70"} {
		if !strings.Contains(diff, want) {
			t.Errorf("-o diff lacks %q:\n%s", want, diff)
		}
	}
}
