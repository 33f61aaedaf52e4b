//go:build linux

// Package cmdrun runs the few read-only commands whose output nastune
// needs on a live system and cannot get from the kernel directly (zpool,
// zdb, testparm, hdparm, dmsetup, openvpn --version). It is the only
// place outside internal/apply and internal/bench that may start a
// process, and it runs nothing but the argument vectors in its allow-list:
// each one only reads state.
//
// A run has a timeout, a capped output, no stdin, and LC_ALL=C so the
// output has the layout the parsers expect. The same output, saved under
// /.nastune/commands in a captured tree, replays exactly (hostfs.Root.Command).
//
// Every run is also contained, because nastune runs as root on machines
// whose configuration others wrote (an smb.conf include bomb drove testparm
// to 2.6 GB):
//
//   - resource limits: the nastune binary re-executes itself in a hidden
//     mode (LimitArg, handled by HandleLimitMode at the top of main) that
//     sets RLIMIT_AS, RLIMIT_DATA, RLIMIT_CPU and RLIMIT_CORE and then
//     execs the tool, so the limits hold from the tool's first instruction.
//     The memory limit defaults to half of MemTotal, clamped to 64–256 MiB.
//     A binary without that hook (a test binary) sets the same limits with
//     prlimit(2) right after the start;
//   - the tool runs in its own process group, and the whole group is
//     killed on timeout or when ctx is cancelled (SIGINT), and when
//     nastune itself dies (PR_SET_PDEATHSIG). A tool that spends its CPU
//     limit (the timeout in CPU seconds, SIGXCPU) has timed out too:
//     both return ErrTimeout and no result;
//   - output is capped; a failed run returns an *ExitError with the exit
//     code and the first line of standard error.
package cmdrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// Errors a caller can tell apart.
var (
	ErrNotAllowed   = errors.New("command not in nastune's read-only allow-list")
	ErrNotInstalled = errors.New("not installed")
	ErrTimeout      = errors.New("timed out")
)

// MaxOutput caps what is kept of a command's standard output.
const MaxOutput = 4 << 20

// Timeout bounds one run.
const Timeout = 10 * time.Second

// Bounds of the default memory limit (half of MemTotal, clamped).
const (
	MinMemory = 64 << 20
	MaxMemory = 256 << 20
)

// ExitError is a command that ran and failed: it exited non-zero or was
// killed by a signal (Code -1, Signal set).
type ExitError struct {
	Argv   []string
	Code   int    // exit status; -1 when killed by a signal
	Signal string // the signal that killed it ("killed", "CPU time limit exceeded")
	Stderr string // first line of standard error
}

func (e *ExitError) Error() string {
	msg := e.Stderr
	switch {
	case msg != "":
	case e.Signal != "":
		msg = "killed by signal: " + e.Signal
	default:
		msg = "exit status " + strconv.Itoa(e.Code)
	}
	return strings.Join(e.Argv, " ") + ": " + msg
}

var (
	devArg  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/dev/[A-Za-z0-9][A-Za-z0-9/_.:-]*$`) })
	poolArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`) })
)

// allowed lists argument vectors; "DEV" matches a /dev path, "POOL" a
// ZFS pool name.
var allowed = [][]string{
	{"zpool", "list", "-v", "-H", "-P", "-p"},
	{"zpool", "status", "-P"},
	{"zdb", "-C", "POOL"},
	{"testparm", "-s", "-v", "--suppress-prompt"},
	{"hdparm", "-B", "DEV"},
	{"hdparm", "-W", "DEV"},
	{"dmsetup", "table"},
	{"openvpn", "--version"},
	{"smbd", "-V"},
	{"dpkg-query", "-W", "-f=${Version}", "samba"},
}

// Allowed reports whether argv is in the allow-list.
func Allowed(argv []string) bool {
	for _, p := range allowed {
		if len(p) != len(argv) {
			continue
		}
		ok := true
		for i, w := range p {
			switch w {
			case "DEV":
				ok = ok && devArg().MatchString(argv[i]) && !strings.Contains(argv[i], "..")
			case "POOL":
				ok = ok && poolArg().MatchString(argv[i])
			default:
				ok = ok && argv[i] == w
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Limits bound one run. Zero values take the defaults.
type Limits struct {
	Timeout   time.Duration // wall clock (default Timeout); CPU time is capped at the same
	Memory    uint64        // address space in bytes (default DefaultMemory())
	MaxOutput int           // bytes of standard output kept (default MaxOutput)
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = Timeout
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory()
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = MaxOutput
	}
	return l
}

// DefaultMemory is half of MemTotal, clamped to MinMemory–MaxMemory.
func DefaultMemory() uint64 {
	return clampMemory(memTotal() / 2)
}

func clampMemory(m uint64) uint64 {
	return min(max(m, MinMemory), MaxMemory)
}

func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<16))
	var total uint64
	_ = kernfmt.ScanMeminfo(b, nil, func(k []byte, v uint64) {
		if total == 0 && string(k) == "MemTotal" {
			total = v
		}
	})
	return total
}

