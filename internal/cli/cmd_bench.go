package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/units"
)

func newBenchCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure disks, the network and file shares (built-in engines; fio/iperf3 when asked), save and compare results",
		Long: "bench proves a change with numbers: run it before, apply, run it after, then `bench compare`.\n" +
			"It never runs as part of an audit, and writes only the file you name.\n\n" + exitHelp,
	}
	// bench disk (Linux only) is added by addCommands (platform.go)
	cmd.AddCommand(newBenchNetCmd(env), newBenchShareCmd(env), newBenchCompareCmd(env))
	return cmd
}

// benchSize and durationFlag read the size and duration flags of bench,
// tune and watch through the shared units package: 1G, 512M, 64k, 4T are binary as in fio, dd and
// mdadm, spelled-out units keep their meaning (GB ×1000, GiB ×1024), a bare
// number of bytes is bytes; a bare duration is seconds as in fio and iperf3,
// and 0 means "off" where a flag allows it (--interval 0).
func benchSize(flag, v string) (int64, error) {
	n, err := units.ParseSize(v)
	if err != nil {
		return 0, &UsageError{Err: fmt.Errorf("--%s: %w", flag, err), Hint: "e.g. 4G, 512M (binary, ×1024) or 4GB (×1000)"}
	}
	if n >= 1<<62 { // offset + length must stay a valid loff_t
		return 0, usagef("e.g. 4G, 512M (binary, ×1024) or 4GB (×1000)", "--%s %s: at most 4 EiB (an offset plus a length must fit a signed 64-bit file offset)", flag, v)
	}
	return int64(n), nil
}

// testFileSize reads --size, the size of a test file: at least 16 MiB,
// below which caches and request sizes decide the result (hint says what
// to use instead).
func testFileSize(v, hint string) (int64, error) {
	size, err := benchSize("size", v)
	if err == nil && size < 16<<20 {
		err = usagef(hint, "--size %s is below 16MiB", v)
	}
	return size, err
}

func durationFlag(flag, v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f == 0 {
		return 0, nil
	}
	if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil && d == 0 {
		return 0, nil // "0s"
	}
	d, err := units.ParseDuration(v)
	if err != nil {
		if _, limit, ok := strings.Cut(err.Error(), ": at most "); ok { // too long: name the limit
			return 0, usagef("seconds (30) or a duration (1m30s)", "--%s %s: at most %s", flag, v, limit)
		}
		return 0, usagef("seconds (30) or a duration (1m30s)", "--%s %s: not a duration", flag, v)
	}
	return d, nil
}

// durationIn reads a duration flag that must lie in [lo, hi]; span says
// the range as the user reads it ("1s-1h") and example a value to try.
func durationIn(flag, v string, lo, hi time.Duration, span, example string) (time.Duration, error) {
	d, err := durationFlag(flag, v)
	if err != nil {
		return 0, err
	}
	if d < lo || d > hi {
		return 0, usagef("e.g. --"+flag+" "+example, "--%s %v is outside %s", flag, d, span)
	}
	return d, nil
}

// repeatFlag checks --repeat of bench disk, net and share: 1 to 20 runs.
func repeatFlag(n int) error {
	if n < 1 || n > 20 {
		return usagef("e.g. --repeat 3", "--repeat %d is outside 1-20", n)
	}
	return nil
}

// testsFlag reads --tests, a comma-separated list of known tests, in the
// order given.
func testsFlag(v string, known []string) ([]string, error) {
	var tests []string
	for _, t := range strings.Split(v, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(known, t) {
			return nil, usagef("tests: "+strings.Join(known, ", "), "--tests: unknown test %q", t)
		}
		tests = append(tests, t)
	}
	return tests, nil
}

// benchSignals adds SIGHUP to the signals that stop a bench (SIGINT and
// SIGTERM already cancel ctx in cmd/nastune; they are caught here too for
// callers without that): a closed terminal must not leave the test file
// behind. SIGHUP is left alone when it was ignored at the start (nohup):
// such a run is meant to outlive the terminal. The signal that stopped the
// run is the context's cause (see stoppedBy).
func benchSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(SignalCause{Sig: s.(syscall.Signal)})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(nil)
		})
	}
}

// benchInterrupted is the error of a bench a signal stopped: exit 128 +
// the signal when benchSignals saw it (SIGHUP: 129), else 130 (cmd/nastune
// turns it into 143 for SIGTERM).
func benchInterrupted(ctx context.Context, format string, args ...any) error {
	e := &interruptedError{msg: fmt.Sprintf(format, args...)}
	var sc SignalCause
	if errors.As(context.Cause(ctx), &sc) {
		e.sig = sc.Sig
	}
	return e
}

