package cli

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bad flags are refused before anything is measured or written; without a
// terminal and without --yes tune refuses like apply.
func TestTuneRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, "--file is required"},
		{[]string{"tune", "--file", "/srv/x", "--tests", "seqread-buffered,nope"}, `unknown test "nope"`},
		{[]string{"tune", "--file", "/srv/x", "--bs", "6000"}, "multiple of 4K"},
		{[]string{"tune", "--file", "/srv/x", "--budget", "1s"}, "outside 10s-24h"},
		{[]string{"tune", "--file", "/srv/x", "-o", "prom"}, "unknown output format"},
	} {
		_, errs, code := runBench(ctx, nil, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}
	if os.Geteuid() == 0 {
		_, errs, code := runBench(ctx, nil, "tune", "--file", "/srv/x")
		if code != ExitUsage || !strings.Contains(errs, "not a terminal and no --yes") {
			t.Errorf("no TTY, no --yes: exit %d, %q", code, errs)
		}
	}
}

// On a terminal tune lists the devices and knobs under the path and asks
// before the first trial; "n" changes and creates nothing.
func TestTuneAsksOnTerminal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("tune needs root")
	}
	d := benchDir(t)
	file := d + "/t.tune"
	_, serr := os.Stat("/var/lib/nastune")
	stateBefore := serr == nil
	var out, errb strings.Builder
	code := Main(context.Background(), []string{"tune", "--file", file, "--knobs", "read_ahead_kb"},
		Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("n\n"), IsTTY: true, Getenv: func(string) string { return "" }})
	if code != ExitOK || !strings.Contains(out.String(), "read_ahead_kb") || !strings.Contains(out.String(), "[y/N]") || !strings.Contains(out.String(), "nothing tried") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the test file was created before the answer: %v", err)
	}
	// This runs on the host: "n" must not have reached the journal either.
	if _, err := os.Stat("/var/lib/nastune"); err == nil && !stateBefore {
		t.Errorf("answering n created the host's /var/lib/nastune")
	}
}

// A SIGPIPE (the reader of `nastune tune 2>&1 | head` gone) stops the tune
// like Ctrl-C instead of killing the process with a trial live.
func TestTunePipeSignalCancels(t *testing.T) {
	ctx, stop := pipeSignal(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGPIPE); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGPIPE did not stop the tune")
	}
}
