// Package testutil holds what the system tests under test/ share: finding
// the tools they drive and running commands with their output in the
// failure message.
//
// A missing tool skips a test on a developer's machine but fails it in CI
// (CI=true), where `make test` installs every tool: a system test must not
// pass by not running.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Need returns the path of tool; pkg names the Debian package with it.
func Need(t testing.TB, tool, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	msg := tool + " not installed"
	if pkg != "" {
		msg += " (Debian package " + pkg + ")"
	}
	if os.Getenv("CI") != "" {
		t.Fatal(msg + ": make test installs it")
	}
	t.Skip(msg)
	return ""
}

// NeedRoot skips the test unless it runs as root (why: what needs it).
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for " + why)
	}
}

// NeedAll is NeedRoot and Need for each tool.
func NeedAll(t testing.TB, why string, tools ...string) {
	t.Helper()
	NeedRoot(t, why)
	for _, tool := range tools {
		Need(t, tool, "")
	}
}

// Run runs a command and returns its combined output; failing, it fails
// the test with the command line and the output.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// RemoveStale calls remove with the path of each entry of dir named one
// of prefixes, then a PID (then nothing or "-…"), whose process no longer
// exists: what a killed test run left (namespaces under /run/netns,
// cgroups). Tests name what they create so with their own PID.
func RemoveStale(dir string, prefixes []string, remove func(path string)) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		for _, p := range prefixes {
			rest, ok := strings.CutPrefix(e.Name(), p)
			if !ok {
				continue
			}
			pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
			if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
				remove(filepath.Join(dir, e.Name()))
			}
			break
		}
	}
}

// DelNetns deletes a network namespace by its path under /run/netns (for
// RemoveStale and cleanups), ignoring errors.
func DelNetns(path string) {
	exec.Command("ip", "netns", "del", filepath.Base(path)).Run()
}

// BuildNastune compiles ./cmd/nastune of this repository, without cgo as
// released, to bin and returns bin.
func BuildNastune(t testing.TB, bin string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", bin, "./cmd/nastune")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Chromium returns the path of a Chromium or Chrome binary (for headless
// screenshots); none skips the test, or fails it under CI=true.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium missing: make test installs the Debian package chromium")
	}
	t.Skip("chromium not installed")
	return ""
}

// RerunInNetNS runs the current top-level test again in a network
// namespace of its own (`unshare -n` this test binary), with env=1 in its
// environment so the test knows it is the inner run, and returns that
// run's output. It needs root and unshare (skips, or fails under CI); the
// test fails when the inner run does.
func RerunInNetNS(t testing.TB, env string) string {
	t.Helper()
	NeedRoot(t, "unshare -n")
	unshare := Need(t, "unshare", "util-linux")
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in unshare -n:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the run in unshare -n failed: %v", err)
	}
	return string(out)
}
