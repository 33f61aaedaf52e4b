package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuf is a buffer the test reads while the process writes it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBenchServerSIGINT: Ctrl-C is how `bench net -s` ends: one line
// saying so, exit 0, not "interrupted" or an error.
func TestBenchServerSIGINT(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		var stdout, stderr syncBuf
		cmd := nastune(t, "bench", "net", "--listen", "127.0.0.1:0")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200 && !strings.Contains(stdout.String(), "Ctrl-C to stop"); i++ {
			time.Sleep(25 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		if _, ok := waitFor(cmd, 10*time.Second); !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v did not stop the server", sig)
		}
		errs := stderr.String()
		if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(errs, "nastune bench: server on 127.0.0.1:") ||
			!strings.Contains(errs, "stopped by "+sig.String()) || strings.Contains(errs, "error") || strings.Contains(errs, "interrupted") {
			t.Errorf("%v: exit %d\n%s\n%s", sig, code, stdout.String(), errs)
		}
	}
}

// TestBenchDiskSignals: SIGINT, SIGTERM and SIGHUP stop bench disk after
// the first test: it is printed and saved, the test file removed, and the
// exit code is 128 + the signal (130, 143, 129), with no "error:" line.
func TestBenchDiskSignals(t *testing.T) {
	d, err := os.MkdirTemp("/var/tmp", "bench-sig-") // not tmpfs where possible
	if err != nil {
		d = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		f := filepath.Join(d, "t.bench")
		save := filepath.Join(d, "partial.json")
		os.Remove(save)
		var stdout, stderr syncBuf
		cmd := nastune(t, "bench", "disk", "--file", f, "--size", "16M", "--runtime", "20",
			"--tests", "seqread-buffered,randread4k-qd1", "--save", save)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first test reads the 16 MiB file once; the second runs for
		// its 20 s: signal in between.
		time.Sleep(2500 * time.Millisecond)
		cmd.Process.Signal(sig)
		if _, ok := waitFor(cmd, 20*time.Second); !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v did not stop bench disk", sig)
		}
		code := cmd.ProcessState.ExitCode()
		out, errs := stdout.String(), stderr.String()
		if code != 128+int(sig) || strings.Contains(errs, "error") || !strings.Contains(errs, "nastune: interrupted") {
			t.Errorf("%v: exit %d, want %d\n%s\n%s", sig, code, 128+int(sig), out, errs)
		}
		var r struct {
			Interrupted bool              `json:"interrupted"`
			Tests       []json.RawMessage `json:"tests"`
		}
		b, _ := os.ReadFile(save)
		if !strings.Contains(errs, "1 of 2 tests finished") || json.Unmarshal(b, &r) != nil || !r.Interrupted || len(r.Tests) != 1 || !strings.Contains(out, "seqread-buffered") {
			t.Errorf("%v: the finished test not printed and saved:\n%s\n%s\n%s", sig, out, errs, b)
		}
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%v: the test file was left behind", sig)
		}
	}
}

// TestBenchServerNohup: started with SIGHUP ignored (nohup), the server
// keeps it ignored: a hangup does not stop it; Ctrl-C still does.
func TestBenchServerNohup(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuf
	cmd := exec.Command(bash, "-c", `trap "" HUP; exec -a nastune "$0" bench net --listen 127.0.0.1:0`, self)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && !strings.Contains(stdout.String(), "Ctrl-C to stop"); i++ {
		time.Sleep(25 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
		t.Fatalf("SIGHUP stopped a server started under nohup: exit %d\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	case <-time.After(time.Second):
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("SIGINT did not stop the server")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(stderr.String(), "stopped by interrupt") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
}
