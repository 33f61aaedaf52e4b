package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/render"
)

func newBenchCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure disks and the network (built-in engines; fio/iperf3 when asked), save and compare results",
		Long: "bench proves a change with numbers: run it before, apply, run it after, then `bench compare`.\n" +
			"It never runs as part of an audit, and writes only the file you name.\n\n" + exitHelp,
	}
	cmd.AddCommand(newBenchDiskCmd(env), newBenchNetCmd(env), newBenchCompareCmd(env))
	return cmd
}

type benchDiskOptions struct {
	File, Size, Tests, Engine, Output, Save string
	Runtime                                 time.Duration
	Force, Keep                             bool
	Repeat                                  int
}

func newBenchDiskCmd(env *Env) *cobra.Command {
	o := &benchDiskOptions{}
	cmd := &cobra.Command{
		Use:   "disk --file PATH",
		Short: "Sequential and 4K random I/O, O_DIRECT and buffered, on a file you name",
		Long: "bench disk creates PATH (preallocated, incompressible data) unless nastune made it earlier,\n" +
			"runs the tests and removes it unless --keep. It refuses to overwrite a file it did not create\n" +
			"unless --force. Tests: " + strings.Join(bench.DiskTests, ", ") + ".\n" +
			"O_DIRECT tests are skipped where the filesystem refuses O_DIRECT (tmpfs). Buffered reads start\n" +
			"cold for that file (posix_fadvise DONTNEED), never by dropping the whole page cache.\n\n" + exitHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchDisk(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.File, "file", "", "test file on the filesystem to measure (required)")
	f.StringVar(&o.Size, "size", "1GiB", "test file size ("+calc.SizeHelp+")")
	f.StringVar(&o.Tests, "tests", "", "comma-separated tests (default: all)")
	f.DurationVar(&o.Runtime, "runtime", 10*time.Second, "time limit per test")
	f.StringVar(&o.Engine, "engine", "builtin", "builtin or fio")
	f.BoolVar(&o.Force, "force", false, "overwrite PATH although nastune did not create it")
	f.BoolVar(&o.Keep, "keep", false, "keep the test file afterwards")
	f.IntVar(&o.Repeat, "repeat", 1, "run each test N times; report the median and the spread")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or prom (node_exporter textfile)")
	f.StringVar(&o.Save, "save", "", "also write the JSON result to this file (for bench compare)")
	return cmd
}

func runBenchDisk(ctx context.Context, o *benchDiskOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "prom"); err != nil {
		return err
	}
	if o.File == "" {
		return usagef("e.g. nastune bench disk --file /srv/array/nastune.bench --size 4GiB", "--file is required")
	}
	size, err := sizeFlag("size", o.Size)
	if err != nil {
		return err
	}
	if size < 16<<20 {
		return usagef("use at least 16MiB, and more than the RAM to defeat caches", "--size %s is below 16MiB", o.Size)
	}
	if o.Runtime < time.Second || o.Runtime > time.Hour {
		return usagef("e.g. --runtime 10s", "--runtime %v is outside 1s-1h", o.Runtime)
	}
	if o.Repeat < 1 || o.Repeat > 20 {
		return usagef("e.g. --repeat 3", "--repeat %d is outside 1-20", o.Repeat)
	}
	var tests []string
	if o.Tests != "" {
		for _, t := range strings.Split(o.Tests, ",") {
			t = strings.TrimSpace(t)
			if !contains(bench.DiskTests, t) {
				return usagef("tests: "+strings.Join(bench.DiskTests, ", "), "--tests: unknown test %q", t)
			}
			tests = append(tests, t)
		}
	}
	opts := bench.DiskOptions{File: o.File, Size: int64(size), Tests: tests, Runtime: o.Runtime, Force: o.Force, Keep: o.Keep, Repeat: o.Repeat}
	bar := progressBar(env)
	opts.Progress = func(t string, f float64) { bar(t, f) }
	var res *bench.DiskResult
	switch o.Engine {
	case "builtin":
		res, err = bench.RunDisk(ctx, opts)
	case "fio":
		res, err = bench.RunFio(ctx, opts)
	default:
		return usagef("use --engine builtin or --engine fio", "--engine: unknown engine %q", o.Engine)
	}
	bar("", -1)
	if errors.Is(err, bench.ErrNotOurs) {
		return &UsageError{Err: err, Hint: "pick a new file name, or pass --force to overwrite it"}
	}
	if err != nil {
		return err
	}
	return emitBench(env, o.Output, o.Save, res, func(w io.Writer) { printDisk(w, res) })
}

