package apply

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nastune/nastune/internal/plan"
	"golang.org/x/sys/unix"
)

// A fake smartctl keeps each disk's SCT ERC in a file of STATE and logs
// every call; it prints what smartctl 7 prints.
const fakeSmartctl = `#!/bin/sh
S=@STATE@
echo "$*" >> $S/calls
[ "$1" = "-l" ] || exit 64
f="$S/$(echo "$3" | tr / _)"
[ -f "$f" ] || echo "0,0" > "$f"
case "$2" in
scterc) ;;
scterc,*) echo "${2#scterc,}" > "$f"; echo "SCT Error Recovery Control set to:" ;;
*) exit 64 ;;
esac
v=$(cat "$f"); r=${v%,*}; w=${v#*,}
show() { if [ "$1" = 0 ]; then echo Disabled; else echo "$1 ($(( $1 / 10 )).$(( $1 % 10 )) seconds)"; fi; }
[ "$2" = scterc ] && printf 'SCT Error Recovery Control:\n'
printf '           Read: %s\n          Write: %s\n' "$(show $r)" "$(show $w)"
`

const (
	diskA = "/dev/disk/by-id/ata-ST4000DM004-2CV104_ZFN0AAAA"
	diskB = "/dev/disk/by-id/ata-WDC_WD40EZRZ-00GXCB0_WD-WCC7K0BBBB"
)

func ercPlan() plan.Plan {
	var p plan.Plan
	for _, d := range []string{diskA, diskB} {
		serial := strings.TrimPrefix(d, "/dev/disk/by-id/ata-")
		p.Changes = append(p.Changes, plan.Change{ID: "erc-" + serial[len(serial)-4:], Finding: "health-erc-off", Kind: "erc",
			Target: d, From: "0,0", To: "70,70",
			Command: &plan.Command{Tool: "smartctl-scterc", Device: d, Value: "70,70"},
			Persist: &plan.Persist{File: plan.ERCUdevFile, Line: `ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{ID_SERIAL}=="` +
				serial + `", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k"`}})
	}
	return p
}

