//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/tune"
)

type tuneOptions struct {
	File    string
	Tests   string
	BS      string
	Size    string
	Runtime string
	Budget  string
	Sample  string
	Devices []string
	Knobs   string
	List    bool
	Yes     bool
	Output  string

	// tune --share (cmd_tune_share.go)
	Share, SmbConf, PasswordFile, Client string
	testsSet                             bool
	Streams                              int // bench share's -P
	// tune --net
	Net   string
	Token string
	Time  string
	Rate  float64
}

func newTuneCmd(env *Env) *cobra.Command {
	o := &tuneOptions{}
	cmd := &cobra.Command{
		Use:   "tune --file PATH | --net HOST[:PORT] | --share URL",
		Short: "Tune the disk path under PATH by measurement: keep only what a benchmark proves",
		Long: "tune measures the chosen tests on a file under PATH (baseline: at least 3 runs, more while the\n" +
			"spread is wide), then tries the uncertain knobs of the block devices under PATH one value at a\n" +
			"time (read_ahead_kb, scheduler, nr_requests, md stripe_cache_size), each applied runtime-only\n" +
			"as a journaled run. A value is kept only when it gains more than the noise band (the baseline's\n" +
			"spread, at least 5%); otherwise it is reverted at once and read back. Everything kept is measured\n" +
			"together, then persisted (udev rule) as one run that `nastune undo RUN` reverts entirely.\n" +
			"Values the audit warns about and more memory than the box can spare are never tried.\n" +
			"Ctrl-C, SIGTERM or a lost terminal revert the live trial; after a crash `nastune undo` (or the\n" +
			"next tune) does. On a terminal it asks before the first trial; elsewhere it needs --yes.\n\n" +
			"--net HOST[:PORT] tunes the TCP buffer maxima (tcp_rmem/tcp_wmem) for the path to a\n" +
			"`nastune bench net -s` server instead: sized from the RTT and the rate (BDP) of a probe stream that\n" +
			"sets its own buffer (or --rate), tried as a ladder smallest first until the gain stops, so the\n" +
			"smallest maximum that reaches the plateau is kept; persisted in /etc/sysctl.d, or, in a network\n" +
			"namespace other than the host's initial one, runtime only (tune says how to persist it there).\n" +
			"net.core.*mem_max are not tried: they cap only programs that set SO_RCVBUF/SO_SNDBUF, not the\n" +
			"streams measured.\n\n" +
			"With --share URL the workload is bench share's seqread and seqwrite on that share, measured\n" +
			"through the address in the URL, and the candidates are the Samba options that cap or slow a\n" +
			"transfer (socket options with SO_RCVBUF/SO_SNDBUF, aio sizes, use sendfile, min receivefile\n" +
			"size, server multi channel support), nfsd's thread count and the block knobs under the share's\n" +
			"path. Each Samba trial is a testparm-checked smb.conf edit that smbd reloads; socket options\n" +
			"need an smbd restart, which drops connected clients (asked first). Signing, encryption and\n" +
			"NFS sync are never lowered.\n" +
			"Needs root. See docs/tune.md.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Share != "" {
				if o.Net != "" || o.File != "" {
					return usagef("tune one thing at a time: nastune tune --share URL, --net HOST or --file PATH", "--share excludes --net and --file")
				}
				o.testsSet = cmd.Flags().Changed("tests")
				return runTuneShare(cmd.Context(), o, env)
			}
			// A share's flags without --share would be ignored: a user
			// who gave --client would believe the client measured.
			for _, name := range []string{"client", "password-file", "smb-conf"} {
				if cmd.Flags().Changed(name) {
					return usagef("nastune tune --share URL --"+name+" ...", "--%s is for --share", name)
				}
			}
			return runTune(cmd.Context(), o, env)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.File, "file", "", "test file on the filesystem to tune (created and removed by tune; this, --net or --share is required)")
	f.StringVar(&o.Tests, "tests", "seqread-buffered", "comma-separated bench tests that make up the workload")
	f.StringVar(&o.BS, "bs", "1M", "request size of the sequential tests: 16K, 128K, 1M")
	f.StringVar(&o.Size, "size", "256M", "test file size")
	f.StringVar(&o.Runtime, "runtime", "10", "time limit per test run: seconds or a duration")
	f.StringVar(&o.Sample, "sample", "2s", "shortest measurement: the tests repeat until then, and count as one run")
	f.StringVar(&o.Budget, "budget", "10m", "time for the whole tune; candidates left when it runs out are not tried")
	f.StringArrayVar(&o.Devices, "device", nil, "only tune this device of the path (kernel name, e.g. sdb; repeatable)")
	f.StringVar(&o.Knobs, "knobs", "", "only these attributes (comma-separated): read_ahead_kb, scheduler, nr_requests, stripe_cache_size; with --share also threads (nfsd) and Samba options")
	f.BoolVar(&o.Yes, "yes", false, "start the trials without asking")
	f.BoolVar(&o.List, "list", false, "only list the devices under PATH and the values tune would try (read-only)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or html")
	f.StringVar(&o.Share, "share", "", "tune the file server behind this share `URL` (smb://[USER@]HOST/SHARE or nfs://HOST/EXPORT) by bench share's result instead of --file")
	f.StringVar(&o.SmbConf, "smb-conf", "/etc/samba/smb.conf", "with --share: the smb.conf smbd reads (`FILE`)")
	f.IntVarP(&o.Streams, "parallel", "P", 1, "with --share: parallel streams of each test, as bench share -P (1-16): parallel readers")
	f.StringVar(&o.Client, "client", "", "with --share: a client `HOST[:PORT]` running nastune bench net -s runs the share tests, so the network to it counts (token: --token)")
	f.StringVar(&o.PasswordFile, "password-file", "", "with --share: read the SMB password from `FILE` (default: $"+smbPasswordEnv+", or a prompt)")
	f.StringVar(&o.Net, "net", "", "tune the socket buffers for the path to the bench net server (nastune bench net -s) at `HOST[:PORT]`")
	f.StringVar(&o.Token, "token", "", "--net, --share --client: the bench net server's token (default: $"+tokenEnv+")")
	f.StringVar(&o.Time, "time", "3", "--net: seconds of each stream (one sending, one receiving) in a measurement")
	f.Float64Var(&o.Rate, "rate", 0, "--net: the path's rate in `MBIT`/s when known (the link, the WAN contract); sizes the buffers when above what is measured")
	return cmd
}

