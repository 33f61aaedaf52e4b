//go:build linux

package cli

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/watch"
)

type watchOptions struct {
	For, Interval, Output string
}

func newWatchCmd(env *Env) *cobra.Command {
	o := &watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch [--for 30s] [--interval 1s] [-o text|json|jsonl|html]",
		Short: "Name the bottleneck of a transfer while it runs (CPU thread, disk, network, memory)",
		Long: "watch samples this machine every interval while a transfer runs and names what limits it,\n" +
			"most binding first: a thread at 100% of one core, a disk busy all the time, a link or shaper\n" +
			"at its rate, memory reclaim. It reads /proc, /sys and netlink only, needs no root, and costs\n" +
			"well under 1% of one core. On a terminal it shows a live screen; Ctrl-C prints the summary.\n" +
			"--for and --interval take durations (30s, 2m) or bare numbers of seconds. -o jsonl streams one\n" +
			"JSON object per sample as it is taken, then one with the verdict (docs/json.md). See docs/watch.md.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWatch(cmd.Context(), o, env) },
	}
	f := cmd.Flags()
	f.StringVar(&o.For, "for", "0", "how long to watch (0: until Ctrl-C)")
	f.StringVar(&o.Interval, "interval", "1s", "time between samples")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json, jsonl (one line per sample, streamed) or html")
	return cmd
}

func runWatch(ctx context.Context, o *watchOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "jsonl", "html"); err != nil {
		return err
	}
	dur, err := durationFlag("for", o.For)
	if err != nil {
		return err
	}
	iv, err := durationIn("interval", o.Interval, 100*time.Millisecond, time.Hour, "0.1s-1h", "1s")
	if err != nil {
		return err
	}
	if dur != 0 && dur < iv {
		return usagef("watch for at least one interval", "--for %v is shorter than --interval %v", dur, iv)
	}
	watchMemoryLimit(env.Getenv)
	// The path model (PCIe, SATA, USB links, arrays) lets watch tell a disk
	// at its link's ceiling from one that is merely busy; the probe's
	// kernel-log mapper ties the errors the kernel logs to disks.
	root := hostfs.Live()
	h := probe.Collect(ctx, root)
	opts := watch.Options{Interval: iv, For: dur, Ceilings: watch.CeilingsFrom(ceiling.Paths(h)), KernelLogDisks: probe.KernelLogDisks(h)}
	// The live screen: our own home-and-clear goes raw, the screen's text
	// (thread and device names) passes render.Clean, in one write.
	raw := render.RawWriter(env.Stdout)
	if env.IsTTY && o.Output == "text" {
		opts.OnSample = func(s watch.Sample, v []watch.Bottleneck) {
			var b strings.Builder
			watch.WriteLive(&b, s, v)
			fmt.Fprint(raw, "\x1b[H\x1b[2J"+render.Clean(b.String()))
		}
	}
	var lineErr error
	if o.Output == "jsonl" {
		// One line per sample, written as it is taken: a reader (the
		// Cockpit page) charts it live. A write error (the reader went
		// away) is returned after the watch.
		opts.OnSample = func(s watch.Sample, v []watch.Bottleneck) {
			if lineErr == nil {
				lineErr = writeJSONLine(env, func() ([]byte, error) { return watch.SampleLine(s, v) })
			}
		}
	}
	res, err := watch.Run(ctx, root, opts)
	if err != nil {
		return err
	}
	if env.IsTTY && o.Output == "text" {
		fmt.Fprint(raw, "\x1b[H\x1b[2J")
	}
	switch o.Output {
	case "jsonl":
		if lineErr != nil {
			return lineErr
		}
		return writeJSONLine(env, func() ([]byte, error) { return watch.EndLine(res) })
	case "json":
		return indentedJSON(env, res)
	case "html":
		return watch.WriteHTML(env.Stdout, res)
	default:
		watch.WriteText(env.Stdout, res)
	}
	return nil
}

// watchMemoryLimit gives the Go runtime a soft memory limit of 8 MiB
// (unless GOMEMLIMIT is set): watch runs beside a transfer on boxes with
// 128 MiB. Without it the start-up probe and the samples left a heap that
// the default GOGC=100 let grow to a max RSS of 16.5-19 MiB on the
// development VM, above the documented goal of 15 MiB; with it 13.3-13.5
// MiB at 0.3-0.4% of one core per sample.
func watchMemoryLimit(getenv func(string) string) {
	if getenv != nil && getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(8 << 20)
}

// writeJSONLine writes one line of watch -o jsonl, its strings made safe
// for a terminal like every JSON nastune prints.
func writeJSONLine(env *Env, line func() ([]byte, error)) error {
	b, err := line()
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(render.JSONSafe(b), '\n'))
	return err
}
