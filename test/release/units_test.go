package release

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/nastune/nastune/test/testutil"
)

// unitKeys parses a systemd unit file: "Section.Key" → values.
func unitKeys(t *testing.T, p string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	sec := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			sec = l[1 : len(l)-1]
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok || sec == "" {
				t.Fatalf("%s:%d: not a unit file line: %q", p, n, l)
			}
			out[sec+"."+strings.TrimSpace(k)] = append(out[sec+"."+strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return out
}

// The package ships nastune-finish.service (at boot, after the local file
// systems, before the network) and its timer (every minute), both
// enabled: an `apply --confirm` run whose machine lost power is reverted
// at boot, one whose watchdog died within a minute of its deadline. The
// units are what systemd accepts (systemd-analyze verify, no warning).
func TestBootUnits(t *testing.T) {
	dir := filepath.Join(repo, "packaging", "systemd")
	svc, tmr := filepath.Join(dir, "nastune-finish.service"), filepath.Join(dir, "nastune-finish.timer")
	s := unitKeys(t, svc)
	for k, want := range map[string]string{
		"Service.Type": "oneshot", "Service.ExecStart": "/usr/bin/nastune undo --expired",
		"Unit.DefaultDependencies": "no", "Unit.After": "local-fs.target", "Install.WantedBy": "sysinit.target",
	} {
		if got := strings.Join(s[k], " "); got != want {
			t.Errorf("nastune-finish.service %s=%q, want %q", k, got, want)
		}
	}
	if b := strings.Join(s["Unit.Before"], " "); !strings.Contains(b, "network-pre.target") {
		t.Errorf("nastune-finish.service Before=%q: must run before the network is configured", b)
	}
	tm := unitKeys(t, tmr)
	for k, want := range map[string]string{"Timer.OnBootSec": "1min", "Timer.OnUnitActiveSec": "1min", "Install.WantedBy": "timers.target"} {
		if got := strings.Join(tm[k], " "); got != want {
			t.Errorf("nastune-finish.timer %s=%q, want %q", k, got, want)
		}
	}
	// nfpm.yaml installs both and enables them.
	b, err := os.ReadFile(filepath.Join(repo, "packaging", "nfpm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Contents []struct{ Src, Dst, Type string }
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/usr/lib/systemd/system/nastune-finish.service":                      "./systemd/nastune-finish.service",
		"/usr/lib/systemd/system/nastune-finish.timer":                        "./systemd/nastune-finish.timer",
		"/usr/lib/systemd/system/sysinit.target.wants/nastune-finish.service": "../nastune-finish.service",
		"/usr/lib/systemd/system/timers.target.wants/nastune-finish.timer":    "../nastune-finish.timer",
	}
	for _, c := range cfg.Contents {
		if w, ok := want[c.Dst]; ok {
			if c.Src != w {
				t.Errorf("nfpm.yaml: %s from %s, want %s", c.Dst, c.Src, w)
			}
			delete(want, c.Dst)
		}
	}
	for dst := range want {
		t.Errorf("nfpm.yaml does not install %s", dst)
	}
	// systemd's own check, with ExecStart pointed at an executable (the
	// package's /usr/bin/nastune is not installed here).
	analyze := testutil.Need(t, "systemd-analyze", "systemd")
	tmp := t.TempDir()
	svcText, _ := os.ReadFile(svc)
	tmrText, _ := os.ReadFile(tmr)
	os.WriteFile(filepath.Join(tmp, "nastune-finish.service"), bytes.ReplaceAll(svcText, []byte("/usr/bin/nastune "), []byte("/bin/true ")), 0o644)
	os.WriteFile(filepath.Join(tmp, "nastune-finish.timer"), tmrText, 0o644)
	out, err := exec.Command(analyze, "verify", "--man=no", filepath.Join(tmp, "nastune-finish.service"), filepath.Join(tmp, "nastune-finish.timer")).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The command the unit runs exists in the release binary.
func TestBootUnitCommand(t *testing.T) {
	out, err := exec.Command(distFile(t, "nastune-linux-amd64"), "undo", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--expired") {
		t.Errorf("nastune undo --help: %v\n%s", err, out)
	}
}

// Release builds contain no fault injection: the crash points' switch
// (NASTUNE_CRASH_AT, compiled only with -tags nastune_faults) and the old
// NASTUNE_FAULT_AFTER are absent from the binary `make build` and `make
// release` produce, and present in the fault build (so the check can see
// them).
func TestNoFaultHooksInRelease(t *testing.T) {
	hooks := []string{"NASTUNE_CRASH_AT", "NASTUNE_FAULT_AFTER", "fault injection"}
	build := func(tags ...string) []byte {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "nastune")
		args := append([]string{"build", "-trimpath", "-ldflags", "-s -w"}, tags...)
		cmd := exec.Command("go", append(args, "-o", bin, "./cmd/nastune")...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	testutil.Need(t, "go", "golang-go")
	faulty := build("-tags", "nastune_faults")
	if !bytes.Contains(faulty, []byte("NASTUNE_CRASH_AT")) {
		t.Fatal("the nastune_faults build lacks NASTUNE_CRASH_AT: the check below would see nothing")
	}
	bins := map[string][]byte{"go build": build()}
	if dist != "" {
		for _, name := range []string{"amd64", "arm64", "armv7", "armv6", "armv5"} {
			b, err := os.ReadFile(filepath.Join(dist, "nastune-linux-"+name))
			if err != nil {
				t.Fatal(err)
			}
			bins["release "+name] = b
		}
	}
	for name, b := range bins {
		for _, h := range hooks {
			if bytes.Contains(b, []byte(h)) {
				t.Errorf("%s: the binary contains %q", name, h)
			}
		}
	}
}