func runTune(ctx context.Context, o *tuneOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "html"); err != nil {
		return err
	}
	// The HTML report is of a tune's trials; --list has none, and used to
	// print its text under -o html.
	if o.List && o.Output == "html" {
		return usagef("use -o text or -o json with --list", "--list prints text or json, not html")
	}
	if o.Net != "" {
		if o.File != "" {
			return usagef("tune one thing at a time: nastune tune --net HOST or nastune tune --file PATH", "--net and --file exclude each other")
		}
		return runTuneNet(ctx, o, env)
	}
	if o.File == "" {
		return usagef("e.g. nastune tune --file /srv/array/nastune.tune --tests seqread-buffered --bs 16K", "--file is required")
	}
	tests, err := testsFlag(o.Tests, bench.DiskTests)
	if err != nil {
		return err
	}
	bs, err := benchSize("bs", o.BS)
	if err != nil {
		return err
	}
	if bs < 4096 || bs%4096 != 0 || bs > 16<<20 {
		return usagef("e.g. --bs 16K or --bs 1M", "--bs %s: give a multiple of 4K up to 16M", o.BS)
	}
	size, err := testFileSize(o.Size, "e.g. --size 256M")
	if err != nil {
		return err
	}
	runtime, err := durationFlag("runtime", o.Runtime)
	if err != nil {
		return err
	}
	sample, err := durationIn("sample", o.Sample, 0, 10*time.Minute, "0-10m", "2s")
	if err != nil {
		return err
	}
	aopts := apply.Options{}
	ctx, budget, stop, err := tuneStart(ctx, o, env, tuneKind{cmd: "tune", yes: "run `nastune tune --yes ...`",
		writes: "tune writes /sys attributes and /etc/udev", revertFirst: &aopts})
	if err != nil {
		return err
	}
	defer stop()
	devs, err := tune.DefaultResolver.Resolve(dirOf(o.File))
	if err != nil {
		return err
	}
	if len(o.Devices) > 0 {
		var keep []tune.Device
		for _, d := range devs {
			if slices.Contains(o.Devices, d.Name) {
				keep = append(keep, d)
			}
		}
		if len(keep) == 0 {
			names := []string{}
			for _, d := range devs {
				names = append(names, d.Name)
			}
			return usagef("devices under the path: "+strings.Join(names, ", "), "--device %s is not under %s", strings.Join(o.Devices, ","), o.File)
		}
		devs = keep
	}
	h := probe.Collect(ctx, hostfs.Live())
	knobs := tune.Knobs("/sys", devs, h)
	if o.Knobs != "" {
		want := strings.Split(o.Knobs, ",")
		for i, a := range want {
			want[i] = strings.TrimSpace(a)
			if !slices.Contains(tune.Attrs, want[i]) {
				return usagef("knobs: "+strings.Join(tune.Attrs, ", "), "--knobs: unknown attribute %q", a)
			}
		}
		knobs = slices.DeleteFunc(knobs, func(k tune.Knob) bool { return !slices.Contains(want, k.Attr) })
	}
	units := map[string]string{}
	for _, t := range tests {
		units[t] = tune.Unit(t)
	}
	if o.List && o.Output == "json" {
		return listJSON(env, map[string]any{"devices": devs, "knobs": knobs})
	}
	w := tuneOut(env, o)
	reqs := ""
	if slices.ContainsFunc(tests, func(t string) bool { return strings.HasPrefix(t, "seq") }) {
		reqs = ", sequential requests of " + o.BS
	}
	fmt.Fprintf(w, "tune %s: %s%s, budget %s\n", o.File, strings.Join(tests, ","), reqs, budget)
	n := printKnobs(w, devs, knobs)
	if n == 0 {
		fmt.Fprintln(w, "nothing to try on this path")
		return nil
	}
	if o.List {
		return nil
	}
	cleanup := func() {
		if err := bench.RemoveTestFile(o.File); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(env.Stderr, "nastune: warning: removing the test file: %v\n", err)
		}
	}
	m := tune.DiskMeasurer(o.File, size, tests, int(bs), runtime, sample)
	a := &tune.JournalApplier{Opts: aopts, Sys: "/sys", Devs: devs}
	return tuneTrials(ctx, env, o, n, m, a, tune.Options{Tests: tests, Units: units, Knobs: knobs, Budget: budget}, cleanup)
}