// Run runs an allowed command with the default limits and returns its
// standard output. A command that exits non-zero returns what it printed
// and an *ExitError carrying the exit code and the first line of its
// stderr.
func Run(ctx context.Context, argv ...string) ([]byte, error) {
	return RunLimits(ctx, Limits{}, argv...)
}

// RunLimits is Run with explicit limits.
func RunLimits(ctx context.Context, lim Limits, argv ...string) ([]byte, error) {
	if !Allowed(argv) {
		return nil, fmt.Errorf("%q: %w", strings.Join(argv, " "), ErrNotAllowed)
	}
	res, err := run(ctx, lim, argv, nil)
	if res == nil {
		return nil, err
	}
	return res.Stdout, err
}

// Result is the output of a contained run.
type Result struct {
	Stdout, Stderr []byte
}

// Testparm checks an smb.conf content with `testparm -s --suppress-prompt`
// under the limits (a config's includes are followed). The content is
// handed over as /dev/fd/3, an anonymous memory file (or a temporary file
// deleted before testparm starts), so nothing is left behind in any case.
// testparm's own verdict is in Result.Stderr ("Loaded services file OK.");
// err is an *ExitError when it exits non-zero.
func Testparm(ctx context.Context, lim Limits, content []byte) (*Result, error) {
	f, err := anonFile(content)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return run(ctx, lim, []string{"testparm", "-s", "--suppress-prompt", "/dev/fd/3"}, f)
}

// anonFile holds content in a file without a name: memfd_create, or a
// temporary file unlinked at once.
func anonFile(content []byte) (*os.File, error) {
	var f *os.File
	if fd, err := unix.MemfdCreate("nastune-smb.conf", unix.MFD_CLOEXEC); err == nil {
		f = os.NewFile(uintptr(fd), "memfd:nastune-smb.conf")
	} else {
		tf, err := os.CreateTemp("", "nastune-smb.conf-*")
		if err != nil {
			return nil, err
		}
		_ = os.Remove(tf.Name())
		f = tf
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// run starts argv[0] (looked up in SystemPath, never $PATH) contained by lim; extra, when
// set, is the child's fd 3.
func run(ctx context.Context, lim Limits, argv []string, extra *os.File) (*Result, error) {
	lim = lim.withDefaults()
	path, err := lookPath(argv[0], SystemPath)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cpu := uint64((lim.Timeout + time.Second - 1) / time.Second)
	var cmd *exec.Cmd
	self := selfPath()
	if self != "" {
		args := []string{LimitArg, strconv.FormatUint(lim.Memory, 10), strconv.FormatUint(cpu, 10), path}
		cmd = exec.CommandContext(ctx, self, append(args, argv[1:]...)...)
		cmd.Args[0] = os.Args[0] // multi-call test binaries dispatch on it
	} else {
		cmd = exec.CommandContext(ctx, path, argv[1:]...)
	}
	cmd.Env = Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if extra != nil {
		cmd.ExtraFiles = []*os.File{extra}
	}
	var out, errb capped
	out.max, errb.max = lim.MaxOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	if self == "" {
		_ = setLimits(cmd.Process.Pid, lim.Memory, cpu)
	}
	err = cmd.Wait()
	// The group may hold children of the tool: never leave them behind.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	res := &Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w after %v", strings.Join(argv, " "), ErrTimeout, lim.Timeout)
		}
		return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), ctx.Err())
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return res, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
		}
		x := &ExitError{Argv: argv, Code: ee.ExitCode(),
			Stderr: strings.TrimSpace(strings.SplitN(errb.String(), "\n", 2)[0])}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			x.Signal = ws.Signal().String()
			if ws.Signal() == syscall.SIGXCPU {
				// RLIMIT_CPU is the timeout counted in CPU seconds: a tool
				// that spends it is as unfinished as one the clock stopped,
				// whichever of the two comes first on a busy machine.
				return nil, fmt.Errorf("%s: %w: used its CPU limit of %d s", strings.Join(argv, " "), ErrTimeout, cpu)
			}
		}
		return res, x
	}
	if out.over {
		return nil, fmt.Errorf("%s: output larger than %d bytes", strings.Join(argv, " "), lim.MaxOutput)
	}
	return res, nil
}

// capped is a buffer that stops growing at max bytes.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
