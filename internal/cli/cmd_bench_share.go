package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/units"
)

// smbPasswordEnv names the environment variable bench share reads the SMB
// password from.
const smbPasswordEnv = "NASTUNE_SMB_PASSWORD"

type benchShareOptions struct {
	Tests, Size, Block, Time, Output, Save, PasswordFile, TCP string
	Streams, Repeat, Files                                    int
	Warm                                                      bool
}

func newBenchShareCmd(env *Env) *cobra.Command {
	o := &benchShareOptions{}
	cmd := &cobra.Command{
		Use:   "share smb://[USER@]HOST[:PORT]/SHARE[/DIR] | nfs://HOST/EXPORT[/DIR]",
		Short: "A file copy over SMB or NFS as the owner runs it: sequential, small files, metadata",
		Long: "bench share measures the transfer the owner feels: it connects as a client (SMB 2.1-3.1.1, or\n" +
			"NFSv3 over TCP), writes and reads a test file of --size with --bs requests (1 MiB, 4 in\n" +
			"flight per stream, as Windows and macOS clients), and verifies every byte it reads back.\n" +
			"Tests: " + strings.Join(bench.ShareTests, ", ") + " (default: " + strings.Join(bench.ShareDefaultTests, ",") + ").\n" +
			"  smallfiles  create, write, read back and delete --files files of 64 KiB (a folder of photos)\n" +
			"  metadata    list and stat a folder of --files entries\n" +
			"Every file and folder it makes is named nastune-bench-*, made exclusively (an existing name is\n" +
			"never opened), carries a header it checks again before removing it, and is removed at the end,\n" +
			"also on an error or Ctrl-C (the tests already finished are printed, and saved with --save,\n" +
			"before it exits 130).\n" +
			"The SMB password comes from --password-file FILE, $" + smbPasswordEnv + " or a prompt on a\n" +
			"terminal; never from the command line, never in the output or the saved result. Without USER@\n" +
			"the session is anonymous. The dialect, signing and encryption in effect are reported as seen\n" +
			"on the wire.\n" +
			"Attribution: with `nastune bench net -s` on HOST (port 5201, token from $" + tokenEnv + ";\n" +
			"--tcp off skips it) the server samples while each test runs (the serving smbd/nfsd threads,\n" +
			"their cgroup's CPU quota and I/O limits, the share's disks, its NICs) and, before seqread,\n" +
			"drops the test file from its page cache (--warm keeps it); after the tests the client measures\n" +
			"raw TCP to HOST both ways (one stream, as a share session is one connection). Each test gets\n" +
			"one verdict: network (85% of raw TCP or a full NIC/shaper), server-cpu, disk, client or\n" +
			"protocol (nothing saturated: requests in flight × round trip), with its evidence.\n\n" + exitHelp,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runBenchShare(cmd.Context(), o, args[0], env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Tests, "tests", strings.Join(bench.ShareDefaultTests, ","), "comma-separated tests: "+strings.Join(bench.ShareTests, ","))
	f.StringVar(&o.Size, "size", "1GiB", "test file size: 1G, 512M (binary) or 4GB")
	f.StringVar(&o.Block, "bs", "1M", "request size of the sequential tests (4K-16M, a multiple of 4K)")
	f.StringVarP(&o.Time, "time", "t", "10", "time limit per test: seconds (10) or a duration (1m)")
	f.IntVarP(&o.Streams, "parallel", "P", 1, "parallel streams (open handles) or small-file workers (1-16)")
	f.IntVar(&o.Repeat, "repeat", 1, "run each test N times; report the median and the min-max spread")
	f.IntVar(&o.Files, "files", 100, "files of smallfiles and entries of metadata")
	f.StringVar(&o.TCP, "tcp", "auto", "raw TCP to compare with: auto (HOST:5201 when a nastune bench server answers), off, or `HOST[:PORT]`")
	f.BoolVar(&o.Warm, "warm", false, "keep the test file in the server's page cache before seqread (default: the bench server evicts it)")
	f.StringVar(&o.PasswordFile, "password-file", "", "read the SMB password from `FILE` (default: $"+smbPasswordEnv+", or a prompt)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or html")
	f.StringVar(&o.Save, "save", "", "also write the JSON result to this file (for bench compare)")
	return cmd
}

func runBenchShare(ctx context.Context, o *benchShareOptions, rawURL string, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "html"); err != nil {
		return err
	}
	u, err := bench.ParseShareURL(rawURL)
	if err != nil {
		// The URL is not repeated: it may hold a password.
		return &UsageError{Err: err, Hint: "e.g. nastune bench share smb://alice@nas/photos or nfs://nas/srv/nfs"}
	}
	size, err := testFileSize(o.Size, "use at least 16M, and more than the server's RAM to read from its disks")
	if err != nil {
		return err
	}
	bs, err := benchSize("bs", o.Block)
	if err != nil {
		return err
	}
	if bs < 4096 || bs > 16<<20 || bs%4096 != 0 {
		return usagef("e.g. --bs 1M (what Windows and macOS send)", "--bs %s: give a multiple of 4K from 4K to 16M", o.Block)
	}
	dur, err := durationIn("time", o.Time, time.Second, time.Hour, "1s-1h", "10")
	if err != nil {
		return err
	}
	if o.Streams < 1 || o.Streams > bench.MaxStreams {
		return usagef("e.g. -P 4", "-P %d is outside 1-%d", o.Streams, bench.MaxStreams)
	}
	if err := repeatFlag(o.Repeat); err != nil {
		return err
	}
	if o.Files < 1 || o.Files > 100000 {
		return usagef("e.g. --files 1000", "--files %d is outside 1-100000", o.Files)
	}
	tests, err := testsFlag(o.Tests, bench.ShareTests)
	if err != nil {
		return err
	}
	password, err := sharePassword(u, o.PasswordFile, env)
	if err != nil {
		return err
	}
	var tcpServer string
	switch o.TCP {
	case "off":
	case "auto", "":
		tcpServer = net.JoinHostPort(u.Host, bench.DefaultPort)
	default:
		if _, _, err := net.SplitHostPort(bench.WithPort(o.TCP)); err != nil || strings.ContainsAny(o.TCP, "/@ ") {
			return usagef("--tcp auto, --tcp off or --tcp HOST[:PORT]", "--tcp %q: not a host", o.TCP)
		}
		tcpServer = bench.WithPort(o.TCP)
	}
	ctx, stop := benchSignals(ctx)
	defer stop()
	lines := o.Output == "text" && env.IsTTY
	bar := progressBar(env)
	opts := bench.ShareOptions{URL: u, Password: password, Tests: tests, Size: size, Block: int(bs), Streams: o.Streams,
		Time: dur, Repeat: o.Repeat, Files: o.Files, Progress: func(t string, f float64) { bar(t, f) },
		TCPServer: tcpServer, TCPToken: env.Getenv(tokenEnv), Warm: o.Warm}
	if lines {
		var mu sync.Mutex
		header := false
		opts.OnInterval = func(test string, run int, iv bench.Interval) {
			mu.Lock()
			defer mu.Unlock()
			bar("", -1)
			if !header {
				fmt.Fprintln(env.Stdout, "test      run  interval        transfer      "+units.MBsUnit)
				header = true
			}
			fmt.Fprintf(env.Stdout, "%-8s  %3d  %-14s  %10s  %9.1f\n", test, run+1, fmt.Sprintf("%.2f-%.2f s", iv.Start, iv.End),
				units.Bytes(uint64(iv.Bytes)), iv.BitsPerSecond/8/1e6)
		}
	}
	res, err := bench.RunShare(ctx, opts)
	bar("", -1)
	text := func(w io.Writer) { printShare(w, res) }
	if errors.Is(err, bench.ErrInterrupted) || (err != nil && ctx.Err() != nil) {
		if res == nil || len(res.Tests) == 0 {
			return benchInterrupted(ctx, "no test finished; nothing to print or save")
		}
		res.Interrupted = true
		if perr := emitShare(env, o, res, text); perr != nil {
			return perr
		}
		return benchInterrupted(ctx, "%d of %d tests finished (printed above%s)", len(res.Tests), len(tests), savedNote(o.Save))
	}
	if err != nil {
		if res != nil && len(res.Tests) > 0 {
			// The tests finished before the failure are still numbers.
			_ = emitShare(env, o, res, text)
		}
		return fmt.Errorf("bench share %s: %w", u, err)
	}
	return emitShare(env, o, res, text)
}