// tuneKind says how the messages of tuneStart name a tune.
type tuneKind struct {
	cmd    string // the tune in the root hint ("tune --net")
	yes    string // how to run it without asking
	writes string // what it writes ("tune writes …")
	// revertFirst (--file, --net): revert the runs whose confirmation
	// deadline passed and the trials a killed tune left live before the
	// tune reads the values it starts from. --share does it under the
	// lock, where it restarts smbd after a reverted Samba trial.
	revertFirst *apply.Options
}

// tuneStart is the prelude of every tune: the budget, root (unless
// --list), a way to ask (--yes or a terminal), the signals that stop the
// measurement (Ctrl-C, SIGTERM, a lost terminal, a closed pipe: the trials
// are reverted before exit, and further signals while reverting are
// caught, and ignored, until stop) and, unless --list, k.revertFirst.
func tuneStart(ctx context.Context, o *tuneOptions, env *Env, k tuneKind) (context.Context, time.Duration, func(), error) {
	budget, err := durationIn("budget", o.Budget, 10*time.Second, 24*time.Hour, "10s-24h", "10m")
	if err != nil {
		return nil, 0, nil, err
	}
	if os.Geteuid() != 0 && !o.List {
		return nil, 0, nil, usagef("run it as root: sudo nastune "+k.cmd+" ...", "%s, which needs root", k.writes)
	}
	if !o.Yes && !env.IsTTY && !o.List {
		return nil, 0, nil, usagef(k.yes+" to start the trials without asking", "nothing tried: not a terminal and no --yes")
	}
	ctx, stopSignals := benchSignals(ctx)
	ctx, stopPipe := pipeSignal(ctx)
	stop := func() { stopPipe(); stopSignals() }
	if k.revertFirst != nil && !o.List {
		finishExpired(env)
		if _, err := finishTuneOrphans(env, *k.revertFirst); err != nil {
			stop()
			return nil, 0, nil, err
		}
	}
	return ctx, budget, stop, nil
}

func reportReverted(env *Env, done []string) {
	if len(done) > 0 {
		fmt.Fprintf(env.Stderr, "nastune: reverted %d trial run(s) a killed tune left live: %s\n", len(done), strings.Join(done, ", "))
	}
}

// tuneOut is where a tune's plan goes: stdout for text and --list, else
// stderr (stdout holds the JSON or HTML result).
func tuneOut(env *Env, o *tuneOptions) io.Writer {
	if o.Output == "text" || o.List {
		return env.Stdout
	}
	return env.Stderr
}

// listJSON prints tune --list -o json.
func listJSON(env *Env, v map[string]any) error { return indentedJSON(env, v) }

// indentedJSON prints v for tune and watch -o json: json.MarshalIndent
// (which, unlike render.JSON, escapes <, > and & as \u003c …) made safe
// for a terminal by render.JSONSafe.
func indentedJSON(env *Env, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n", render.JSONSafe(b))
	return err
}