type benchNetOptions struct {
	Listen, Token, Engine, Output, Save, Time, Interval, MaxBytes string
	SMBConf, ExportsDir                                           string
	Streams, Repeat                                               int
	Reverse, Server                                               bool

	// PasswordFile: the SMB password the server uses for share tests a
	// tune --share --client asks for (bench.Server.SharePassword).
	PasswordFile string
}

// tokenEnv names the environment variable both ends read the token from.
const tokenEnv = "NASTUNE_BENCH_TOKEN"

func newBenchNetCmd(env *Env) *cobra.Command {
	o := &benchNetOptions{}
	cmd := &cobra.Command{
		Use:   "net [HOST[:PORT]]",
		Short: "TCP throughput: a server (-s, or --listen ADDR[:PORT]) and a client (HOST[:PORT]), port 5201",
		Long: "On one machine: nastune bench net -s                 (all addresses, port 5201)\n" +
			"           or:  nastune bench net --listen 192.168.1.10\n" +
			"On the other:  nastune bench net 192.168.1.10 [--time 10] [--streams 4] [--reverse] [--repeat 3]\n\n" +
			"The client prints one line per second (--interval) like iperf3, then the total. Set a shared\n" +
			"token on both ends with " + tokenEnv + "=SECRET (or --token): the server warns when it listens\n" +
			"beyond loopback without one. The server binds only the address given, runs one test at a\n" +
			"time (others wait their turn), caps tests at 60 s, 16 streams and --max-bytes, drops\n" +
			"connections that do not say hello within 3 s, and keeps room for real clients in an idle flood.\n" +
			"A wrong token costs 1 s; five from one address lock it out for a minute. --token is visible\n" +
			"to every local user in ps: prefer the environment variable.\n" +
			"Results: bits per second, TCP retransmits (TCP_INFO), CPU use on both ends.\n" +
			"--engine iperf3 drives iperf3 instead, against an iperf3 server: iperf3 -s -p 5201 there.\n" +
			"Ctrl-C stops the server: that is its normal end (exit 0). A client stopped by Ctrl-C prints\n" +
			"and saves the runs finished, then exits 130.\n\n" + exitHelp,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchNet(cmd.Context(), o, args, cmd.Flags().Changed("interval"), env)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Server, "server", "s", false, "serve tests on all addresses, port 5201 (as iperf3 -s)")
	f.StringVar(&o.Listen, "listen", "", "serve tests on ADDR[:PORT] (port 5201 when omitted)")
	f.StringVar(&o.Token, "token", "", "shared secret the client must present (default: $"+tokenEnv+")")
	f.StringVarP(&o.Time, "time", "t", "10", "test duration: seconds (10) or a duration (30s)")
	f.StringVarP(&o.Interval, "interval", "i", "1", "seconds between periodic lines (text output)")
	f.IntVarP(&o.Streams, "streams", "P", 1, "parallel TCP streams (1-16)")
	f.BoolVarP(&o.Reverse, "reverse", "R", false, "the server sends, the client receives")
	f.IntVar(&o.Repeat, "repeat", 1, "run the test N times; report the median and the min-max spread")
	f.StringVar(&o.MaxBytes, "max-bytes", "128G", "server: stop a test after this many bytes")
	f.StringVar(&o.SMBConf, "smb-conf", "/etc/samba/smb.conf", "server: the smb.conf `FILE` that names the shares' folders (bench share attribution)")
	f.StringVar(&o.ExportsDir, "exports-dir", "/etc", "server: the `DIR` holding exports and exports.d (bench share attribution)")
	f.StringVar(&o.Engine, "engine", "builtin", "builtin or iperf3")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or prom (node_exporter textfile)")
	f.StringVar(&o.Save, "save", "", "also write the JSON result to this file")
	f.StringVar(&o.PasswordFile, "password-file", "", "server: the `FILE` holding the SMB password for the share tests tune --share --client asks for (default: $"+smbPasswordEnv+")")
	return cmd
}

