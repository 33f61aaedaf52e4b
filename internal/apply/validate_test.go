package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/plan"
)

func needTestparm(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("testparm"); err != nil {
		t.Skip("testparm not installed (Debian package samba-common-bin)")
	}
}

// socketPlan edits [global] socket options of the scratch tree's smb.conf.
func socketPlan() plan.Plan {
	return plan.Plan{Changes: []plan.Change{{ID: "config-1", Kind: "config", Target: "/etc/samba/smb.conf:[global]:socket options",
		From: "TCP_NODELAY SO_RCVBUF=65536", To: "TCP_NODELAY",
		Persist: &plan.Persist{File: "/etc/samba/smb.conf", Edit: &plan.Edit{Format: "smbconf", Section: "global", Key: "socket options", Value: "TCP_NODELAY"}}}}}
}

// noTemps fails when a temp file of nastune or testparm's input is left
// in dir (TMPDIR, or the folder of the config).
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), "nastune") || strings.Contains(e.Name(), "smb.conf-") {
			t.Errorf("left in %s: %s", dir, e.Name())
		}
	}
}

// TestValidateRealTestparm: the real testparm accepts the edit of a good
// smb.conf and rejects one it cannot load, naming the file and the line.
func TestValidateRealTestparm(t *testing.T) {
	needTestparm(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	v := ConfigValidator(context.Background(), cmdrun.Limits{Memory: cmdrun.MinMemory})
	root := scratch(t)
	vals, files, err := Preview(socketPlan(), Options{Root: root, Validate: v})
	if err != nil || len(files) != 1 || len(vals) != 0 {
		t.Fatalf("a valid edit: %v %v %v", vals, files, err)
	}
	// A value testparm refuses, already in the file: the edit is refused,
	// and the error points at the line.
	conf := filepath.Join(root, "etc/samba/smb.conf")
	if err := os.WriteFile(conf, []byte("# NAS\n[global]\n   socket options = TCP_NODELAY SO_RCVBUF=65536\n\n[media]\n\tpath = /srv/media\n\tread only = maybe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := digest(t, root)
	_, err = Apply(socketPlan(), Options{Root: root, Validate: v})
	t.Logf("rejected: %v", err)
	if err == nil || !strings.Contains(err.Error(), "/etc/samba/smb.conf line 7 (read only = maybe)") || !strings.Contains(err.Error(), "not boolean") {
		t.Fatalf("err = %v", err)
	}
	if digest(t, root) != before {
		t.Error("a rejected edit changed the tree")
	}
	// A parameter testparm names: the line is found whatever its
	// spelling (Samba ignores case and blanks in names).
	os.WriteFile(conf, []byte("[global]\n   socket options = SO_RCVBUF=65536\n   Server Min  Protocol = BOGUS\n"), 0o644)
	_, err = Apply(socketPlan(), Options{Root: root, Validate: v})
	if err == nil || !strings.Contains(err.Error(), "line 3 (Server Min  Protocol = BOGUS)") || !strings.Contains(err.Error(), "Ignoring invalid value 'BOGUS'") {
		t.Fatalf("err = %v", err)
	}
	noTemps(t, tmp)
	noTemps(t, filepath.Join(root, "etc/samba"))
}

// TestValidateIncludeBomb: an smb.conf whose includes fan out (10 per
// file, 8 levels) drove testparm to 2.6 GB during apply's validation.
// Now testparm is killed at the limit with its process group, apply
// changes nothing and records no run, and no temp file is left.
func TestValidateIncludeBomb(t *testing.T) {
	needTestparm(t)
	bomb := t.TempDir()
	for i := 0; i < 8; i++ {
		var sb strings.Builder
		for k := 0; k < 10; k++ {
			fmt.Fprintf(&sb, "include = %s/f%d.conf\n", bomb, i+1)
		}
		if err := os.WriteFile(filepath.Join(bomb, fmt.Sprintf("f%d.conf", i)), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	leaf := "[global]\n\tcomment = " + strings.Repeat("x", 60000) + "\n"
	if err := os.WriteFile(filepath.Join(bomb, "f8.conf"), []byte(leaf), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := scratch(t)
	conf := filepath.Join(root, "etc/samba/smb.conf")
	if err := os.WriteFile(conf, []byte("[global]\n   socket options = TCP_NODELAY SO_RCVBUF=65536\n   include = "+bomb+"/f0.conf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := digest(t, root)
	start := time.Now()
	_, err := Apply(socketPlan(), Options{Root: root, Validate: ConfigValidator(context.Background(), cmdrun.Limits{Timeout: 2 * time.Second, Memory: cmdrun.MinMemory})})
	// The bomb is stopped by the wall-clock timeout or by RLIMIT_CPU
	// (whichever comes first): cmdrun reports both as ErrTimeout.
	if !errors.Is(err, cmdrun.ErrTimeout) || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "/etc/samba/smb.conf") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("validation returned after %v", d)
	}
	if digest(t, root) != before {
		t.Error("the include bomb's apply changed the tree")
	}
	if runs, _ := List(Options{Root: root}); len(runs) != 0 {
		t.Error("a failed validation recorded a run")
	}
	noTemps(t, tmp)
	noTemps(t, filepath.Join(root, "etc/samba"))
	noTestparmLeft(t)

	// Cancelling (Ctrl-C) stops it too, long before the time limit.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	_, err = Apply(socketPlan(), Options{Root: root, Validate: ConfigValidator(ctx, cmdrun.Limits{Timeout: time.Minute})})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Fatalf("cancelled validation: %v after %v", err, time.Since(start))
	}
	if digest(t, root) != before {
		t.Error("a cancelled validation changed the tree")
	}
	noTemps(t, tmp)
	noTestparmLeft(t)
}

// noTestparmLeft: no testparm reading /dev/fd/3 (cmdrun's input) that
// this test process started is still running. Other test binaries run
// testparm the same way at the same time (go test runs packages in
// parallel): only descendants of this process count.
func noTestparmLeft(t *testing.T) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !descendant(pid, os.Getpid()) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.Contains(string(b), "testparm") || !strings.Contains(string(b), "/dev/fd/3") {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue // a zombie of another test's group, already dead
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("testparm %d survived: %s", pid, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// descendant reports whether pid is a child, grandchild … of ancestor,
// following the parent pids in /proc/PID/stat.
func descendant(pid, ancestor int) bool {
	for range 64 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		i := strings.LastIndexByte(string(st), ')')
		if i < 0 {
			return false
		}
		f := strings.Fields(string(st[i+1:])) // state, ppid, …
		if len(f) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if ppid == ancestor {
			return true
		}
		pid = ppid
	}
	return false
}
