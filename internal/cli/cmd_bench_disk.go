//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/units"
)

type benchDiskOptions struct {
	File, Size, Tests, Engine, Output, Save, Runtime string
	Force, Keep                                      bool
	Repeat                                           int
}

func newBenchDiskCmd(env *Env) *cobra.Command {
	o := &benchDiskOptions{}
	cmd := &cobra.Command{
		Use:   "disk --file PATH",
		Short: "Sequential and 4K random I/O, O_DIRECT and buffered, on a file you name",
		Long: "bench disk creates PATH (preallocated, incompressible data, a 4 KiB header marking it as\n" +
			"nastune's) unless nastune made it earlier, runs the tests and removes it unless --keep, also on\n" +
			"an error or Ctrl-C, SIGTERM, SIGHUP (the tests already finished are printed, and saved with\n" +
			"--save, before it exits 130, 143 or 129). It refuses to overwrite a file it did not create\n" +
			"unless --force, refuses symlinks, kernel filesystems and a size beyond the free space.\n" +
			"Tests: " + strings.Join(bench.DiskTests, ", ") + ".\n" +
			"O_DIRECT tests are skipped where the filesystem refuses O_DIRECT. A file on tmpfs, ramfs, zram\n" +
			"or a RAM disk is flagged: it measures memory, not a disk. Buffered reads start cold for that\n" +
			"file (posix_fadvise DONTNEED), never by dropping the whole page cache.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchDisk(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.File, "file", "", "test file on the filesystem to measure (required)")
	f.StringVar(&o.Size, "size", "1GiB", "test file size: 1G, 512M (binary, as fio and dd) or 4GiB, 4GB")
	f.StringVar(&o.Tests, "tests", "", "comma-separated tests (default: all)")
	f.StringVar(&o.Runtime, "runtime", "10", "time limit per test: seconds (30) or a duration (1m30s)")
	f.StringVar(&o.Engine, "engine", "builtin", "builtin or fio")
	f.BoolVar(&o.Force, "force", false, "overwrite PATH although nastune did not create it")
	f.BoolVar(&o.Keep, "keep", false, "keep the test file afterwards")
	f.IntVar(&o.Repeat, "repeat", 1, "run each test N times; report the median and the min-max spread")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or prom (node_exporter textfile)")
	f.StringVar(&o.Save, "save", "", "also write the JSON result to this file (for bench compare)")
	return cmd
}

func runBenchDisk(ctx context.Context, o *benchDiskOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "prom"); err != nil {
		return err
	}
	if o.File == "" {
		return usagef("e.g. nastune bench disk --file /srv/array/nastune.bench --size 4G", "--file is required")
	}
	size, err := testFileSize(o.Size, "use at least 16M, and more than the RAM to defeat caches")
	if err != nil {
		return err
	}
	runtime, err := durationIn("runtime", o.Runtime, time.Second, time.Hour, "1s-1h", "10")
	if err != nil {
		return err
	}
	if err := repeatFlag(o.Repeat); err != nil {
		return err
	}
	var tests []string
	if o.Tests != "" {
		if tests, err = testsFlag(o.Tests, bench.DiskTests); err != nil {
			return err
		}
	}
	if o.Engine != "builtin" && o.Engine != "fio" {
		return usagef("use --engine builtin or --engine fio", "--engine: unknown engine %q", o.Engine)
	}
	ctx, stop := benchSignals(ctx)
	defer stop()
	opts := bench.DiskOptions{File: o.File, Size: size, Tests: tests, Runtime: runtime, Force: o.Force, Keep: o.Keep, Repeat: o.Repeat}
	bar := progressBar(env)
	opts.Progress = func(t string, f float64) { bar(t, f) }
	var res *bench.DiskResult
	if o.Engine == "fio" {
		res, err = bench.RunFio(ctx, opts)
	} else {
		res, err = bench.RunDisk(ctx, opts)
	}
	bar("", -1)
	if errors.Is(err, bench.ErrNotOurs) {
		return &UsageError{Err: err, Hint: "pick a new file name, or pass --force to overwrite it"}
	}
	if errors.Is(err, bench.ErrInterrupted) || (err != nil && ctx.Err() != nil) {
		// Ctrl-C, SIGTERM or SIGHUP: the tests finished are printed (and
		// saved with --save) before nastune exits 128+signal.
		total := len(opts.Tests)
		if total == 0 {
			total = len(bench.DiskTests)
		}
		if res == nil || len(res.Tests) == 0 {
			return benchInterrupted(ctx, "no test finished; nothing to print or save")
		}
		res.Interrupted = true
		if perr := emitBench(env, o.Output, o.Save, res, func(w io.Writer) { printDisk(w, res) }); perr != nil {
			return perr
		}
		return benchInterrupted(ctx, "%d of %d tests finished (printed above%s)", len(res.Tests), total, savedNote(o.Save))
	}
	if err != nil {
		return err
	}
	return emitBench(env, o.Output, o.Save, res, func(w io.Writer) { printDisk(w, res) })
}

// diskColumns are the columns of the bench disk table.
var diskColumns = []benchColumn{
	benchColTest,
	{head: units.MBsHeader, cell: func(t bench.TestResult) string { return units.MBsNum(units.MBsOfMiB(t.MiBPerS)) }},
	{head: "min–max " + units.MBsUnit, spread: true, cell: func(t bench.TestResult) string {
		return units.MBsNum(units.MBsOfMiB(t.SpreadLo)) + "–" + units.MBsNum(units.MBsOfMiB(t.SpreadHi))
	}},
	benchColRuns,
	{head: "IOPS", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.0f", t.IOPS) }},
	{head: "p50 µs", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.0f", t.LatUS.P50) }},
	{head: "p99 µs", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.0f", t.LatUS.P99) }},
}

func printDisk(w io.Writer, r *bench.DiskResult) {
	fmt.Fprintf(w, "bench disk: %s on %s (%s), %s, engine %s\n", r.File, orDash(r.Device), r.Host, units.Bytes(uint64(r.Size)), r.Engine)
	if r.MemoryBacked != "" {
		fmt.Fprintf(w, "warning: the file is on %s: this measures memory, not a disk\n", r.MemoryBacked)
	}
	fmt.Fprintln(w)
	spread := writeBenchTable(w, r.Tests, diskColumns)
	fmt.Fprintln(w, "\n"+units.MBsUnit+": 10^6 bytes/s, as fio prints in parentheses and audit and inventory print ceilings (JSON mib_per_s keeps fio's 2^20 figure).")
	if spread {
		fmt.Fprintln(w, units.MBsUnit+", IOPS and latencies are those of the median run.")
	}
	if r.Interrupted {
		fmt.Fprintln(w, "\ninterrupted: only the tests above finished")
	}
}