func runBenchNet(ctx context.Context, o *benchNetOptions, args []string, intervalSet bool, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "prom"); err != nil {
		return err
	}
	token := o.Token
	if token == "" {
		token = env.Getenv(tokenEnv)
	}
	if o.Server && o.Listen == "" {
		o.Listen = ":" + bench.DefaultPort
	}
	if o.Listen != "" {
		if len(args) > 0 {
			return usagef("run the server and the client on different machines (or shells)", "--listen/-s and a server address exclude each other")
		}
		maxBytes, err := benchSize("max-bytes", o.MaxBytes)
		if err != nil {
			return err
		}
		s := &bench.Server{Addr: o.Listen, Token: token, MaxBytes: maxBytes, Log: func(m string) { fmt.Fprintln(env.Stderr, "nastune bench:", m) },
			SMBConf: o.SMBConf, ExportsDir: o.ExportsDir, Devices: shareDevices}
		if err := s.Listen(); err != nil {
			return &UsageError{Err: fmt.Errorf("--listen %s: %w", o.Listen, err), Hint: "give an address of this machine, e.g. 192.168.1.10 (port 5201) or 192.168.1.10:5202"}
		}
		fmt.Fprintf(env.Stdout, "nastune bench server on %s (Ctrl-C to stop)\n", s.Address())
		// Share tests on request (with a token only, against the asking
		// address only): the password is this machine's, read per request,
		// never asked for on the terminal while serving.
		quiet := *env
		quiet.IsTTY, quiet.Stdin = false, strings.NewReader("")
		s.SharePassword = func(u bench.ShareURL) (string, error) { return sharePassword(u, o.PasswordFile, &quiet) }
		if s.Open() {
			fmt.Fprintf(env.Stderr, "warning: anyone who can reach %s can run tests (up to %s each); set a token on both ends:\n"+
				"  export %s=$(head -c 12 /dev/urandom | base64)   (or --token SECRET)\n", s.Address(), o.MaxBytes, tokenEnv)
		}
		ctx, stop := benchSignals(ctx)
		defer stop()
		if err := s.Serve(ctx); err != nil {
			return err
		}
		// Ctrl-C (or SIGTERM, SIGHUP) is how a server ends: a note, exit 0.
		how := "stopped"
		var sc SignalCause
		if errors.As(context.Cause(ctx), &sc) {
			how = "stopped by " + sc.Sig.String()
		}
		fmt.Fprintf(env.Stderr, "nastune bench: server on %s %s\n", s.Address(), how)
		return errStopped
	}
	if len(args) != 1 {
		return usagef("nastune bench net -s on the server, nastune bench net HOST on the client", "give a server HOST[:PORT], or -s / --listen ADDR to serve")
	}
	if o.Streams < 1 || o.Streams > bench.MaxStreams {
		return usagef("1 to 16 streams", "--streams %d is outside 1-%d", o.Streams, bench.MaxStreams)
	}
	dur, err := durationIn("time", o.Time, time.Second, bench.MaxSeconds*time.Second, "1s-60s", "10")
	if err != nil {
		return err
	}
	every, err := durationFlag("interval", o.Interval)
	if err != nil {
		return err
	}
	if every < 100*time.Millisecond && every != 0 {
		return usagef("e.g. --interval 1, or 0 for no periodic lines", "--interval %v is below 0.1 s", every)
	}
	if err := repeatFlag(o.Repeat); err != nil {
		return err
	}
	if o.Engine != "builtin" && o.Engine != "iperf3" {
		return usagef("use --engine builtin or --engine iperf3", "--engine: unknown engine %q", o.Engine)
	}
	ctx, stop := benchSignals(ctx)
	defer stop()
	lines := o.Output == "text" && every > 0 && (env.IsTTY || intervalSet)
	bar := func(string, float64) {}
	if !lines || o.Engine == "iperf3" {
		bar = progressBar(env)
	}
	opts := bench.NetOptions{Server: args[0], Token: token, Streams: o.Streams, Duration: dur, Reverse: o.Reverse, Repeat: o.Repeat,
		Interval: every, Progress: func(f float64) { bar("tcp", f) },
		OnWait: func(n int) {
			bar("", -1)
			fmt.Fprintf(env.Stderr, "nastune bench: the server is busy; waiting for a turn (%d ahead)\n", n)
		}}
	if lines {
		if o.Engine == "iperf3" && env.IsTTY {
			fmt.Fprintln(env.Stderr, "iperf3 "+"reports its intervals at the end of each run")
		}
		var mu sync.Mutex
		header := false
		opts.OnInterval = func(run int, iv bench.Interval) {
			mu.Lock()
			defer mu.Unlock()
			bar("", -1)
			if !header {
				fmt.Fprintln(env.Stdout, "run  interval        transfer     bitrate        retransmits")
				header = true
			}
			fmt.Fprintf(env.Stdout, "%3d  %-14s  %10s  %13s  %11d\n", run+1, fmt.Sprintf("%.2f-%.2f s", iv.Start, iv.End),
				units.Bytes(uint64(iv.Bytes)), units.BitRate(iv.BitsPerSecond), iv.Retransmits)
		}
	}
	var res *bench.NetResult
	if o.Engine == "iperf3" {
		res, err = runIperf3(ctx, opts)
	} else {
		res, err = bench.RunNet(ctx, opts)
	}
	bar("", -1)
	text := func(w io.Writer) { printNet(w, res) }
	if errors.Is(err, bench.ErrInterrupted) || (err != nil && ctx.Err() != nil) {
		if res == nil {
			return benchInterrupted(ctx, "no run finished; nothing to print or save")
		}
		if perr := emitBench(env, o.Output, o.Save, res, text); perr != nil {
			return perr
		}
		return benchInterrupted(ctx, "%d of %d runs finished (printed above%s)", max(res.Runs, 1), o.Repeat, savedNote(o.Save))
	}
	if err != nil {
		if o.Engine == "iperf3" {
			return &UsageError{Err: err, Hint: iperf3ServerHint(args[0])}
		}
		return err
	}
	return emitBench(env, o.Output, o.Save, res, text)
}

