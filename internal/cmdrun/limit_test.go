package cmdrun

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

	"github.com/nastune/nastune/test/testutil"
)

// TestMain makes the test binary behave like nastune: it handles the
// re-execution with limits, and "alloc-helper N" allocates N MiB (the
// tool of TestMemoryLimit).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "alloc-helper" {
		n, _ := strconv.Atoi(os.Args[2])
		b := make([]byte, n<<20)
		for i := range b {
			b[i] = 1
		}
		fmt.Println("allocated", len(b))
		os.Exit(0)
	}
	HandleLimitMode()
	os.Exit(m.Run())
}

// bothModes runs f with the re-execution and with the prlimit fallback.
func bothModes(t *testing.T, f func(t *testing.T)) {
	t.Run("reexec", f)
	t.Run("prlimit", func(t *testing.T) {
		selfLimit.Store(false)
		defer selfLimit.Store(true)
		f(t)
	})
}

func limitsOf(t *testing.T, out []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if len(l) > 26 {
			f := strings.Fields(l[26:])
			if len(f) >= 2 {
				m[strings.TrimSpace(l[:26])] = f[0] + " " + f[1]
			}
		}
	}
	return m
}

func TestLimitsApplied(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		// The prlimit fallback sets the limits just after the start: the
		// short sleep lets it land before cat inherits them from sh.
		res, err := run(context.Background(), Limits{Memory: 100 << 20, Timeout: 5 * time.Second}, []string{"sh", "-c", "sleep 0.2; cat /proc/self/limits"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := limitsOf(t, res.Stdout)
		want := map[string]string{
			"Max data size":      "104857600 104857600",
			"Max address space":  strconv.Itoa(100<<20+addressSlack) + " " + strconv.Itoa(100<<20+addressSlack),
			"Max cpu time":       "5 6",
			"Max core file size": "0 0",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q\n%s", k, got[k], v, res.Stdout)
			}
		}
	})
}

// TestMemoryLimit: a tool that allocates 300 MiB dies under a 64 MiB limit
// and succeeds without it (the oracle that the limit, not the tool, failed).
func TestMemoryLimit(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(self, "alloc-helper", "300").Output(); err != nil || !strings.Contains(string(out), "allocated") {
		t.Fatalf("helper without limits: %q %v", out, err)
	}
	bothModes(t, func(t *testing.T) {
		_, err := run(context.Background(), Limits{Memory: 64 << 20, Timeout: 20 * time.Second}, []string{self, "alloc-helper", "300"}, nil)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code == 0 {
			t.Fatalf("300 MiB under a 64 MiB limit: %v, want an *ExitError", err)
		}
		// The same run under a limit it fits in succeeds (the Go runtime of
		// the helper reserves much address space, hence 2 GiB).
		res, err := run(context.Background(), Limits{Memory: 2 << 30, Timeout: 20 * time.Second}, []string{self, "alloc-helper", "300"}, nil)
		if err != nil || !strings.Contains(string(res.Stdout), "allocated") {
			t.Fatalf("300 MiB under a 2 GiB limit: %v", err)
		}
	})
}

func TestExitError(t *testing.T) {
	res, err := run(context.Background(), Limits{}, []string{"sh", "-c", "echo out; echo oops >&2; exit 3"}, nil)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ee.Stderr != "oops" || !strings.Contains(err.Error(), "sh -c") {
		t.Fatalf("got %#v", err)
	}
	if res == nil || string(res.Stdout) != "out\n" {
		t.Errorf("stdout of a failed run: %+v", res)
	}
}

// TestCPULimitIsTimeout: a tool killed by SIGXCPU (RLIMIT_CPU, the
// timeout in CPU seconds) timed out, like one the clock stopped: on a busy
// machine either can come first, and callers must not read the killed
// tool's partial stderr as its verdict.
func TestCPULimitIsTimeout(t *testing.T) {
	res, err := run(context.Background(), Limits{Timeout: 5 * time.Second},
		[]string{"sh", "-c", "echo 'Load smb config files from x' >&2; kill -XCPU $$"}, nil)
	if !errors.Is(err, ErrTimeout) || res != nil || !strings.Contains(err.Error(), "CPU limit of 5 s") {
		t.Fatalf("got %v, %v; want ErrTimeout and no result", res, err)
	}
}

// TestTimeoutKillsGroup: on timeout the tool and what it started are
// killed, and Run returns at once.
func TestTimeoutKillsGroup(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		start := time.Now()
		_, err := run(context.Background(), Limits{Timeout: time.Second},
			[]string{"sh", "-c", "sleep 100 & echo $! > " + pidFile + "; sleep 100"}, nil)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("returned after %v", d)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(200 * time.Millisecond)
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("background child %d survived the timeout", pid)
		}
	})
}

// alive reports whether pid runs (a zombie waiting for its reaper is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

func TestCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := run(ctx, Limits{Timeout: time.Minute}, []string{"sleep", "60"}, nil)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}

func TestDefaultMemory(t *testing.T) {
	for in, want := range map[uint64]uint64{0: MinMemory, 32 << 20: MinMemory, 200 << 20: 200 << 20, 8 << 30: MaxMemory} {
		if got := clampMemory(in); got != want {
			t.Errorf("clampMemory(%d) = %d, want %d", in, got, want)
		}
	}
	if m := DefaultMemory(); m < MinMemory || m > MaxMemory {
		t.Errorf("DefaultMemory() = %d", m)
	}
}

func needTestparm(t *testing.T) {
	t.Helper()
	testutil.Need(t, "testparm", "samba-common-bin")
}

func TestTestparm(t *testing.T) {
	needTestparm(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// The smallest limit (a 128 MiB box) still lets testparm work.
	res, err := Testparm(context.Background(), Limits{Memory: MinMemory}, []byte("[global]\n\tworkgroup = NASTUNE\n[data]\n\tpath = /srv/data\n"))
	if res == nil || !strings.Contains(string(res.Stderr), "Loaded services file OK.") || !strings.Contains(string(res.Stdout), "NASTUNE") {
		t.Fatalf("testparm of a valid config: %v\n%s", err, res)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// TestTestparmIncludeBomb: a fan-out of includes (10 includes per file,
// 8 levels: 10^8 loads) kept testparm busy without end. Under the limits
// it is killed at the timeout with its whole group, and nothing is left.
func TestTestparmIncludeBomb(t *testing.T) {
	needTestparm(t)
	bomb := testutil.IncludeBomb(t, t.TempDir())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	start := time.Now()
	_, err := Testparm(context.Background(), Limits{Timeout: 2 * time.Second},
		[]byte("[global]\ninclude = "+bomb+"\n"))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("include bomb: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("returned after %v", d)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
	testutil.NoTestparmLeft(t)
}
