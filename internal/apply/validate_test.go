package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/test/testutil"
)

func needTestparm(t *testing.T) {
	t.Helper()
	testutil.Need(t, "testparm", "samba-common-bin")
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
	bomb := testutil.IncludeBomb(t, t.TempDir())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := scratch(t)
	conf := filepath.Join(root, "etc/samba/smb.conf")
	if err := os.WriteFile(conf, []byte("[global]\n   socket options = TCP_NODELAY SO_RCVBUF=65536\n   include = "+bomb+"\n"), 0o644); err != nil {
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
	testutil.NoTestparmLeft(t)

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
	testutil.NoTestparmLeft(t)
}