func emitShare(env *Env, o *benchShareOptions, res *bench.ShareResult, text func(io.Writer)) error {
	if o.Output == "html" {
		if err := render.HTMLTables(env.Stdout, "nastune bench share", res.URL, res, render.HTMLOptions{Now: time.Now(), Version: Version}); err != nil {
			return err
		}
		return emitBench(env, "none", o.Save, res, func(io.Writer) {})
	}
	return emitBench(env, o.Output, o.Save, res, text)
}

// sharePassword: --password-file, then $NASTUNE_SMB_PASSWORD, then a
// prompt when stdin is a terminal. An anonymous (no USER@) or NFS session
// needs none.
func sharePassword(u bench.ShareURL, file string, env *Env) (string, error) {
	if u.Scheme != "smb" || u.User == "" {
		if file != "" {
			return "", usagef("give USER@ in an smb:// URL to log in", "--password-file: %s takes no password", map[bool]string{true: "an anonymous SMB session", false: "nfs://"}[u.Scheme == "smb"])
		}
		return "", nil
	}
	if file != "" {
		b, err := readRegular(file, 4096)
		if err != nil {
			return "", &UsageError{Err: fmt.Errorf("--password-file: %w", err), Hint: "a regular file holding the password on its first line (chmod 600)"}
		}
		pw, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimSuffix(pw, "\r"), nil
	}
	if pw := env.Getenv(smbPasswordEnv); pw != "" {
		return pw, nil
	}
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(env.Stderr, "SMB password for %s@%s: ", u.User, u.Host)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", usagef("--password-file FILE or "+smbPasswordEnv+"=... (not on the command line: ps shows it to every user)",
		"%s needs a password and there is no terminal to ask on", u)
}

