package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/plan"
)

// scratch builds a tree standing in for /: proc/sys and sys attributes as
// plain files, and config files.
func scratch(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"proc/sys/net/ipv4/tcp_timestamps":     "0\n",
		"proc/sys/vm/vfs_cache_pressure":       "1000\n",
		"sys/block/sda/queue/scheduler":        "cfq\n", // real sysfs: see test/sandbox
		"proc/fs/nfsd/threads":                 "1\n",
		"etc/samba/smb.conf":                   "# NAS\n[global]\n   socket options = TCP_NODELAY SO_RCVBUF=65536\n\n[media]\n\tpath = /srv/media\n",
		"etc/default/nfs-kernel-server":        "RPCNFSDCOUNT=1\n",
		"etc/sysctl.d/99-nas-tuning.conf":      "vm.vfs_cache_pressure = 1000\n",
		"etc/udev/rules.d/70-persistent.rules": "# user rules\n",
	}
	fixture.WriteTree(t, root, files)
	return root
}

func samplePlan() plan.Plan {
	return plan.Plan{Changes: []plan.Change{
		{ID: "sysctl-1", Kind: "sysctl", Target: "net.ipv4.tcp_timestamps", From: "0", To: "1", Runtime: "/proc/sys/net/ipv4/tcp_timestamps",
			Persist: &plan.Persist{File: plan.SysctlFile, Line: "net.ipv4.tcp_timestamps = 1"}},
		{ID: "sysctl-2", Kind: "sysctl", Target: "vm.vfs_cache_pressure", From: "1000", To: "100", Runtime: "/proc/sys/vm/vfs_cache_pressure",
			Persist: &plan.Persist{File: plan.SysctlFile, Line: "vm.vfs_cache_pressure = 100"}},
		{ID: "sysfs-1", Kind: "sysfs", Target: "/sys/block/sda/queue/scheduler", From: "cfq", To: "deadline", Runtime: "/sys/block/sda/queue/scheduler",
			Persist: &plan.Persist{File: plan.UdevFile, Line: `ACTION=="add|change", SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="WD-1", ATTR{queue/scheduler}="deadline"`}},
		{ID: "service-1", Kind: "service", Target: "/proc/fs/nfsd/threads", From: "1", To: "4", Runtime: "/proc/fs/nfsd/threads",
			Persist: &plan.Persist{File: "/etc/default/nfs-kernel-server", Edit: &plan.Edit{Format: "shellvar", Key: "RPCNFSDCOUNT", Value: "4"}}},
		{ID: "config-1", Kind: "config", Target: "/etc/samba/smb.conf:[global]:socket options", From: "TCP_NODELAY SO_RCVBUF=65536", To: "TCP_NODELAY",
			Persist: &plan.Persist{File: "/etc/samba/smb.conf", Edit: &plan.Edit{Format: "smbconf", Section: "global", Key: "socket options", Value: "TCP_NODELAY"}}},
	}}
}

// digest hashes the tree outside the journal folder.
func digest(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, "var") {
			return nil
		}
		h.Write([]byte(rel + "\x00"))
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

func read(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		return "(missing)"
	}
	return string(b)
}

