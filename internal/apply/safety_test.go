package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/safefile"
)

func smbPlan(key, value string) plan.Plan {
	return plan.Plan{Changes: []plan.Change{{ID: "config-" + key, Kind: "config", Target: "smb.conf " + key, To: value,
		Persist: &plan.Persist{File: "/etc/samba/smb.conf", Edit: &plan.Edit{Format: "smbconf", Section: "global", Key: key, Value: value}}}}}
}

func valuePlan(p, v string) plan.Plan {
	return plan.Plan{Changes: []plan.Change{{ID: "v-" + filepath.Base(p) + v, Kind: "sysctl", Target: p, To: v, Runtime: p}}}
}

// tempFiles lists apply's temp files left anywhere under root.
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestConcurrentAppliesLoseNoEdit: 20 applies at once, each setting its own
// smb.conf key, all keep their edit (without the lock they overwrite each
// other's), and undoing them all restores the original.
func TestConcurrentAppliesLoseNoEdit(t *testing.T) {
	root := scratch(t)
	orig := read(t, root, "etc/samba/smb.conf")
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Apply(smbPlan(fmt.Sprintf("comment%02d", i), "x"), Options{Root: root, Wait: true})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
	}
	got := read(t, root, "etc/samba/smb.conf")
	for i := range 20 {
		if !strings.Contains(got, fmt.Sprintf("comment%02d = x", i)) {
			t.Errorf("edit %d lost:\n%s", i, got)
		}
	}
	runs, _ := List(Options{Root: root})
	if len(runs) != 20 {
		t.Fatalf("%d runs", len(runs))
	}
	for range 20 {
		if _, err := Undo("", Options{Root: root}); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(t, root, "etc/samba/smb.conf"); got != orig {
		t.Errorf("after undoing all:\n%q\nwant\n%q", got, orig)
	}
}

