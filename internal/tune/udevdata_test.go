package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setUdevData(j *JournalApplier, dir string) { j.UdevData = dir }

// TestPersistHostileDiskIDs: the identifiers in udev's database entry of
// a disk reach tune's persisted rule only as literal, intended matches.
func TestPersistHostileDiskIDs(t *testing.T) {
	data := t.TempDir()
	bad := []string{`0x5",RUN+="/tmp/x`, `naa.5000c500", RUN+="/bin/sh -c id"`, "a|*", "a?", "[a]", "a\x1b]0;x\x07", "é", `a\`, "$env{X}", "%k", strings.Repeat("A", 300)}
	devs := map[string]map[string]string{"sdzz": {"dev": "8:999\n"}}
	os.WriteFile(filepath.Join(data, "b8:999"), []byte("E:ID_SERIAL_SHORT=ZDH04100\nE:ID_SERIAL=ST4000_ZDH04100\n"), 0o644)
	for i, v := range bad {
		name := fmt.Sprintf("sd%c", 'a'+i)
		devs[name] = map[string]string{"dev": fmt.Sprintf("8:%d\n", i*16)}
		os.WriteFile(filepath.Join(data, fmt.Sprintf("b8:%d", i*16)), []byte("E:ID_WWN="+v+"\nE:ID_SERIAL_SHORT="+v+"\nE:ID_SERIAL="+v+"\n"), 0o644)
	}
	rules, kept := persistHostile(t, devs, data)
	if n := checkTuneRules(t, rules); n != 1 || !strings.Contains(rules, `ENV{DEVTYPE}=="disk", ENV{ID_SERIAL_SHORT}=="ZDH04100", ATTR{queue/read_ahead_kb}="4096"`) {
		t.Errorf("want only the clean disk's rule:\n%s", rules)
	}
	for _, k := range kept {
		if strings.ContainsAny(k.Persisted, "\n\x1b\x07") {
			t.Errorf("%s: %q echoes a raw control byte", k.Knob, k.Persisted)
		}
	}
}
