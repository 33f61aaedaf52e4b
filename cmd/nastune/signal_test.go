package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/fixture"
)

// hostileTree is the raid6-server fixture with FIFOs where the audit reads
// meminfo, mdstat, smb.conf and the file smb.conf includes.
func hostileTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := fixture.UnpackFile(filepath.Join(fixture.HostsDir(), "raid6-server.txtar"), dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"proc/meminfo", "proc/mdstat", "etc/samba/smb.conf", "etc/samba/shares.conf"} {
		f := filepath.Join(dir, p)
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// slowTree is hostileTree with thousands of NetworkManager connection files
// (read one by one by the owners probe, none with an [ethtool] section), so
// the audit takes a while on any machine and a signal sent 20-80 ms in
// lands while it probes: the audit of the bare tree now ends within a few
// milliseconds, before any signal.
func slowTree(t *testing.T) string {
	t.Helper()
	dir := hostileTree(t)
	nm := filepath.Join(dir, "etc/NetworkManager/system-connections")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 20000 {
		if err := os.WriteFile(filepath.Join(nm, fmt.Sprintf("wired-%05d.nmconnection", i)), []byte("[connection]\nid=wired\ntype=ethernet\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nastune returns a command running this test binary as nastune
// (testscript dispatches on the program name).
func nastune(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Args[0] = "nastune"
	return cmd
}

// waitFor waits for cmd to end, at most d.
func waitFor(cmd *exec.Cmd, d time.Duration) (error, bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

// TestFIFOsInRootDoNotHang: the old audit opened each FIFO and waited for
// a writer forever. Now it names each one and completes.
func TestFIFOsInRootDoNotHang(t *testing.T) {
	dir := hostileTree(t)
	var stdout, stderr bytes.Buffer
	cmd := nastune(t, "audit", "--root", dir, "-v")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err, ok := waitFor(cmd, 20*time.Second)
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("audit of a tree with FIFOs hung")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		t.Fatalf("exit %d (%v)\n%s", code, err, stderr.String())
	}
	out := stdout.String() + stderr.String()
	if !strings.Contains(out, "FIFO") {
		t.Errorf("the report does not name the FIFOs:\n%s", out)
	}
}

// TestSIGTERMStopsAudit: nastune blocked where no context reaches (its
// output pipe full, after reading a tree full of FIFOs) must still die on
// the second SIGTERM; the old signal.NotifyContext swallowed every signal.
func TestSIGTERMStopsAudit(t *testing.T) {
	dir := hostileTree(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Fill the pipe so nastune's first write blocks.
	fd := int(w.Fd()) // Fd makes the file blocking: take it once
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	filler := make([]byte, 4096)
	for {
		if _, err := syscall.Write(fd, filler); err != nil {
			break
		}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	cmd := nastune(t, "audit", "--root", dir, "-o", "json")
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	time.Sleep(2 * time.Second) // audit done, blocked writing the report
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	_, ok := waitFor(cmd, 10*time.Second)
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("nastune ignored two SIGTERMs\n%s", stderr.String())
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("second SIGTERM: %v, want killed by SIGTERM", cmd.ProcessState)
	}
	if !strings.Contains(stderr.String(), "stopping") {
		t.Errorf("the first SIGTERM was not acknowledged:\n%s", stderr.String())
	}
}

// TestSIGINTDuringAudit: a signal while the audit runs stops it with 130
// (or it finished first: 0/1), never a hang or a report from partial facts.
func TestSIGINTDuringAudit(t *testing.T) {
	dir := slowTree(t)
	stopped := 0
	for i := 0; i < 5; i++ {
		var stdout, stderr bytes.Buffer
		cmd := nastune(t, "audit", "--root", dir)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+i*15) * time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		if _, ok := waitFor(cmd, 10*time.Second); !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("SIGINT did not stop the audit")
		}
		switch code := cmd.ProcessState.ExitCode(); code {
		case 130:
			stopped++
			if strings.Contains(stdout.String(), "findings:") {
				t.Errorf("interrupted audit printed a report:\n%s", stdout.String())
			}
		case 0, 1:
		default:
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() {
				t.Errorf("exit %d\n%s", code, stderr.String())
			}
		}
	}
	// Every run finishing before its signal would test nothing: the
	// signals land 20-80 ms in, while the FIFOs are still being probed.
	t.Logf("%d of 5 runs stopped by SIGINT", stopped)
	if stopped == 0 {
		t.Error("no run was stopped by SIGINT with 130: the test exercised nothing")
	}
}