// TestBusyLock: a second apply fails with the holder's pid; with Wait it
// waits, then plans again from what is on disk.
func TestBusyLock(t *testing.T) {
	root := scratch(t)
	o := Options{Root: root}
	o.defaults()
	l, err := lock(&o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Apply(smbPlan("comment", "a"), Options{Root: root})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != os.Getpid() || !strings.Contains(err.Error(), fmt.Sprintf("another nastune apply is running (pid %d)", os.Getpid())) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Undo("", Options{Root: root}); !errors.As(err, &busy) {
		t.Fatalf("undo while locked: %v", err)
	}
	replanned := false
	done := make(chan error)
	waited := make(chan int, 1)
	go func() {
		_, err := Apply(smbPlan("comment", "a"), Options{Root: root, Wait: true, Waiting: func(pid int) { waited <- pid },
			Replan: func() (plan.Plan, error) {
				replanned = true
				// What the audit would now say: the value the first run
				// wrote (below) is stale, the plan is made from disk.
				p := smbPlan("comment", "b")
				p.Changes[0].ID = "config-comment"
				p.Changes = append(p.Changes, smbPlan("unconfirmed", "z").Changes...)
				return p, nil
			}})
		done <- err
	}()
	if pid := <-waited; pid != os.Getpid() {
		t.Errorf("waiting message pid %d", pid)
	}
	select {
	case err := <-done:
		t.Fatalf("apply did not wait for the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	l.unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := read(t, root, "etc/samba/smb.conf")
	if !replanned || !strings.Contains(got, "comment = b") || strings.Contains(got, "unconfirmed") {
		t.Errorf("replanned %v, smb.conf:\n%s", replanned, got)
	}
}

// TestSameSecondRunsUndoInOrder: runs in the same second (and a clock
// stepped back) are undone newest first, by sequence.
func TestSameSecondRunsUndoInOrder(t *testing.T) {
	root := scratch(t)
	p := "/proc/sys/vm/vfs_cache_pressure"
	clock := []time.Time{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	var ids []string
	for i, v := range []string{"200", "300", "400"} {
		m, err := Apply(valuePlan(p, v), Options{Root: root, Now: func() time.Time { return clock[i] }})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	runs, _ := List(Options{Root: root})
	for i, r := range runs {
		if r.ID != ids[i] {
			t.Fatalf("run order %v, want %v", runs, ids)
		}
	}
	for _, want := range []string{"300", "200", "1000"} {
		if _, err := Undo("", Options{Root: root}); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(read(t, root, "proc/sys/vm/vfs_cache_pressure")); got != want {
			t.Fatalf("after undo: %s, want %s", got, want)
		}
	}
}

// TestUndoKeepsLaterEdits: an edit elsewhere in the file is kept (our hunk
// reversed); an edit of our lines refuses with a diff, --force overrides.
func TestUndoKeepsLaterEdits(t *testing.T) {
	root := scratch(t)
	f := filepath.Join(root, "etc/samba/smb.conf")
	orig := read(t, root, "etc/samba/smb.conf")
	m, err := Apply(samplePlan(), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	after := read(t, root, "etc/samba/smb.conf")
	os.WriteFile(f, []byte(after+"\n[backup]\n\tpath = /srv/backup\n"), 0o644)
	if _, err := Undo(m.ID, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, root, "etc/samba/smb.conf"), orig+"\n[backup]\n\tpath = /srv/backup\n"; got != want {
		t.Errorf("merged undo:\n%q\nwant\n%q", got, want)
	}

	// Same lines edited: refused, nothing restored anywhere.
	root = scratch(t)
	f = filepath.Join(root, "etc/samba/smb.conf")
	m, err = Apply(samplePlan(), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.Replace(read(t, root, "etc/samba/smb.conf"), "socket options = TCP_NODELAY", "socket options = TCP_NODELAY IPTOS_LOWDELAY", 1)
	os.WriteFile(f, []byte(theirs), 0o644)
	_, err = Undo(m.ID, Options{Root: root})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || !strings.Contains(err.Error(), "+   socket options = TCP_NODELAY IPTOS_LOWDELAY") ||
		!strings.Contains(err.Error(), "-   socket options = TCP_NODELAY\n") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v", err)
	}
	if read(t, root, "etc/samba/smb.conf") != theirs || strings.TrimSpace(read(t, root, "proc/sys/net/ipv4/tcp_timestamps")) != "1" {
		t.Error("a refused undo changed something")
	}
	if _, err := Undo(m.ID, Options{Root: root, Force: true}); err != nil {
		t.Fatal(err)
	}
	if read(t, root, "etc/samba/smb.conf") != orig {
		t.Error("--force did not restore")
	}

	// A file this run created and someone edited since: not removed.
	root = scratch(t)
	m, _ = Apply(samplePlan(), Options{Root: root})
	os.WriteFile(filepath.Join(root, "etc/sysctl.d/90-nastune.conf"), []byte("vm.swappiness = 1\n"), 0o644)
	if _, err := Undo(m.ID, Options{Root: root}); !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	// A runtime value someone changed since: refused too.
	root = scratch(t)
	m, _ = Apply(samplePlan(), Options{Root: root})
	os.WriteFile(filepath.Join(root, "proc/sys/vm/vfs_cache_pressure"), []byte("50\n"), 0o644)
	if _, err := Undo(m.ID, Options{Root: root}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "vfs_cache_pressure") {
		t.Fatalf("err = %v", err)
	}
}

// TestEditDuringApplyNotOverwritten: smb.conf edited after planning (during
// validation), just before the rename: apply does not overwrite it and
// rolls back.
func TestEditDuringApplyNotOverwritten(t *testing.T) {
	root := scratch(t)
	f := filepath.Join(root, "etc/samba/smb.conf")
	theirs := "[global]\n\tworkgroup = THEIRS\n"
	m, err := Apply(samplePlan(), Options{Root: root, beforeRename: func(real string) {
		if real == "/etc/samba/smb.conf" {
			os.WriteFile(f, []byte(theirs), 0o644)
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "changed by someone else") || m.State != StateRolledBack {
		t.Fatalf("err %v", err)
	}
	if read(t, root, "etc/samba/smb.conf") != theirs {
		t.Error("the concurrent edit was overwritten")
	}
	if strings.TrimSpace(read(t, root, "proc/sys/net/ipv4/tcp_timestamps")) != "0" {
		t.Error("not rolled back")
	}
	if tf := tempFiles(t, root); len(tf) > 0 {
		t.Errorf("temp files left: %v", tf)
	}
}

// TestExactRestore: a symlinked smb.conf keeps its link (its target is
// edited), owner, group, mode and xattrs survive apply and undo, and a
// dangling link nastune writes through is kept.
func TestExactRestore(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	root := scratch(t)
	smb := filepath.Join(root, "etc/samba/smb.conf")
	real := filepath.Join(root, "srv/conf/smb.conf")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.Rename(smb, real)
	os.Symlink("/srv/conf/smb.conf", smb) // absolute: resolved inside the root
	os.Chown(real, 1000, 1001)
	os.Chmod(real, 0o640)
	if err := unix.Setxattr(real, "user.nastune-test", []byte("kept"), 0); err != nil {
		t.Fatal(err)
	}
	sysctl := filepath.Join(root, "etc/sysctl.d/90-nastune.conf")
	os.Remove(filepath.Join(root, "etc/sysctl.d/99-nas-tuning.conf"))
	os.Symlink("../../srv/conf/sysctl-nas.conf", sysctl) // dangling
	origSmb := read(t, root, "srv/conf/smb.conf")

	check := func(when string) {
		t.Helper()
		if fi, err := os.Lstat(smb); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: smb.conf is no longer a link", when)
		}
		if fi, err := os.Lstat(sysctl); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the sysctl link is gone", when)
		}
		var st unix.Stat_t
		unix.Stat(real, &st)
		if st.Uid != 1000 || st.Gid != 1001 || st.Mode&0o7777 != 0o640 {
			t.Errorf("%s: owner %d:%d mode %o", when, st.Uid, st.Gid, st.Mode&0o7777)
		}
		buf := make([]byte, 64)
		if n, err := unix.Getxattr(real, "user.nastune-test", buf); err != nil || string(buf[:n]) != "kept" {
			t.Errorf("%s: xattr lost: %v", when, err)
		}
	}
	m, err := Apply(samplePlan(), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	check("after apply")
	if !strings.Contains(read(t, root, "srv/conf/smb.conf"), "socket options = TCP_NODELAY\n") {
		t.Error("the link target was not edited")
	}
	if !strings.Contains(read(t, root, "srv/conf/sysctl-nas.conf"), "vm.vfs_cache_pressure = 100") {
		t.Error("the dangling link's target was not created")
	}
	if _, err := Undo(m.ID, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	check("after undo")
	if read(t, root, "srv/conf/smb.conf") != origSmb {
		t.Error("smb.conf not restored")
	}
	if _, err := os.Stat(filepath.Join(root, "srv/conf/sysctl-nas.conf")); !os.IsNotExist(err) {
		t.Error("the created target was not removed")
	}
	// Owner and mode restored even when the bytes are back already.
	m, _ = Apply(samplePlan(), Options{Root: root})
	os.Chown(real, 0, 0)
	os.Chmod(real, 0o600)
	os.WriteFile(real, []byte(origSmb), 0o600)
	if _, err := Undo(m.ID, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	check("after undo of reset owner")
}

// TestPlantedLinkRefused: a link owned by another user in the path is not
// followed: nothing outside is written.
func TestPlantedLinkRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (lchown)")
	}
	root := scratch(t)
	victim := filepath.Join(root, "etc/shadow")
	os.WriteFile(victim, []byte("root:*:1:0:99999:7:::\n"), 0o600)
	link := filepath.Join(root, "etc/sysctl.d/90-nastune.conf")
	os.Symlink("/etc/shadow", link)
	os.Lchown(link, 1000, 1000)
	if _, err := Apply(samplePlan(), Options{Root: root}); err == nil || !strings.Contains(err.Error(), "owned by uid 1000") {
		t.Fatalf("err = %v", err)
	}
	if read(t, root, "etc/shadow") != "root:*:1:0:99999:7:::\n" {
		t.Error("the planted link was followed")
	}
	// A temp name planted as a link is not followed either (O_EXCL).
	os.Remove(link)
	if err := writeFile(root, "/etc/sysctl.d/x.conf", []byte("a\n"), nil, expect{any: true}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestApplyTrustsWhatSafefileTrusts: apply walks with safefile's policy,
// so it refuses what safefile.OpenDir refuses: a root-owned link in a
// folder another user owns (that user can put any of root's links there,
// aimed anywhere), and a target folder everyone may write without the
// sticky bit. Before the walkers were one, apply checked only the link's
// owner and wrote through both.
func TestApplyTrustsWhatSafefileTrusts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	const shadow = "root:*:1:0:99999:7:::\n"
	t.Run("link in a foreign folder", func(t *testing.T) {
		root := scratch(t)
		os.WriteFile(filepath.Join(root, "etc/shadow"), []byte(shadow), 0o600)
		smb := filepath.Join(root, "etc/samba/smb.conf")
		os.Remove(smb)
		if err := os.Symlink("/etc/shadow", smb); err != nil { // owned by root
			t.Fatal(err)
		}
		os.Chown(filepath.Join(root, "etc/samba"), 1000, 1000)
		_, err := Apply(smbPlan("comment", "x"), Options{Root: root})
		if !errors.Is(err, safefile.ErrUnsafe) || !strings.Contains(err.Error(), "folder owned by uid 1000") {
			t.Errorf("err = %v", err)
		}
		if read(t, root, "etc/shadow") != shadow {
			t.Error("apply wrote through a link in a folder another user owns")
		}
		// safefile refuses the same walk.
		if _, err := safefile.OpenDir(filepath.Join(root, "etc/samba/smb.conf")); !errors.Is(err, safefile.ErrUnsafe) {
			t.Errorf("safefile: %v", err)
		}
	})
	t.Run("world-writable folder", func(t *testing.T) {
		root := scratch(t)
		dir := filepath.Join(root, "etc/samba")
		os.Chmod(dir, 0o777)
		orig := read(t, root, "etc/samba/smb.conf")
		_, err := Apply(smbPlan("comment", "x"), Options{Root: root})
		if !errors.Is(err, safefile.ErrUnsafe) || !strings.Contains(err.Error(), "writable by everyone") {
			t.Errorf("err = %v", err)
		}
		if read(t, root, "etc/samba/smb.conf") != orig {
			t.Error("apply wrote into a folder everyone may write")
		}
		if _, err := safefile.OpenDir(dir); !errors.Is(err, safefile.ErrUnsafe) {
			t.Errorf("safefile: %v", err)
		}
		os.Chmod(dir, os.ModeSticky|0o777) // /tmp-like: fine for both
		if _, err := Apply(smbPlan("comment", "x"), Options{Root: root}); err != nil {
			t.Errorf("sticky folder: %v", err)
		}
	})
}

// TestJournalFullRollsBack: the journal's file system fills up in the
// middle of a run (a 256 KiB tmpfs in a private mount namespace): the next
// change is not made, the ones made are rolled back, and the run blocks
// apply until undo (which has nothing left to restore) closes it.
func TestJournalFullRollsBack(t *testing.T) {
	if dir := os.Getenv("NASTUNE_TEST_ENOSPC"); dir != "" {
		enospcChild(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (mount namespace)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	root := scratch(t)
	cmd := exec.Command("unshare", "-m", "--propagation", "private", os.Args[0], "-test.run", "^TestJournalFullRollsBack$", "-test.v")
	cmd.Env = append(os.Environ(), "NASTUNE_TEST_ENOSPC="+root)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ENOSPC-CHILD-OK") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func enospcChild(t *testing.T, root string) {
	state := filepath.Join(root, "var/lib/nastune")
	os.MkdirAll(state, 0o700)
	if err := unix.Mount("tmpfs", state, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer unix.Unmount(state, unix.MNT_DETACH)
	before := digest(t, root)
	filled := false
	o := Options{Root: root, afterStep: func(i int, m *Manifest) {
		if i == 2 && !filled {
			filled = true
			f, _ := os.Create(filepath.Join(state, "filler"))
			buf := make([]byte, 4096)
			for {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
			f.Close()
		}
	}}
	m, err := Apply(samplePlan(), o)
	if err == nil || !errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("err = %v", err)
	}
	if digest(t, root) != before {
		t.Fatalf("a full journal left changes live (run %+v)", m)
	}
	if tf := tempFiles(t, root); len(tf) > 0 {
		t.Errorf("temp files left: %v", tf)
	}
	os.Remove(filepath.Join(state, "filler"))
	// When the journal on disk could not record the rollback, the run
	// blocks apply and undo (with nothing left to restore) closes it.
	runs, _ := List(Options{Root: root})
	if len(runs) != 1 {
		t.Fatalf("runs: %+v", runs)
	}
	if blocking(runs[0].State) {
		if _, err := Apply(samplePlan(), Options{Root: root}); !errors.Is(err, ErrIncomplete) {
			t.Fatalf("apply after a failed journal: %v", err)
		}
		if _, err := Undo("", Options{Root: root}); err != nil {
			t.Fatal(err)
		}
	}
	if digest(t, root) != before {
		t.Fatal("undo changed the tree")
	}
	if _, err := Apply(samplePlan(), Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ENOSPC-CHILD-OK")
}

// TestPartialRollbackUndoFinishes: a rollback that cannot restore one step
// leaves the run "rollback-incomplete" with per-step states; apply is
// blocked and undo finishes what is left.
func TestPartialRollbackUndoFinishes(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	nfs := filepath.Join(root, "etc/default/nfs-kernel-server")
	o := Options{Root: root, failAt: 6}
	// The failing step is smb.conf (step 7); while rolling back, the nfs
	// file (step 6) cannot be restored: its folder is unwritable.
	o.pause = func(stage string) {
		if stage == "restore" {
			os.Rename(filepath.Join(root, "etc/default"), filepath.Join(root, "etc/default.away"))
			os.WriteFile(filepath.Join(root, "etc/default"), []byte("x"), 0o644)
		}
	}
	m, err := Apply(samplePlan(), o)
	if err == nil || m.State != StateRollbackIncomplete || !strings.Contains(err.Error(), "rolling back also failed") {
		t.Fatalf("err %v state %s", err, m.State)
	}
	os.Remove(filepath.Join(root, "etc/default"))
	os.Rename(filepath.Join(root, "etc/default.away"), filepath.Join(root, "etc/default"))
	states := map[string]int{}
	for _, s := range m.Steps {
		states[s.State]++
	}
	if states[StepRestoreFailed] == 0 || states[StepRestored] == 0 {
		t.Fatalf("step states %v", states)
	}
	if !strings.Contains(read(t, root, "etc/default/nfs-kernel-server"), "=4") {
		t.Fatalf("the injected restore failure did not bite: the nfs file reads %q, want the applied =4 left by the failed restore",
			read(t, root, "etc/default/nfs-kernel-server"))
	}
	if _, err := Apply(samplePlan(), Options{Root: root}); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("apply over a partial rollback: %v", err)
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if digest(t, root) != before {
		t.Errorf("undo did not finish the rollback: %s", read(t, root, "etc/default/nfs-kernel-server"))
	}
	_ = nfs
}

// TestDamagedRuns: a run folder without manifest, a truncated manifest and
// an edited one are listed as damaged, block apply and undo, and go away
// with Discard only.
func TestDamagedRuns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(dir string)
	}{
		{"manifest-less", func(dir string) { os.Remove(filepath.Join(dir, "manifest.json")) }},
		{"truncated", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
			os.WriteFile(filepath.Join(dir, "manifest.json"), b[:len(b)/2], 0o600)
		}},
		{"edited", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
			os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(strings.Replace(string(b), `/etc/sysctl.d/90-nastune.conf`, `/etc/shadow`, 1)), 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, m, dir := appliedBesideSecret(t)
			tc.damage(dir)
			runs, _ := List(Options{Root: root})
			if len(runs) != 1 || runs[0].State != StateDamaged || runs[0].ID != m.ID {
				t.Fatalf("runs %+v", runs)
			}
			if _, err := Apply(smbPlan("comment", "x"), Options{Root: root}); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "--discard "+m.ID) {
				t.Fatalf("apply over a damaged run: %v", err)
			}
			if _, err := Undo("", Options{Root: root}); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("undo of a damaged run: %v", err)
			}
			if _, err := Undo(m.ID, Options{Root: root}); err == nil {
				t.Fatal("undo of a damaged run by id succeeded")
			}
			if read(t, root, "etc/shadow") != "secret\n" {
				t.Fatal("undo touched a path the run did not write")
			}
			if err := Discard(m.ID, Options{Root: root}); err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(smbPlan("comment", "x"), Options{Root: root}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// appliedBesideSecret applies samplePlan to a scratch tree that also holds
// an /etc/shadow no run writes, for tests that damage the run's journal
// (in dir) and check that undo never reaches the secret.
func appliedBesideSecret(t *testing.T) (root string, m *Manifest, dir string) {
	t.Helper()
	root = scratch(t)
	os.WriteFile(filepath.Join(root, "etc/shadow"), []byte("secret\n"), 0o600)
	m, err := Apply(samplePlan(), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return root, m, filepath.Join(root, "var/lib/nastune/runs", m.ID)
}

// TestTamperedStepsRefused: a journal whose checksum is right but whose
// steps reach outside what nastune writes is refused as a whole.
func TestTamperedStepsRefused(t *testing.T) {
	root, m, dir := appliedBesideSecret(t)
	for _, evil := range []func(m *Manifest){
		func(m *Manifest) { m.Steps[4].Path = "/etc/shadow" },
		func(m *Manifest) { m.Steps[0].Path = "/etc/shadow"; m.Steps[0].Kind = "value" },
		func(m *Manifest) { m.Steps[6].Backup = "files/../../../../etc/shadow" },
		func(m *Manifest) { m.Steps[5].Path = "/etc/udev/rules.d/../../shadow" },
	} {
		mm, _ := readManifest(dir)
		evil(mm)
		if err := writeManifest(dir, mm, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := Undo(m.ID, Options{Root: root, Force: true}); err == nil || !strings.Contains(err.Error(), "refusing the journal") {
			t.Fatalf("err = %v", err)
		}
		if read(t, root, "etc/shadow") != "secret\n" {
			t.Fatal("a tampered journal touched /etc/shadow")
		}
	}
}

// TestOldFormatRunUndoes: a version-1 journal (plain manifest, Done
// flags, timestamp ID) written by earlier nastune still undoes, and sorts
// before new runs.
func TestOldFormatRunUndoes(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	orig := read(t, root, "etc/samba/smb.conf")
	id := "20250101-120000-abcdef"
	dir := filepath.Join(root, "var/lib/nastune/runs", id)
	os.MkdirAll(filepath.Join(dir, "files"), 0o700)
	os.WriteFile(filepath.Join(dir, "files/etc%samba%smb.conf"), []byte(orig), 0o600)
	newSmb := strings.Replace(orig, "TCP_NODELAY SO_RCVBUF=65536", "TCP_NODELAY", 1)
	os.WriteFile(filepath.Join(root, "etc/samba/smb.conf"), []byte(newSmb), 0o644)
	os.WriteFile(filepath.Join(root, "proc/sys/vm/vfs_cache_pressure"), []byte("100\n"), 0o644)
	v1 := fmt.Sprintf(`{"id":%q,"started":"2025-01-01T12:00:00Z","state":"complete","changes":["x"],"steps":[
 {"change":"a","kind":"value","path":"/proc/sys/vm/vfs_cache_pressure","before":"1000","after":"100","done":true},
 {"change":"b","kind":"file","path":"/etc/samba/smb.conf","existed":true,"backup":"files/etc%%samba%%smb.conf","before_sha256":%q,"after":%q,"done":true}]}`,
		id, sha([]byte(orig)), sha([]byte(newSmb)))
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(v1), 0o600)
	m2, err := Apply(smbPlan("comment", "new"), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := List(Options{Root: root})
	if len(runs) != 2 || runs[0].ID != id || runs[1].ID != m2.ID {
		t.Fatalf("order %v", runs)
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo("", Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if digest(t, root) != before {
		t.Error("the old-format run was not restored")
	}
}

// TestStrayTempFiles: a failing write leaves no temp file, and the temp
// files of a killed run are removed by the next apply.
func TestStrayTempFiles(t *testing.T) {
	root := scratch(t)
	left := filepath.Join(root, "etc/samba", tempPrefix+"deadbeef")
	os.WriteFile(left, []byte("half"), 0o600)
	oldLeft := filepath.Join(root, "etc/samba", ".smb.conf.nastune-2718281828") // earlier nastune's name
	os.WriteFile(oldLeft, []byte("half"), 0o600)
	userFile := filepath.Join(root, "etc/samba", ".smb.conf.nastune-notes") // not ours: kept
	os.WriteFile(userFile, []byte("mine"), 0o600)
	os.Mkdir(filepath.Join(root, "etc/samba", tempPrefix+"notmine"), 0o755) // not a regular file: kept
	if _, err := Apply(samplePlan(), Options{Root: root, failAt: 7}); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Error("leftover temp file not removed")
	}
	if _, err := os.Stat(oldLeft); !os.IsNotExist(err) {
		t.Error("an earlier nastune's leftover temp file not removed")
	}
	if _, err := os.Stat(userFile); err != nil {
		t.Error("a file that is not nastune's temp file was removed")
	}
	if tf := tempFiles(t, root); len(tf) != 1 {
		t.Errorf("temp files: %v", tf)
	}
	// A write that fails after its temp file exists removes it.
	if err := writeFile(root, "/etc/samba/smb.conf", make([]byte, 10), nil, expect{exists: true, sha: "not-this"}, nil); !errors.Is(err, errChanged) {
		t.Fatalf("err = %v", err)
	}
	if tf := tempFiles(t, root); len(tf) != 1 {
		t.Errorf("temp files after a failed write: %v", tf)
	}
}

// TestKillAnywhereUndoRestores: apply (and every other time, the undo
// that follows) is SIGKILLed at random moments; whatever is left, undo
// restores the tree byte for byte and leaves no temp file, and a killed
// apply never leaves a damaged run.
func TestKillAnywhereUndoRestores(t *testing.T) {
	if root := os.Getenv("NASTUNE_TEST_KILL_ROOT"); root != "" {
		r := rand.New(rand.NewSource(int64(os.Getpid())))
		o := Options{Root: root, pause: func(string) { time.Sleep(time.Duration(r.Intn(1500)) * time.Microsecond) }}
		o.beforeRename = func(string) { time.Sleep(time.Duration(r.Intn(1500)) * time.Microsecond) }
		if os.Getenv("NASTUNE_TEST_KILL_UNDO") != "" {
			Undo("", o)
		} else {
			Apply(samplePlan(), o)
		}
		time.Sleep(time.Hour) // wait to be killed
		return
	}
	trials := 40
	if testing.Short() {
		trials = 8
	}
	if n, err := strconv.Atoi(os.Getenv("NASTUNE_KILL_TRIALS")); err == nil {
		trials = n // stress runs
	}
	r := rand.New(rand.NewSource(1))
	seen := map[string]int{}
	defer func() { t.Logf("states after the kill: %v", seen) }()
	for trial := range trials {
		root := scratch(t)
		before := digest(t, root)
		cmd := exec.Command(os.Args[0], "-test.run", "^TestKillAnywhereUndoRestores$")
		cmd.Env = append(os.Environ(), "NASTUNE_TEST_KILL_ROOT="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Intn(60)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		runs, err := List(Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 0 {
			seen["none"]++
		} else {
			seen[runs[0].State]++
		}
		if len(runs) == 1 && runs[0].State == StateDamaged {
			t.Fatalf("trial %d: a killed apply left a damaged run: %s", trial, runs[0].Error)
		}
		if len(runs) == 1 && runs[0].State != StateRolledBack && trial%2 == 1 {
			// Kill an undo too, at a random moment.
			cmd := exec.Command(os.Args[0], "-test.run", "^TestKillAnywhereUndoRestores$")
			cmd.Env = append(os.Environ(), "NASTUNE_TEST_KILL_ROOT="+root, "NASTUNE_TEST_KILL_UNDO=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(r.Intn(40)) * time.Millisecond)
			cmd.Process.Kill()
			cmd.Wait()
			runs, _ = List(Options{Root: root})
			seen["undo killed: "+runs[0].State]++
		}
		if len(runs) == 1 && runs[0].State != StateRolledBack && runs[0].State != StateUndone {
			if _, err := Undo("", Options{Root: root}); err != nil {
				t.Fatalf("trial %d (state %s): %v", trial, runs[0].State, err)
			}
		}
		if digest(t, root) != before {
			t.Fatalf("trial %d: undo did not restore the tree (runs %+v)", trial, runs)
		}
		if tf := tempFiles(t, filepath.Join(root, "etc")); len(tf) > 0 {
			t.Fatalf("trial %d: temp files left: %v", trial, tf)
		}
		if _, err := Apply(samplePlan(), Options{Root: root}); err != nil {
			t.Fatalf("trial %d: apply after undo: %v", trial, err)
		}
	}
	// Kills that all land before the child's apply starts test nothing
	// (here 10-15 of 40 land inside it). -short's 8 trials may miss.
	if !testing.Short() && seen["none"] == trials {
		t.Errorf("none of %d kills landed inside an apply: the test exercised nothing", trials)
	}
}

// TestPreviewStaysInRoot: plan --root reads a captured tree; an absolute
// link in it resolves inside the tree, never to the host's file.
func TestPreviewStaysInRoot(t *testing.T) {
	root := scratch(t)
	smb := filepath.Join(root, "etc/samba/smb.conf")
	os.Remove(smb)
	os.Symlink("/etc/hostname", smb) // host: this machine's; tree: absent
	_, files, err := Preview(smbPlan("comment", "x"), Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.ReadFile("/etc/hostname")
	if len(files) != 1 || files[0].OldExisted || (len(host) > 0 && strings.Contains(string(files[0].Old), string(host))) {
		t.Fatalf("preview read outside the root: %+v", files)
	}
	os.WriteFile(filepath.Join(root, "etc/hostname"), []byte("[global]\n"), 0o644)
	_, files, _ = Preview(smbPlan("comment", "x"), Options{Root: root})
	if len(files) != 1 || string(files[0].Old) != "[global]\n" {
		t.Fatalf("preview did not follow the link inside the root: %+v", files)
	}
}

// TestSpecialFilesRefused: a FIFO where a sysctl or smb.conf should be
// is refused at once instead of hanging the run.
func TestSpecialFilesRefused(t *testing.T) {
	root := scratch(t)
	os.Remove(filepath.Join(root, "proc/sys/vm/vfs_cache_pressure"))
	if err := unix.Mkfifo(filepath.Join(root, "proc/sys/vm/vfs_cache_pressure"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "etc/samba/smb.conf"))
	unix.Mkfifo(filepath.Join(root, "etc/samba/smb.conf"), 0o644)
	done := make(chan error, 2)
	go func() {
		_, err := Apply(valuePlan("/proc/sys/vm/vfs_cache_pressure", "100"), Options{Root: root})
		done <- err
	}()
	go func() { _, _, err := Preview(smbPlan("comment", "x"), Options{Root: root}); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a FIFO hung apply")
		}
	}
}

// TestJournalWriteFailsBeforeChange: when the journal cannot record that a
// step is about to happen, the step is not made and the steps before it
// are rolled back.
func TestJournalWriteFailsBeforeChange(t *testing.T) {
	root := scratch(t)
	before := digest(t, root)
	failed := false
	o := Options{Root: root, journalFault: func(m *Manifest) error {
		if !failed && len(m.Steps) > 3 && m.Steps[3].State == StepApplying {
			failed = true
			return syscall.EIO
		}
		return nil
	}}
	m, err := Apply(samplePlan(), o)
	if err == nil || !strings.Contains(err.Error(), "the change was not made") || !strings.Contains(err.Error(), "3 earlier changes were rolled back") {
		t.Fatalf("err = %v", err)
	}
	if m.State != StateRolledBack || m.Steps[3].State != StepPending || m.Steps[0].State != StepRestored {
		t.Fatalf("states: run %s, steps %s %s", m.State, m.Steps[0].State, m.Steps[3].State)
	}
	if strings.TrimSpace(read(t, root, "proc/fs/nfsd/threads")) != "1" || digest(t, root) != before {
		t.Error("the tree changed")
	}
}
