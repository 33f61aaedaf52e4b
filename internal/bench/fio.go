//go:build linux

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
	"golang.org/x/sys/unix"
)

// fioArgs are the fio options equivalent to each built-in test. A
// function, not a map variable: that is built by init code in every
// nastune command, and the code's page keeps 64 KiB of the binary resident
// (the kernel maps the cached pages around a fault) in an audit.
func fioArgs() map[string][]string {
	return map[string][]string{
		"seqread-direct":    {"--rw=read", "--bs=1M", "--direct=1", "--ioengine=psync"},
		"seqwrite-direct":   {"--rw=write", "--bs=1M", "--direct=1", "--ioengine=psync"},
		"seqread-buffered":  {"--rw=read", "--bs=1M", "--direct=0", "--invalidate=1", "--ioengine=psync"},
		"seqwrite-buffered": {"--rw=write", "--bs=1M", "--direct=0", "--end_fsync=1", "--ioengine=psync"},
		"randread4k-qd1":    {"--rw=randread", "--bs=4k", "--direct=1", "--ioengine=psync", "--iodepth=1"},
		"randread4k-qd32":   {"--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=32"},
		"randwrite4k-qd1":   {"--rw=randwrite", "--bs=4k", "--direct=1", "--ioengine=psync", "--iodepth=1"},
	}
}

// fioFile is how fio is given the test file: nastune's open descriptor,
// passed as fd 3. fio never resolves the user's path, so a symlink swapped
// in cannot redirect it, and a ':' in the name (fio's separator of several
// files) cannot make it write another file.
const fioFile = "/proc/self/fd/3"

// fioMemLimit caps fio's address space (RLIMIT_AS): a few threads with
// 32 requests of 1 MiB need far less.
const fioMemLimit = 2 << 30

// FioArgs returns the fio command line for a test on file, on the size
// bytes after nastune's header.
func FioArgs(test, file string, size int64, runtime time.Duration) []string {
	a := []string{"--name=" + test, "--filename=" + file, "--offset=" + strconv.Itoa(headerSize), "--size=" + strconv.FormatInt(size, 10),
		fmt.Sprintf("--runtime=%ds", max(1, int(runtime.Seconds()))), "--output-format=json",
		"--thread", "--allow_file_create=0", "--unlink=0", "--create_on_open=0"}
	if test[:4] == "rand" {
		// randrepeat=0: fio's default seeds every run alike, so a second
		// run reads the same offsets and a host or controller cache makes
		// it look faster; nastune's engine seeds each run afresh.
		a = append(a, "--time_based=1", "--randrepeat=0")
	}
	return append(a, fioArgs()[test]...)
}

type fioOut struct {
	Jobs []struct {
		Read  fioSide `json:"read"`
		Write fioSide `json:"write"`
	} `json:"jobs"`
}

type fioSide struct {
	IOBytes   int64   `json:"io_bytes"`
	BwBytes   float64 `json:"bw_bytes"`
	IOPS      float64 `json:"iops"`
	RuntimeMS float64 `json:"runtime"`
	Clat      struct {
		Percentile map[string]float64 `json:"percentile"`
	} `json:"clat_ns"`
}

// ParseFio reads fio's JSON output for one job.
func ParseFio(test string, b []byte) (TestResult, error) {
	var f fioOut
	// fio may print notes ("note: both iodepth >= 1 and synchronous
	// I/O engine ...") before its JSON on the same stdout.
	if i := bytes.Index(b, []byte("\n{")); i >= 0 && (len(b) == 0 || b[0] != '{') {
		b = b[i+1:]
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return TestResult{}, fmt.Errorf("fio output: %w", err)
	}
	if len(f.Jobs) == 0 {
		return TestResult{}, errors.New("fio output has no jobs")
	}
	s := f.Jobs[0].Read
	if s.IOBytes == 0 {
		s = f.Jobs[0].Write
	}
	return TestResult{Name: test, Bytes: s.IOBytes, Seconds: s.RuntimeMS / 1000, MiBPerS: s.BwBytes / (1 << 20), IOPS: s.IOPS,
		LatUS: Lat{P50: s.Clat.Percentile["50.000000"] / 1000, P99: s.Clat.Percentile["99.000000"] / 1000}}, nil
}

// RunFio runs the tests with fio on the same file (created like the
// built-in engine does), each with a time limit and a memory limit.
func RunFio(ctx context.Context, o DiskOptions) (*DiskResult, error) {
	fio, err := cmdrun.LookPath("fio") // never through $PATH: nastune runs as root
	if err != nil {
		return nil, errors.New("fio is not installed (Debian package fio); use --engine builtin")
	}
	res, tf, err := setup(ctx, &o, "fio")
	if err != nil {
		return nil, err
	}
	defer tf.close()
	err = runAll(ctx, o, res, func(name string, prog func(float64)) (TestResult, error) {
		_ = setDirect(o.fd, false)
		return runFio(ctx, fio, name, tf.f, o, prog)
	})
	return res, err
}

func runFio(ctx context.Context, fio, test string, f *os.File, o DiskOptions, prog func(float64)) (TestResult, error) {
	// Sequential tests stop at the end of the file; a slow buffered
	// write's end_fsync may take long: a generous cap, not a tight one.
	cctx, cancel := context.WithTimeout(ctx, 2*o.Runtime+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, fio, FioArgs(test, fioFile, o.Size, o.Runtime)...)
	cmd.ExtraFiles = []*os.File{f}
	cmd.WaitDelay = 5 * time.Second
	var out, errb limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return TestResult{}, err
	}
	_ = unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: fioMemLimit, Max: fioMemLimit}, nil)
	stop := tickProgress(250*time.Millisecond, o.Runtime, prog)
	err := cmd.Wait()
	stop()
	if cctx.Err() == context.DeadlineExceeded {
		return TestResult{}, fmt.Errorf("fio did not finish within %v; stopped", 2*o.Runtime+2*time.Minute)
	}
	if err != nil {
		return TestResult{Name: test, Skipped: fmt.Sprintf("fio: %v: %s", err, firstLine(errb.b))}, nil
	}
	return ParseFio(test, out.b)
}

// limitedBuffer keeps the first 4 MiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4<<20 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}

// tickProgress calls prog with the fraction of total elapsed, every
// interval, until the returned stop is called (fio and iperf3 runs).
func tickProgress(every, total time.Duration, prog func(float64)) (stop func()) {
	done := make(chan struct{})
	if prog == nil || total <= 0 {
		return func() {}
	}
	go func() {
		start := time.Now()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				prog(float64(time.Since(start)) / float64(total))
			}
		}
	}()
	return func() { close(done) }
}
