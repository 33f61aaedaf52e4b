package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// fioArgs are the fio options equivalent to each built-in test.
var fioArgs = map[string][]string{
	"seqread-direct":    {"--rw=read", "--bs=1M", "--direct=1", "--ioengine=psync"},
	"seqwrite-direct":   {"--rw=write", "--bs=1M", "--direct=1", "--ioengine=psync"},
	"seqread-buffered":  {"--rw=read", "--bs=1M", "--direct=0", "--invalidate=1", "--ioengine=psync"},
	"seqwrite-buffered": {"--rw=write", "--bs=1M", "--direct=0", "--end_fsync=1", "--ioengine=psync"},
	"randread4k-qd1":    {"--rw=randread", "--bs=4k", "--direct=1", "--ioengine=psync", "--iodepth=1"},
	"randread4k-qd32":   {"--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=32"},
	"randwrite4k-qd1":   {"--rw=randwrite", "--bs=4k", "--direct=1", "--ioengine=psync", "--iodepth=1"},
}

// FioArgs returns the fio command line for a test on file.
func FioArgs(test, file string, size int64, runtime time.Duration) []string {
	a := []string{"--name=" + test, "--filename=" + file, "--size=" + strconv.FormatInt(size, 10),
		fmt.Sprintf("--runtime=%ds", max(1, int(runtime.Seconds()))), "--output-format=json"}
	if test[:4] == "rand" {
		// randrepeat=0: fio's default seeds every run alike, so a second
		// run reads the same offsets and a host or controller cache makes
		// it look faster; nastune's engine seeds each run afresh.
		a = append(a, "--time_based=1", "--randrepeat=0")
	}
	return append(a, fioArgs[test]...)
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
// built-in engine does).
func RunFio(ctx context.Context, o DiskOptions) (*DiskResult, error) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		return nil, errors.New("fio is not installed (Debian package fio); use --engine builtin")
	}
	res, done, err := setup(&o, "fio")
	if err != nil {
		return nil, err
	}
	defer done()
	for _, t := range o.Tests {
		out, err := exec.CommandContext(ctx, fio, FioArgs(t, o.File, o.Size, o.Runtime)...).Output()
		if err != nil {
			res.Tests = append(res.Tests, TestResult{Name: t, Skipped: "fio: " + err.Error()})
			continue
		}
		r, err := ParseFio(t, out)
		if err != nil {
			return res, err
		}
		res.Tests = append(res.Tests, r)
	}
	return res, nil
}
