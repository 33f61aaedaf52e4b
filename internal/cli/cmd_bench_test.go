package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/bench"
)

func TestBenchUnits(t *testing.T) {
	for in, want := range map[string]int64{"1G": 1 << 30, "512M": 512 << 20, "64k": 64 << 10, "4T": 4 << 40, "1GiB": 1 << 30,
		"1GB": 1e9, "1073741824": 1 << 30, "1.5G": 3 << 29, " 2g ": 2 << 30} {
		if got, err := benchSize("size", in); err != nil || got != want {
			t.Errorf("size %q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "G", "abc", "1X", "-1G"} {
		if _, err := benchSize("size", bad); err == nil {
			t.Errorf("size %q must be refused", bad)
		}
	}
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "1.5": 1500 * time.Millisecond, "30s": 30 * time.Second, "1m30s": 90 * time.Second} {
		if got, err := durationFlag("time", in); err != nil || got != want {
			t.Errorf("duration %q: %v %v", in, got, err)
		}
	}
	if _, err := durationFlag("time", "soon"); err == nil {
		t.Error("a word is no duration")
	}
}

func runBench(ctx context.Context, env map[string]string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(ctx, args, Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return out.String(), errb.String(), code
}

func benchDir(t *testing.T) string {
	d, err := os.MkdirTemp("/var/tmp", "bench-cli-")
	if err != nil {
		d = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	return d
}

// --repeat shows the median and the min-max spread; the result is printed
// before --save, which refuses a symlinked target (printed all the same).
func TestBenchDiskRepeatAndSave(t *testing.T) {
	d := benchDir(t)
	f, save := filepath.Join(d, "t.bench"), filepath.Join(d, "r.json")
	out, errs, code := runBench(context.Background(), nil, "bench", "disk", "--file", f, "--size", "16M", "--runtime", "1",
		"--tests", "seqread-buffered,seqwrite-buffered", "--repeat", "3", "--save", save)
	if code != 0 || !strings.Contains(out, "min–max") || !strings.Contains(out, "median run") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var r bench.DiskResult
	b, _ := os.ReadFile(save)
	if json.Unmarshal(b, &r) != nil || len(r.Tests) != 2 || r.Tests[0].Runs != 3 || r.Tests[0].SpreadLo > r.Tests[0].MiBPerS {
		t.Errorf("saved: %s", b)
	}
	victim := filepath.Join(d, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	link := filepath.Join(d, "link.json")
	os.Symlink(victim, link)
	out, errs, code = runBench(context.Background(), nil, "bench", "disk", "--file", f, "--size", "16M", "--runtime", "1", "--tests", "seqread-buffered", "--save", link)
	if code != 2 || !strings.Contains(out, "seqread-buffered") || !strings.Contains(errs, "symlink") {
		t.Errorf("save to a symlink: exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Error("--save wrote through a symlink")
	}
}

// Ctrl-C keeps, prints and saves the tests already finished, removes the
// file and exits 130 like every interrupted command (no "error:" line).
func TestBenchDiskInterrupted(t *testing.T) {
	d := benchDir(t)
	f := filepath.Join(d, "t.bench")
	save := filepath.Join(d, "partial.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2500*time.Millisecond, cancel)
	out, errs, code := runBench(ctx, nil, "bench", "disk", "--file", f, "--size", "16M", "--runtime", "20",
		"--tests", "seqread-buffered,seqwrite-buffered,randread4k-qd1", "--save", save)
	if code != ExitInterrupted || !strings.Contains(out, "seqwrite-buffered") || !strings.Contains(out, "interrupted") ||
		!strings.Contains(errs, "nastune: interrupted: 2 of 3 tests finished (printed above and saved to "+save+")") || strings.Contains(errs, "error") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(f); err == nil {
		t.Error("the test file must be removed after Ctrl-C")
	}
	var r bench.DiskResult
	b, _ := os.ReadFile(save)
	if json.Unmarshal(b, &r) != nil || !r.Interrupted || len(r.Tests) != 2 {
		t.Errorf("saved after Ctrl-C: %s", b)
	}
	// Stopped before any test finished: nothing printed or saved, exit 130.
	os.Remove(save)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	out, errs, code = runBench(ctx, nil, "bench", "disk", "--file", f, "--size", "16M", "--runtime", "20", "--save", save)
	if code != ExitInterrupted || strings.Contains(errs, "error") || strings.Contains(out, "MB/s") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(save); err == nil {
		t.Error("an empty interrupted run must save nothing")
	}
	if _, err := os.Stat(f); err == nil {
		t.Error("the test file must be removed after Ctrl-C")
	}
}

// A bench net client stopped by Ctrl-C prints and saves the runs done and
// exits 130; a server stopped by Ctrl-C (its normal end) says so in one
// line and exits 0.
func TestBenchNetInterrupted(t *testing.T) {
	sctx, scancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer scancel()
	sout, serr, scode := runBench(sctx, nil, "bench", "net", "--listen", "127.0.0.1:0")
	if scode != 0 || !strings.Contains(serr, "server on 127.0.0.1:") || !strings.Contains(serr, "stopped") || strings.Contains(serr, "error") || !strings.Contains(sout, "Ctrl-C to stop") {
		t.Errorf("server stopped: exit %d\n%s\n%s", scode, sout, serr)
	}

	s := &bench.Server{Addr: "127.0.0.1:0"}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go s.Serve(ctx2)
	d := t.TempDir()
	save := filepath.Join(d, "net.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3500*time.Millisecond, cancel)
	out, errs, code := runBench(ctx, nil, "bench", "net", s.Address(), "-t", "2", "--repeat", "5", "--save", save)
	if code != ExitInterrupted || !strings.Contains(out, "interrupted: only the runs above finished") ||
		!strings.Contains(errs, "nastune: interrupted: 1 of 5 runs finished (printed above and saved to "+save+")") || strings.Contains(errs, "error") {
		t.Errorf("client interrupted: exit %d\n%s\n%s", code, out, errs)
	}
	var r bench.NetResult
	b, _ := os.ReadFile(save)
	if json.Unmarshal(b, &r) != nil || !r.Interrupted || r.Bytes <= 0 {
		t.Errorf("saved after Ctrl-C: %s", b)
	}
}

// bench compare reads regular files only: a FIFO named as a result is
// refused at once (the old os.ReadFile waited for a writer forever).
func TestBenchCompareFIFO(t *testing.T) {
	d := t.TempDir()
	fifo := filepath.Join(d, "before.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(d, "after.json")
	os.WriteFile(after, []byte(`{"engine":"builtin","tests":[]}`), 0o644)
	type result struct {
		errs string
		code int
	}
	ch := make(chan result, 1)
	go func() {
		_, errs, code := runBench(context.Background(), nil, "bench", "compare", fifo, after)
		ch <- result{errs, code}
	}()
	select {
	case r := <-ch:
		if r.code != ExitUsage || !strings.Contains(r.errs, "not a regular file") || !strings.Contains(r.errs, fifo) {
			t.Errorf("exit %d\n%s", r.code, r.errs)
		}
	case <-time.After(10 * time.Second):
		// Unblock the reader so the test binary can end.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("bench compare hangs on a FIFO")
	}
	// The second argument too, and a directory.
	if _, errs, code := runBench(context.Background(), nil, "bench", "compare", after, fifo); code != ExitUsage || !strings.Contains(errs, "not a regular file") {
		t.Errorf("FIFO as AFTER: exit %d\n%s", code, errs)
	}
	if _, errs, code := runBench(context.Background(), nil, "bench", "compare", d, after); code != ExitUsage || !strings.Contains(errs, "directory") {
		t.Errorf("a directory: exit %d\n%s", code, errs)
	}
}

// The server warns without a token beyond loopback; the client defaults
// to port 5201 and prints per-interval lines when asked off a TTY.
func TestBenchNetCLI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, errs, _ := runBench(ctx, nil, "bench", "net", "--listen", "0.0.0.0:0")
	if !strings.Contains(errs, "warning") || !strings.Contains(errs, "NASTUNE_BENCH_TOKEN=") {
		t.Errorf("no token warning: %q", errs)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	if _, errs, _ := runBench(ctx2, map[string]string{"NASTUNE_BENCH_TOKEN": "s3cret"}, "bench", "net", "--listen", "0.0.0.0:0"); strings.Contains(errs, "warning") {
		t.Errorf("warned although a token is set: %q", errs)
	}
	ctx3, cancel3 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel3()
	if _, errs, _ := runBench(ctx3, nil, "bench", "net", "--listen", "127.0.0.1:0"); strings.Contains(errs, "warning") {
		t.Errorf("warned on loopback: %q", errs)
	}

	s := &bench.Server{Addr: "127.0.0.1:0", Token: "s3cret"}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	go s.Serve(sctx)
	env := map[string]string{"NASTUNE_BENCH_TOKEN": "s3cret"}
	out, errs, code := runBench(context.Background(), env, "bench", "net", s.Address(), "-t", "2", "-P", "2", "-i", "1", "--repeat", "2")
	if code != 0 || strings.Count(out, " s ") < 4 || !strings.Contains(out, "median of 2 runs") || !strings.Contains(out, "min–max") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	out, _, _ = runBench(context.Background(), env, "bench", "net", s.Address(), "-t", "1")
	if strings.Contains(out, "interval") {
		t.Errorf("interval lines off a TTY without --interval: %s", out)
	}
	// --engine iperf3 against nothing names the iperf3 server to start.
	if _, err := exec.LookPath("iperf3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("iperf3 not installed: make test installs it")
		}
		t.Skip("iperf3 not installed (Debian package iperf3)")
	}
	_, errs, code = runBench(context.Background(), nil, "bench", "net", "127.0.0.1:1", "--engine", "iperf3", "-t", "1")
	if code != 2 || !strings.Contains(errs, "iperf3 -s -p 1") {
		t.Errorf("iperf3 hint: %d %s", code, errs)
	}
}

func TestBenchCompletions(t *testing.T) {
	out, _, _ := runBench(context.Background(), nil, "__complete", "bench", "disk", "--tests", "seqread-direct,")
	if !strings.Contains(out, "seqread-direct,randread4k-qd32") {
		t.Errorf("--tests completion: %q", out)
	}
	out, _, _ = runBench(context.Background(), nil, "__complete", "bench", "net", "--engine", "")
	if !strings.Contains(out, "iperf3") {
		t.Errorf("--engine completion: %q", out)
	}
}