// printKnobs prints the devices and the knobs of a tune's plan and
// returns the number of values to try.
func printKnobs(w io.Writer, devs []tune.Device, knobs []tune.Knob) int {
	for _, d := range devs {
		fmt.Fprintf(w, "  device %-8s %-5s %s\n", d.Name, d.Kind, d.Via)
	}
	n := 0
	for _, k := range knobs {
		n += len(k.Values)
		ext := ""
		if k.ExtendTo > 0 {
			ext = fmt.Sprintf("; then doubles up to %d until the plateau (two values in a row without a gain)", k.ExtendTo)
		}
		fmt.Fprintf(w, "  knob %s = %s; tries %s%s\n", k.Path, k.Current, orDash(strings.Join(k.Values, ", ")), ext)
		for _, s := range k.Skipped {
			fmt.Fprintf(w, "    not tried %s\n", s)
		}
	}
	return n
}

// askTrials asks before the first trial (unless --yes); note (optional)
// is said before the question.
func askTrials(env *Env, o *tuneOptions, n int, note string) bool {
	if o.Yes {
		return true
	}
	if note != "" {
		fmt.Fprintln(env.Stdout, note)
	}
	fmt.Fprintf(env.Stdout, "\nMeasure and try these %d value(s), one at a time (each reverted unless it pays)? [y/N] ", n)
	line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(env.Stdout, "nothing tried")
		return false
	}
	return true
}

// lockTune takes the tune lock (one tune at a time, for the whole run;
// taken after the answer: a "no" leaves no state folder behind) and
// reverts what a killed tune left. reverted (optional) runs when it
// reverted any, with the trial runs that were open.
func lockTune(env *Env, aopts apply.Options, reverted func(open []apply.Manifest) error) (func(), error) {
	unlock, err := apply.TuneLock(aopts)
	if err != nil {
		return nil, err
	}
	var open []apply.Manifest
	if reverted != nil {
		open, _ = apply.OpenTrials(aopts)
	}
	done, err := tune.FinishOrphansLocked(aopts)
	if err == nil && len(done) > 0 {
		reportReverted(env, done)
		if reverted != nil {
			err = reverted(open)
		}
	}
	if err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// tuneName names every run of one tune (trials and the persisted run),
// so `undo --list` shows the tune as one entry.
func tuneName() string {
	return "tune-" + time.Now().UTC().Format("20060102T150405Z") + "-" + strconv.Itoa(os.Getpid())
}

// tuneTrials asks (unless --yes), takes the tune lock, reverts what a
// killed tune left, runs the trials and prints the result. cleanup
// (optional) runs after the trials.
func tuneTrials(ctx context.Context, env *Env, o *tuneOptions, n int, m tune.Measurer, a *tune.JournalApplier, topts tune.Options, cleanup func()) error {
	if !askTrials(env, o, n, "") {
		return nil
	}
	unlock, err := lockTune(env, a.Opts, nil)
	if err != nil {
		return err
	}
	defer unlock()
	if cleanup != nil {
		defer cleanup()
	}
	a.Opts.Tune = tuneName()
	return runTrials(ctx, env, o, m, a, topts, nil)
}

// runTrials runs the trials and prints the result (notes head its
// notes), also the trials done when the tune stopped early.
func runTrials(ctx context.Context, env *Env, o *tuneOptions, m tune.Measurer, a tune.Applier, topts tune.Options, notes []string) error {
	topts.Log = func(f string, args ...any) { fmt.Fprintf(env.Stderr, "nastune: "+f+"\n", args...) }
	res, err := tune.Run(ctx, m, a, topts)
	if res != nil && len(notes) > 0 {
		res.Notes = append(notes, res.Notes...)
	}
	if err != nil {
		if res != nil && len(res.Trials) > 0 {
			_ = emitTune(env, o.Output, res)
		}
		if errors.Is(err, tune.ErrInterrupted) || errors.Is(err, bench.ErrInterrupted) {
			return fmt.Errorf("%w", tune.ErrInterrupted)
		}
		return err
	}
	return emitTune(env, o.Output, res)
}

// pipeSignal cancels ctx on SIGPIPE. Without it Go kills the process on a
// write to a closed pipe on stdout or stderr: `nastune tune --yes 2>&1 |
// head` (or a pager quit early) died at the log line after a kept trial and
// left the trial value live. With it the write fails with EPIPE and the
// tune stops and reverts like on Ctrl-C.
func pipeSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	go func() {
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

func dirOf(file string) string {
	if i := strings.LastIndexByte(file, '/'); i > 0 {
		return file[:i]
	} else if i == 0 {
		return "/"
	}
	return "."
}

func emitTune(env *Env, format string, res *tune.Result) error {
	switch format {
	case "json":
		return indentedJSON(env, res)
	case "html":
		return tune.WriteHTML(env.Stdout, res)
	}
	tune.WriteText(env.Stdout, res)
	return nil
}