func TestApplyUndoRoundTrip(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	m, err := Apply(samplePlan(), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if m.State != StateComplete || len(m.Steps) != 8 { // 4 runtime values, 2 owned files, 2 config edits
		t.Fatalf("manifest: %+v", m)
	}
	for p, want := range map[string]string{
		"proc/sys/net/ipv4/tcp_timestamps": "1\n", "sys/block/sda/queue/scheduler": "deadline\n", "proc/fs/nfsd/threads": "4\n",
		"etc/default/nfs-kernel-server": "RPCNFSDCOUNT=4\n",
		"etc/samba/smb.conf":            "# NAS\n[global]\n   socket options = TCP_NODELAY\n\n[media]\n\tpath = /srv/media\n",
	} {
		if got := read(t, root, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if got := read(t, root, "etc/sysctl.d/90-nastune.conf"); !strings.Contains(got, "net.ipv4.tcp_timestamps = 1\nvm.vfs_cache_pressure = 100\n") {
		t.Errorf("sysctl.d file: %q", got)
	}
	if !strings.Contains(read(t, root, "etc/udev/rules.d/90-nastune.rules"), `ENV{ID_SERIAL_SHORT}=="WD-1"`) {
		t.Error("udev rule missing")
	}
	// Re-applying changes nothing and records no run.
	if _, err := Apply(samplePlan(), Options{Root: root}); !errors.Is(err, ErrNothingToDo) {
		t.Errorf("re-apply: %v", err)
	}
	if runs, _ := List(Options{Root: root}); len(runs) != 1 {
		t.Errorf("runs after re-apply: %d", len(runs))
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if after := digest(t, root); after != before {
		t.Error("undo did not restore the tree byte for byte")
	}
	if _, err := Undo(m.ID, Options{Root: root}); err == nil {
		t.Error("undoing twice must fail")
	}
}

func TestValidationFailureChangesNothing(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	_, err := Apply(samplePlan(), Options{Root: root, Validate: func(p string, b []byte) error {
		return errors.New("testparm: Error loading services")
	}})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	if digest(t, root) != before {
		t.Error("a failed validation changed the tree")
	}
	if runs, _ := List(Options{Root: root}); len(runs) != 0 {
		t.Error("a failed validation recorded a run")
	}
}

func TestErrorRollsBack(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	// Step 5 (after the four runtime values and the sysctl file) fails.
	m, err := Apply(samplePlan(), Options{Root: root, failAt: 5})
	if err == nil || m == nil || m.State != StateRolledBack || !strings.Contains(err.Error(), "5 earlier changes were rolled back") {
		t.Fatalf("err %v, manifest %+v", err, m)
	}
	if digest(t, root) != before {
		t.Error("rollback left changes behind")
	}
	if _, err := Apply(samplePlan(), Options{Root: root}); err != nil {
		t.Errorf("a rolled-back run must not block the next apply: %v", err)
	}
}

func TestBackupFailureChangesNothing(t *testing.T) {
	root := scratch(t)
	os.RemoveAll(filepath.Join(root, "etc/udev/rules.d"))
	os.WriteFile(filepath.Join(root, "etc/udev/rules.d"), []byte("not a folder\n"), 0o644)
	before := digest(t, root)
	p := samplePlan()
	if _, err := Apply(p, Options{Root: root}); err == nil || !strings.Contains(err.Error(), "/etc/udev/rules.d: not a folder") {
		t.Fatalf("err %v", err)
	}
	if digest(t, root) != before {
		t.Error("a failed backup changed the tree")
	}
}

// TestCrashThenUndo: a child process applies the plan and is killed
// (SIGKILL) before its step n+1, after n steps; apply then refuses to
// start, and undo restores the tree.
func TestCrashThenUndo(t *testing.T) {
	if root := os.Getenv("NASTUNE_TEST_CRASH_ROOT"); root != "" {
		n, _ := strconv.Atoi(os.Getenv("NASTUNE_TEST_CRASH_AFTER"))
		Apply(samplePlan(), Options{Root: root, pause: killAt("before-step", n+1)})
		os.Exit(0) // not reached when the fault fires
	}
	for _, after := range []int{1, 3, 6} {
		root := scratch(t)
		before := digest(t, root)
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCrashThenUndo$")
		cmd.Env = append(os.Environ(), "NASTUNE_TEST_CRASH_ROOT="+root, "NASTUNE_TEST_CRASH_AFTER="+strconv.Itoa(after))
		err := cmd.Run()
		if !killed(err) {
			t.Fatalf("child: %v (want killed by the crash point)", err)
		}
		if digest(t, root) == before {
			t.Fatalf("after %d steps nothing changed: the fault fired too early", after)
		}
		if _, err := Apply(samplePlan(), Options{Root: root}); !errors.Is(err, ErrIncomplete) {
			t.Errorf("apply over an incomplete run: %v", err)
		}
		if _, err := Undo("", Options{Root: root}); err != nil {
			t.Fatal(err)
		}
		if digest(t, root) != before {
			t.Errorf("crash after %d steps: undo did not restore the tree", after)
		}
	}
}

// TestRandomSmbConfApplyUndo: random smb.conf variants (continuations,
// comments, odd spacing, synonyms); apply an edit, then undo: the file is
// byte-identical to the original every time.
func TestRandomSmbConfApplyUndo(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	keys := []string{"use sendfile", "strict locking", "socket options", "writeable", "log level", "aio read size"}
	for i := 0; i < 60; i++ {
		root := scratch(t)
		var b strings.Builder
		b.WriteString([]string{"", "# header\n", "; vendor file\n\n"}[r.Intn(3)])
		for s, name := range []string{"global", "media", "Time Machine"}[:1+r.Intn(3)] {
			b.WriteString([]string{"[", "[", " ["}[s%3] + name + "]\n")
			for p := 0; p < r.Intn(6); p++ {
				b.WriteString([]string{"\t", "   ", ""}[r.Intn(3)] + keys[r.Intn(len(keys))] + []string{" = ", "=", " =\t"}[r.Intn(3)] +
					[]string{"yes", "no", "Auto", "TCP_NODELAY \\\n\tSO_RCVBUF=1", "16384"}[r.Intn(5)] + []string{"\n", "\r\n", "  \n"}[r.Intn(3)])
			}
		}
		orig := b.String()
		os.WriteFile(filepath.Join(root, "etc/samba/smb.conf"), []byte(orig), 0o640)
		os.Chmod(filepath.Join(root, "etc/samba/smb.conf"), 0o640) // apply and undo keep the mode
		section := []string{"global", "media"}[r.Intn(2)]
		p := plan.Plan{Changes: []plan.Change{{ID: "config-r", Kind: "config", Target: "smb.conf", To: "yes",
			Persist: &plan.Persist{File: "/etc/samba/smb.conf", Edit: &plan.Edit{Format: "smbconf", Section: section, Key: keys[r.Intn(len(keys))], Value: "yes"}}}}}
		m, err := Apply(p, Options{Root: root})
		if errors.Is(err, ErrNothingToDo) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if _, err := Undo(m.ID, Options{Root: root}); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(root, "etc/samba/smb.conf"))
		st, _ := os.Stat(filepath.Join(root, "etc/samba/smb.conf"))
		if string(got) != orig || st.Mode().Perm() != 0o640 {
			t.Fatalf("case %d: undo is not byte-identical (mode %v)\n%q\n%q", i, st.Mode().Perm(), orig, got)
		}
	}
}

// killAt is a pause hook that kills the process (SIGKILL, as kill -9) the
// n-th time it reaches stage.
func killAt(stage string, n int) func(string) {
	seen := 0
	return func(s string) {
		if s != stage {
			return
		}
		if seen++; seen == n {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Hour)
		}
	}
}

// killed: the child died of SIGKILL.
func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