func ercState(t *testing.T, state, dev string) string {
	b, err := os.ReadFile(filepath.Join(state, strings.ReplaceAll(dev, "/", "_")))
	if os.IsNotExist(err) {
		return "0,0"
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestSCTERCCommandStep runs apply and undo with a fake smartctl placed,
// in a private mount namespace, where cmdrun looks first
// (/usr/local/sbin on a root-owned 0755 tmpfs).
func TestSCTERCCommandStep(t *testing.T) {
	if root := os.Getenv("NASTUNE_TEST_ERC_KILL"); root != "" {
		n := 0
		Apply(ercPlan(), Options{hostCommands: true, Root: root, pause: func(stage string) {
			if stage == "after-step" {
				if n++; n == 2 { // the second disk is set, its step still "applying"
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
			}
		}})
		os.Exit(0)
	}
	if state := os.Getenv("NASTUNE_TEST_ERC_STATE"); state != "" {
		ercChild(t, state)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (mount namespace)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	state := t.TempDir()
	cmd := exec.Command("unshare", "-m", "--propagation", "private", os.Args[0], "-test.run", "^TestSCTERCCommandStep$", "-test.v")
	cmd.Env = append(os.Environ(), "NASTUNE_TEST_ERC_STATE="+state)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ERC-CHILD-OK") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func ercChild(t *testing.T, state string) {
	if err := unix.Mount("tmpfs", "/usr/local/sbin", "tmpfs", 0, "mode=0755,size=64k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer unix.Unmount("/usr/local/sbin", unix.MNT_DETACH)
	script := strings.ReplaceAll(fakeSmartctl, "@STATE@", state)
	if err := os.WriteFile("/usr/local/sbin/smartctl", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	reset := func(a, b string) {
		os.WriteFile(filepath.Join(state, strings.ReplaceAll(diskA, "/", "_")), []byte(a+"\n"), 0o644)
		os.WriteFile(filepath.Join(state, strings.ReplaceAll(diskB, "/", "_")), []byte(b+"\n"), 0o644)
		os.Remove(filepath.Join(state, "calls"))
	}
	rules := "etc/udev/rules.d/90-nastune-erc.rules"

	// apply sets both disks, reads them back, writes the udev rule; undo
	// restores what each disk had (disabled, and 10 s).
	root := scratch(t)
	reset("0,0", "100,100")
	m, err := Apply(ercPlan(), Options{hostCommands: true, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "70,70" || b != "70,70" {
		t.Fatalf("after apply: %s %s", a, b)
	}
	var cmds int
	for _, s := range m.Steps {
		if s.Kind == "command" {
			cmds++
			if s.Command != "scterc" || !strings.HasPrefix(s.Path, "/dev/disk/by-id/") || s.State != StepApplied {
				t.Errorf("journaled step %+v", s)
			}
		}
	}
	if cmds != 2 {
		t.Fatalf("%d command steps, want 2: %+v", cmds, m.Steps)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "calls"))
	for _, want := range []string{"-l scterc " + diskA, "-l scterc,70,70 " + diskA, "-l scterc,70,70 " + diskB} {
		if !strings.Contains(string(calls), want+"\n") {
			t.Errorf("smartctl calls lack %q:\n%s", want, calls)
		}
	}
	rule, err := os.ReadFile(filepath.Join(root, rules))
	if err != nil || !strings.Contains(string(rule), `ENV{ID_SERIAL}=="ST4000DM004-2CV104_ZFN0AAAA", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k"`) ||
		strings.Count(string(rule), "RUN+=") != 2 {
		t.Fatalf("udev rule: %v\n%s", err, rule)
	}
	if _, err := Apply(ercPlan(), Options{hostCommands: true, Root: root}); err != ErrNothingToDo {
		t.Errorf("second apply: %v, want nothing to do", err)
	}
	if _, err := Undo("", Options{hostCommands: true, Root: root}); err != nil {
		t.Fatal(err)
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "0,0" || b != "100,100" {
		t.Errorf("after undo: %s %s, want 0,0 100,100", a, b)
	}
	if _, err := os.Stat(filepath.Join(root, rules)); !os.IsNotExist(err) {
		t.Errorf("udev rule left after undo: %v", err)
	}

	// Someone set the disk since: undo refuses, --force restores.
	root = scratch(t)
	reset("0,0", "0,0")
	if _, err := Apply(ercPlan(), Options{hostCommands: true, Root: root}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(state, strings.ReplaceAll(diskA, "/", "_")), []byte("50,50\n"), 0o644)
	if _, err := Undo("", Options{hostCommands: true, Root: root}); err == nil || !strings.Contains(err.Error(), "SCT ERC now 50,50") {
		t.Errorf("undo over a later change: %v", err)
	}
	if a := ercState(t, state, diskA); a != "50,50" {
		t.Errorf("refused undo changed the disk: %s", a)
	}
	if _, err := Undo("", Options{hostCommands: true, Root: root, Force: true}); err != nil {
		t.Fatal(err)
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "0,0" || b != "0,0" {
		t.Errorf("after undo --force: %s %s", a, b)
	}

	// A failing later step rolls the disks back.
	root = scratch(t)
	reset("0,0", "0,0")
	if _, err := Apply(ercPlan(), Options{hostCommands: true, Root: root, failAt: 2}); err == nil {
		t.Fatal("injected failure not reported")
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "0,0" || b != "0,0" {
		t.Errorf("after rollback: %s %s", a, b)
	}

	// kill -9 right after smartctl set the second disk: undo restores.
	root = scratch(t)
	reset("0,0", "0,0")
	before := digest(t, root)
	kill := exec.Command(os.Args[0], "-test.run", "^TestSCTERCCommandStep$")
	kill.Env = append(os.Environ(), "NASTUNE_TEST_ERC_KILL="+root)
	err = kill.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v (want killed)", err)
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "70,70" || b != "70,70" {
		t.Fatalf("killed apply: %s %s, want both set", a, b)
	}
	if _, err := Undo("", Options{hostCommands: true, Root: root}); err != nil {
		t.Fatal(err)
	}
	if a, b := ercState(t, state, diskA), ercState(t, state, diskB); a != "0,0" || b != "0,0" {
		t.Errorf("undo after kill -9: %s %s", a, b)
	}
	if digest(t, root) != before {
		t.Error("undo after kill -9 left files changed")
	}

	// An apply to a tree never runs smartctl on this machine's disks.
	root = scratch(t)
	reset("0,0", "0,0")
	if m, err := Apply(ercPlan(), Options{Root: root}); err != nil {
		t.Fatal(err)
	} else {
		for _, s := range m.Steps {
			if s.Kind == "command" {
				t.Errorf("command step in an apply to a tree: %+v", s)
			}
		}
	}
	if calls, _ := os.ReadFile(filepath.Join(state, "calls")); len(calls) > 0 {
		t.Errorf("smartctl ran for an apply to a tree:\n%s", calls)
	}

	// A journal naming a device outside /dev/disk/by-id is refused.
	bad := &Manifest{Steps: []Step{{Kind: "command", Command: "scterc", Path: "/dev/sda", Before: "0,0", After: "70,70"}}}
	if err := checkSteps(bad); err == nil {
		t.Error("journal with /dev/sda accepted")
	}
	bad.Steps[0] = Step{Kind: "command", Command: "rm", Path: diskA, Before: "0,0", After: "70,70"}
	if err := checkSteps(bad); err == nil {
		t.Error("journal with another command accepted")
	}
	t.Log("ERC-CHILD-OK " + strconv.Itoa(cmds))
}