func printNet(w io.Writer, r *bench.NetResult) {
	fmt.Fprintf(w, "bench net to %s: %d stream(s)%s, %.1f s, engine %s\n", r.Server, r.Streams,
		map[bool]string{true: " reversed", false: ""}[r.Reverse], r.Seconds, r.Engine)
	if r.Runs > 1 {
		fmt.Fprintf(w, "  %s median of %d runs (min–max %s–%s), %d retransmits, CPU client %.0f%% server %.0f%%\n",
			units.BitRate(r.BitsPerSecond), r.Runs, units.BitRate(r.SpreadLo), units.BitRate(r.SpreadHi), r.Retransmits, r.CPUClientPct, r.CPUServerPct)
	} else {
		fmt.Fprintf(w, "  %s, %s, %d retransmits, CPU client %.0f%% server %.0f%%\n",
			units.BitRate(r.BitsPerSecond), units.Bytes(uint64(r.Bytes)), r.Retransmits, r.CPUClientPct, r.CPUServerPct)
	}
	if r.SpuriousRetransmits > 0 {
		fmt.Fprintf(w, "  %d of the retransmits were spurious (D-SACK: the receiver already had the data; reordering, not loss)\n", r.SpuriousRetransmits)
	}
	if r.Capped != "" {
		fmt.Fprintf(w, "  the server stopped the test at its %s cap\n", r.Capped)
	}
	if r.Interrupted {
		fmt.Fprintln(w, "  interrupted: only the runs above finished")
	}
}

// maxResultSize caps a saved result bench compare reads: a result is a
// few KiB (a --repeat 20 run with every test stays below 100 KiB).
const maxResultSize = 16 << 20

func newBenchCompareCmd(env *Env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "compare BEFORE.json AFTER.json",
		Short: "Per test: before, after, change, and whether it is beyond the noise",
		Args:  argsUsage(cobra.ExactArgs(2)),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := outputFormat(output, "text", "json", "html"); err != nil {
				return err
			}
			// Regular files only (a FIFO must not hang it), size-capped.
			b, err := readRegular(args[0], maxResultSize)
			if err != nil {
				return &UsageError{Err: err, Hint: "save results with bench --save FILE or -o json > FILE"}
			}
			a, err := readRegular(args[1], maxResultSize)
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
			return render.CompareText(env.Stdout, rows)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or html")
	return cmd
}

func savedNote(save string) string {
	if save == "" {
		return ""
	}
	return " and saved to " + save
}

// emitBench prints a result, then saves its JSON when asked (printed
// first: a save that fails must not cost the numbers).
func emitBench(env *Env, output, save string, v any, text func(io.Writer)) error {
	var err error
	switch output {
	case "json":
		err = render.JSON(env.Stdout, v)
	case "prom":
		err = render.PromBench(env.Stdout, v, time.Now())
	default:
		text(env.Stdout)
	}
	if err != nil {
		return err
	}
	if save != "" {
		if err := bench.Save(save, v); err != nil {
			return &UsageError{Err: err, Hint: "the result is printed above; save it into a directory owned by root or by you"}
		}
	}
	return nil
}

// stderrIsTerminal: with -o json > file the bar still shows on the
// terminal the user watches.
func stderrIsTerminal(env *Env) bool { return fileIsTerminal(render.RawWriter(env.Stderr)) }

// fileIsTerminal reports whether w is a file open on a terminal.
func fileIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws on stderr when stdout or stderr is a terminal; frac < 0 clears.
func progressBar(env *Env) func(string, float64) {
	if !env.IsTTY && !stderrIsTerminal(env) {
		return func(string, float64) {}
	}
	// The bar's own carriage return and erase-line go raw; the label
	// (a test or file name) passes render.CleanLine.
	w := render.RawWriter(env.Stderr)
	return func(label string, frac float64) {
		if frac < 0 {
			fmt.Fprint(w, "\r\x1b[K")
			return
		}
		frac = min(max(frac, 0), 1)
		n := int(frac * 30)
		fmt.Fprintf(w, "\r[%s%s] %3.0f%% %s\x1b[K", strings.Repeat("#", n), strings.Repeat(" ", 30-n), frac*100, render.CleanLine(label))
	}
}
