package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/confsyntax/udevtok"
	"github.com/nastune/nastune/internal/plan"
)

var tuneAttrs = map[string]bool{"queue/read_ahead_kb": true}

// persistHostile builds a sysfs tree (sys) and a scratch root where each
// device in attrs carries its file contents, persists read_ahead_kb for
// each, and returns the rules apply wrote and what tune said of each knob.
func persistHostile(t *testing.T, devs map[string]map[string]string, udevData string) (string, []Kept) {
	t.Helper()
	sys, root := t.TempDir(), t.TempDir()
	var kept []Kept
	for name, files := range devs {
		for p, c := range files {
			f := filepath.Join(sys, "block", name, p)
			os.MkdirAll(filepath.Dir(f), 0o755)
			if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		knob := "/sys/block/" + name + "/queue/read_ahead_kb"
		f := filepath.Join(root, knob)
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("128\n"), 0o644)
		kept = append(kept, Kept{Knob: knob, From: "128", To: "4096"})
	}
	j := &JournalApplier{Sys: sys, Opts: apply.Options{Root: root}}
	setUdevData(j, udevData)
	if _, err := j.Persist(kept); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, plan.UdevFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b), kept
}

func checkTuneRules(t *testing.T, content string) int {
	t.Helper()
	rules := udevtok.ParseFile([]byte(content))
	for _, r := range rules {
		if err := udevtok.Intended(r, tuneAttrs); err != nil {
			t.Errorf("%v\n%q", err, content)
		}
	}
	return len(rules)
}

// TestPersistHostileLoopAndDM: a loop device's backing file (any user who
// may set one up chooses its name) and a dm UUID reach tune's persisted
// rule only as literal, intended matches; anything else stays runtime only.
func TestPersistHostileLoopAndDM(t *testing.T) {
	bad := []string{"/srv/a.img|/srv/b.img", "/srv/a|/*", "/srv/[ab].img", "/srv/a*.img", `/srv/x", RUN+="/bin/sh -c id`, `/srv/x",RUN+="/tmp/x`,
		"/srv/a\nRUN+=\"/bin/sh\"", "/srv/\x1b]0;x\x07.img", "/srv/é.img", "/srv/a b.img", "/srv/$env{HOME}", "/srv/%k.img", `/srv/a\`}
	devs := map[string]map[string]string{
		"loop99": {"loop/backing_file": "/srv/images/disk-1.img\n"}, // positive control
	}
	for i, v := range bad {
		devs[fmt.Sprintf("loop%d", i)] = map[string]string{"loop/backing_file": v + "\n"}
		devs[fmt.Sprintf("dm-%d", i)] = map[string]string{"dm/uuid": "CRYPT-LUKS2-" + strings.TrimPrefix(v, "/srv/") + "\n"}
	}
	rules, kept := persistHostile(t, devs, "")
	if n := checkTuneRules(t, rules); n != 1 {
		t.Errorf("%d rules written, want only loop99's:\n%s", n, rules)
	}
	if !strings.Contains(rules, `KERNEL=="loop*", ATTR{loop/backing_file}=="/srv/images/disk-1.img", ATTR{queue/read_ahead_kb}="4096"`) {
		t.Errorf("the clean loop device lost its rule:\n%s", rules)
	}
	for _, k := range kept {
		if strings.ContainsAny(k.Persisted, "\n\x1b\x07") {
			t.Errorf("%s: %q echoes a raw control byte", k.Knob, k.Persisted)
		}
		if !strings.Contains(k.Knob, "loop99") && !strings.HasPrefix(k.Persisted, "runtime only") {
			t.Errorf("%s: persisted as %q", k.Knob, k.Persisted)
		}
	}
}