// shareColumns are the columns of the bench share table. metadata moves
// no bytes: its MB/s is "–" and its spread is in entries per second.
var shareColumns = []benchColumn{
	benchColTest,
	{head: units.MBsHeader, cell: func(t bench.TestResult) string {
		if t.Name == "metadata" {
			return "–"
		}
		return units.MBsNum(units.MBsOfMiB(t.MiBPerS))
	}},
	{head: "min–max " + units.MBsUnit, spread: true, cell: func(t bench.TestResult) string {
		if t.Name == "metadata" {
			return fmt.Sprintf("%.0f/s–%.0f/s", t.SpreadLo, t.SpreadHi)
		}
		return units.MBsNum(units.MBsOfMiB(t.SpreadLo)) + "–" + units.MBsNum(units.MBsOfMiB(t.SpreadHi))
	}},
	benchColRuns,
	{head: "ops/s", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.0f", t.IOPS) }},
	{head: "p50 ms", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.2f", t.LatUS.P50/1000) }},
	{head: "p99 ms", cell: func(t bench.TestResult) string { return fmt.Sprintf("%.2f", t.LatUS.P99/1000) }},
	{head: "verified", cell: func(t bench.TestResult) string { return map[bool]string{true: "yes", false: "–"}[t.Verified] }},
}

func printShare(w io.Writer, r *bench.ShareResult) {
	dialect := ""
	if r.Dialect != "" {
		dialect = " " + r.Dialect
	}
	fmt.Fprintf(w, "bench share %s: %s%s, signing %s, encryption %s\n", r.URL, strings.ToUpper(r.Protocol), dialect, r.Signing, r.Encryption)
	fmt.Fprintf(w, "  file %s, requests of %s, %d stream(s) x %d in flight, %d files\n", units.Bytes(uint64(r.Size)), units.Bytes(uint64(r.BlockSize)), r.Streams, r.InFlight, r.Files)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintln(w)
	spread := writeBenchTable(w, r.Tests, shareColumns)
	fmt.Fprintln(w, "\nops/s: requests (seq), files (smallfiles) or entries (metadata) per second.")
	if spread {
		fmt.Fprintln(w, units.MBsUnit+", ops/s and latencies are those of the median run.")
	}
	if r.TCP != nil {
		fmt.Fprintf(w, "raw TCP to %s, %d stream, same run: up %s, down %s\n", r.TCP.Server, r.TCP.Streams,
			units.BitRate(r.TCP.UpBitsPerSecond), units.BitRate(r.TCP.DownBitsPerSecond))
	}
	for _, l := range r.Limit {
		fmt.Fprintf(w, "%s: %s (%s): %s\n", l.Test, l.Layer, l.Subject, l.Why)
		for _, e := range l.Evidence {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	for _, t := range r.Tests {
		if v := r.Server[t.Name]; v != nil {
			for _, n := range v.Notes {
				fmt.Fprintf(w, "%s: the bench server: %s\n", t.Name, n)
			}
		}
	}
	for _, n := range r.ShortTests {
		fmt.Fprintln(w, n)
	}
	if r.Attribution != "" {
		fmt.Fprintln(w, r.Attribution)
	}
	if r.Interrupted {
		fmt.Fprintln(w, "interrupted: only the tests above finished")
	}
}
