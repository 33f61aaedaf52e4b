// Package sandbox runs `nastune apply` and `nastune undo` for real, inside
// a private mount and network namespace (unshare -m -n): /etc is a copy,
// /var/lib a tmpfs, and net.* sysctls belong to the namespace. It needs
// root, unshare, ip and testparm; without them it skips.
package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestApplyUndoInNamespaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for namespaces")
	}
	for _, tool := range []string{"unshare", "ip", "testparm", "sysctl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(t.TempDir(), "nastune")
	// The fault-injection build: apply_undo.sh kills apply at a crash
	// point (NASTUNE_CRASH_AT).
	build := exec.Command("go", "build", "-tags", "nastune_faults", "-o", bin, "./cmd/nastune")
	build.Dir = repo
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	hostTS, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_timestamps")
	hostEtc, _ := os.ReadDir("/etc/sysctl.d")
	cmd := exec.Command("unshare", "-m", "-n", "--propagation", "private", "sh",
		filepath.Join(filepath.Dir(file), "apply_undo.sh"), bin, t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("transcript:\n%s", out)
	if err != nil || !strings.Contains(string(out), "SANDBOX-OK") {
		t.Fatalf("sandbox run failed: %v", err)
	}
	// The host is untouched.
	if ts, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_timestamps"); string(ts) != string(hostTS) {
		t.Errorf("host tcp_timestamps changed: %q → %q", hostTS, ts)
	}
	if after, _ := os.ReadDir("/etc/sysctl.d"); len(after) != len(hostEtc) {
		t.Errorf("host /etc/sysctl.d changed")
	}
	if _, err := os.Stat("/var/lib/nastune"); err == nil {
		t.Errorf("host /var/lib/nastune was created")
	}
}