func printDisk(w io.Writer, r *bench.DiskResult) {
	fmt.Fprintf(w, "bench disk: %s on %s (%s), %d MiB, engine %s\n\n", r.File, orDash(r.Device), r.Host, r.Size>>20, r.Engine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "test\tMiB/s\tIOPS\tp50 µs\tp99 µs\t")
	for _, t := range r.Tests {
		if t.Skipped != "" {
			fmt.Fprintf(tw, "%s\tskipped: %s\t\t\t\t\n", t.Name, t.Skipped)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%.0f\t%.0f\t\n", t.Name, t.MiBPerS, t.IOPS, t.LatUS.P50, t.LatUS.P99)
	}
	tw.Flush()
}

type benchNetOptions struct {
	Listen, Token, Engine, Output, Save string
	Time                                time.Duration
	Streams                             int
	Reverse                             bool
}

func newBenchNetCmd(env *Env) *cobra.Command {
	o := &benchNetOptions{}
	cmd := &cobra.Command{
		Use:   "net [HOST:PORT]",
		Short: "TCP throughput: a server (--listen ADDR:PORT) and a client (HOST:PORT)",
		Long: "On one machine: nastune bench net --listen 192.168.1.10:5201 [--token SECRET]\n" +
			"On the other:  nastune bench net 192.168.1.10:5201 [--time 10s] [--streams 4] [--reverse]\n\n" +
			"The server binds only the address given, runs one test at a time, caps tests at 60 s and 16\n" +
			"streams, and refuses malformed clients. Results: bits per second, TCP retransmits (TCP_INFO),\n" +
			"CPU use on both ends. --engine iperf3 drives iperf3 against an iperf3 server instead.\n\n" + exitHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBenchNet(cmd.Context(), o, args, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "", "serve tests on ADDR:PORT")
	f.StringVar(&o.Token, "token", "", "shared secret the client must present")
	f.DurationVar(&o.Time, "time", 10*time.Second, "test duration")
	f.IntVar(&o.Streams, "streams", 1, "parallel TCP streams (1-16)")
	f.BoolVar(&o.Reverse, "reverse", false, "the server sends, the client receives")
	f.StringVar(&o.Engine, "engine", "builtin", "builtin or iperf3")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or prom (node_exporter textfile)")
	f.StringVar(&o.Save, "save", "", "also write the JSON result to this file")
	return cmd
}

func runBenchNet(ctx context.Context, o *benchNetOptions, args []string, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "prom"); err != nil {
		return err
	}
	if o.Listen != "" {
		if len(args) > 0 {
			return usagef("run the server and the client on different machines (or shells)", "--listen and a server address exclude each other")
		}
		s := &bench.Server{Addr: o.Listen, Token: o.Token, Log: func(m string) { fmt.Fprintln(env.Stderr, "nastune bench:", m) }}
		if err := s.Listen(); err != nil {
			return &UsageError{Err: fmt.Errorf("--listen %s: %w", o.Listen, err), Hint: "give an address of this machine, e.g. 192.168.1.10:5201"}
		}
		fmt.Fprintf(env.Stdout, "nastune bench server on %s (Ctrl-C to stop)\n", s.Address())
		return s.Serve(ctx)
	}
	if len(args) != 1 {
		return usagef("nastune bench net --listen ADDR:PORT on the server, nastune bench net HOST:PORT on the client", "give a server HOST:PORT or --listen ADDR:PORT")
	}
	if o.Streams < 1 || o.Streams > bench.MaxStreams {
		return usagef("1 to 16 streams", "--streams %d is outside 1-%d", o.Streams, bench.MaxStreams)
	}
	if o.Time < time.Second || o.Time > bench.MaxSeconds*time.Second {
		return usagef("e.g. --time 10s", "--time %v is outside 1s-60s", o.Time)
	}
	bar := progressBar(env)
	opts := bench.NetOptions{Server: args[0], Token: o.Token, Streams: o.Streams, Duration: o.Time, Reverse: o.Reverse,
		Progress: func(f float64) { bar("tcp", f) }}
	var res *bench.NetResult
	var err error
	switch o.Engine {
	case "builtin":
		res, err = bench.RunNet(ctx, opts)
	case "iperf3":
		res, err = bench.RunIperf3(ctx, opts)
	default:
		return usagef("use --engine builtin or --engine iperf3", "--engine: unknown engine %q", o.Engine)
	}
	bar("", -1)
	if err != nil {
		return err
	}
	return emitBench(env, o.Output, o.Save, res, func(w io.Writer) {
		fmt.Fprintf(w, "bench net to %s: %d stream(s)%s, %.1f s, engine %s\n  %.1f Mbit/s, %d retransmits, CPU client %.0f%% server %.0f%%\n",
			res.Server, res.Streams, map[bool]string{true: " reversed", false: ""}[res.Reverse], res.Seconds, res.Engine,
			res.BitsPerSecond/1e6, res.Retransmits, res.CPUClientPct, res.CPUServerPct)
	})
}

func newBenchCompareCmd(env *Env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "compare BEFORE.json AFTER.json",
		Short: "Per test: before, after, change, and whether it is beyond the noise",
		Args:  cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := outputFormat(output, "text", "json", "html"); err != nil {
				return err
			}
			b, err := os.ReadFile(args[0])
			if err != nil {
				return &UsageError{Err: err, Hint: "save results with bench --save FILE or -o json > FILE"}
			}
			a, err := os.ReadFile(args[1])
			if err != nil {
				return &UsageError{Err: err, Hint: "save results with bench --save FILE or -o json > FILE"}
			}
			rows, err := bench.Compare(b, a)
			if err != nil {
				return &UsageError{Err: fmt.Errorf("compare %s %s: %w", args[0], args[1], err),
					Hint: "both files must be results of the same kind from bench --save FILE or -o json > FILE"}
			}
			switch output {
			case "json":
				return render.JSON(env.Stdout, rows)
			case "html":
				return render.HTMLCompare(env.Stdout, rows, args[0], args[1], render.HTMLOptions{Now: time.Now(), Version: Version})
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TEST\tBEFORE\tAFTER\tCHANGE\tVERDICT\tNOTE")
			for _, r := range rows {
				v := "within noise"
				if r.Significant {
					v = map[bool]string{true: "better", false: "worse"}[r.Change > 0]
				}
				fmt.Fprintf(tw, "%s\t%.1f %s\t%.1f %s\t%+.1f%%\t%s\t%s\n", r.Test, r.Before, r.Unit, r.After, r.Unit, r.Change, v, r.Note)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or html")
	return cmd
}

// emitBench prints a result and saves its JSON when asked.
func emitBench(env *Env, output, save string, v any, text func(io.Writer)) error {
	if save != "" {
		if err := bench.Save(save, v); err != nil {
			return &UsageError{Err: err}
		}
	}
	switch output {
	case "json":
		return render.JSON(env.Stdout, v)
	case "prom":
		return render.PromBench(env.Stdout, v, time.Now())
	}
	text(env.Stdout)
	return nil
}

// progressBar draws on stderr when stdout is a terminal; frac < 0 clears.
func progressBar(env *Env) func(string, float64) {
	if !env.IsTTY {
		return func(string, float64) {}
	}
	return func(label string, frac float64) {
		if frac < 0 {
			fmt.Fprint(env.Stderr, "\r\x1b[K")
			return
		}
		frac = min(max(frac, 0), 1)
		n := int(frac * 30)
		fmt.Fprintf(env.Stderr, "\r[%s%s] %3.0f%% %s\x1b[K", strings.Repeat("#", n), strings.Repeat(" ", 30-n), frac*100, label)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
