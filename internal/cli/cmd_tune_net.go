//go:build linux

package cli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/netns"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rules"
	"github.com/nastune/nastune/internal/tune"
	"github.com/nastune/nastune/internal/units"
)

// runTuneNet is `tune --net HOST[:PORT]`: measure the path to a bench net
// server, size the socket buffer maxima from its BDP, trial them.
func runTuneNet(ctx context.Context, o *tuneOptions, env *Env) error {
	if o.List && o.Output == "html" {
		return usagef("use -o text or -o json with --list", "--list prints text or json, not html")
	}
	if o.Tests != "seqread-buffered" || len(o.Devices) > 0 || o.Knobs != "" {
		return usagef("nastune tune --net HOST [--time 3] [--rate MBIT] [--budget 10m]", "--tests, --device and --knobs are for --file; --net measures a stream each way")
	}
	dur, err := durationIn("time", o.Time, time.Second, bench.MaxSeconds*time.Second, "1s-60s", "3")
	if err != nil {
		return err
	}
	if o.Rate < 0 || o.Rate > 400000 || math.IsNaN(o.Rate) {
		return usagef("e.g. --rate 1000 for a gigabit link", "--rate %v is outside 0-400000 Mbit/s", o.Rate)
	}
	aopts := apply.Options{}
	ctx, budget, stop, err := tuneStart(ctx, o, env, tuneKind{cmd: "tune --net", yes: "run `nastune tune --net HOST --yes`",
		writes: "tune writes /proc/sys and /etc/sysctl.d (in the initial network namespace only)", revertFirst: &aopts})
	if err != nil {
		return err
	}
	defer stop()
	token := o.Token
	if token == "" {
		token = env.Getenv(tokenEnv)
	}
	server := bench.WithPort(o.Net)
	nopts := bench.NetOptions{Server: server, Token: token, OnWait: func(n int) {
		fmt.Fprintf(env.Stderr, "nastune: the server is busy; waiting for a turn (%d ahead)\n", n)
	}}
	w := tuneOut(env, o)

	h := probe.Collect(ctx, hostfs.Live())
	_, nsWhy := netns.Self()
	env2 := tune.LiveNetEnv(func(path string) (string, error) { return apply.ReadValue(aopts, path) }, rules.KnobEnv(h), h.Memory.TotalBytes)

	// The path: RTT from TCP connects, one stream each way with the
	// buffers as found, and one each way that asks for a large buffer
	// itself (the probe: the tcp_*mem maxima do not cap its window).
	p := tune.NetPath{Server: server, RTTProbes: 5, HintBPS: o.Rate * 1e6}
	p.WmemMax, p.RmemMax = env2.Max("net.ipv4.tcp_wmem"), env2.Max("net.ipv4.tcp_rmem")
	if p.RTT, err = tune.ConnectRTT(ctx, server, p.RTTProbes); err != nil {
		return fmt.Errorf("measuring the round trip to %s: %w (is `nastune bench net -s` running there?)", server, err)
	}
	first, err := tune.NetMeasurer(nopts, dur)(ctx)
	if err != nil {
		return fmt.Errorf("measuring a stream to %s: %w", server, err)
	}
	p.SendBPS, p.ReceiveBPS = first["send"]*1e6, first["receive"]*1e6
	tune.Probe(ctx, &p, nopts, dur, tune.ProbeBuf(h.Memory.TotalBytes))
	if ctx.Err() != nil {
		return bench.ErrInterrupted
	}
	tune.SizePath(&p)
	knobs := tune.NetKnobs(p, env2)
	if o.List && o.Output == "json" {
		return listJSON(env, map[string]any{"path": p, "knobs": knobs})
	}
	fmt.Fprintf(w, "tune --net %s: streams of %s each way, budget %s\n", server, dur, budget)
	fmt.Fprintf(w, "  path: RTT %.1f ms (fastest of %d TCP connects); one stream as found sends %s (tcp_wmem max %s), receives %s (tcp_rmem max %s)\n",
		float64(p.RTT.Microseconds())/1000, p.RTTProbes, units.BitRate(p.SendBPS), bufSize(p.WmemMax), units.BitRate(p.ReceiveBPS), bufSize(p.RmemMax))
	if p.ProbeError != "" {
		// The error may quote the server's refusal: a peer's text.
		fmt.Fprintf(w, "  probe with a buffer of its own: failed (%s); sized by the streams as found\n", render.CleanLine(p.ProbeError))
	} else {
		fmt.Fprintf(w, "  probe, a stream that sets its own buffer (as iperf3 -w; net.core.*mem_max caps it, tcp_*mem does not): sends %s (SO_SNDBUF %s), receives %s (SO_RCVBUF %s)\n",
			units.BitRate(p.ProbeSendBPS), bufSize(p.ProbeSendBuf), units.BitRate(p.ProbeReceiveBPS), bufSize(p.ProbeReceiveBuf))
	}
	fmt.Fprintf(w, "  sized for %s (%s): BDP %s, a stream needs 2 × BDP = %s of buffer\n",
		units.BitRate(p.SizedBPS), p.SizedBy, units.Bytes(p.BDP), units.Bytes(p.Need))
	if p.Floor {
		fmt.Fprintln(w, "  the fastest stream measured was window-limited (rate × RTT reached 80% of the window its buffer allows): the path may be faster, so the ladder goes on doubling until the gain stops (give the link's rate with --rate MBIT to size from it)")
	}
	fmt.Fprintln(w, "  each ladder is tried smallest first, each value from the one found; a value gains when it beats the one found and the last value below it that gained beyond the noise band;")
	fmt.Fprintln(w, "  the last that gained is kept, and two values in a row that do not gain are the plateau: the larger ones are not tried")
	switch env2.NetNS {
	case netns.Other:
		fmt.Fprintln(w, "  this is not the initial network namespace: tcp_rmem/tcp_wmem are this namespace's own; net.core.*mem_max are the host's and read-only here;")
		fmt.Fprintln(w, "  a value kept stays runtime only (/etc/sysctl.d would set the host's at boot, not this namespace's)")
	case netns.Unknown:
		fmt.Fprintf(w, "  whether this is the initial network namespace is unknown (%s): a value kept stays runtime only\n", nsWhy)
		fmt.Fprintln(w, "  (/etc/sysctl.d is applied to the host's initial namespace at boot, which may not be this one)")
	}
	n := 0
	for _, k := range knobs {
		n += len(k.Values)
		why := ""
		if k.Why != "" {
			why = " (" + k.Why + ")"
		}
		fmt.Fprintf(w, "  knob %s = %s; tries %s%s\n", k.Attr, orDash(k.Current), orDash(strings.Join(k.Values, ", ")), why)
		for _, s := range k.Skipped {
			fmt.Fprintf(w, "    not tried %s\n", s)
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "nothing to try: each buffer maximum already covers 2 × BDP at this rate, or cannot be set here (see above); nothing changed")
		fmt.Fprintln(w, "(a link faster than a stream measured here: give its rate with --rate MBIT)")
		return nil
	}
	if o.List {
		return nil
	}
	m := tune.NetMeasurer(nopts, dur)
	a := &tune.JournalApplier{Opts: aopts, Host: h, NetNS: env2.NetNS}
	return tuneTrials(ctx, env, o, n, m, a, tune.Options{Tests: tune.NetTests, Units: map[string]string{"send": units.MbitUnit, "receive": units.MbitUnit},
		Knobs: knobs, Budget: budget}, nil)
}

// bufSize is a buffer size for the path lines ("?" when unknown).
func bufSize(n int64) string {
	if n <= 0 {
		return "?"
	}
	return units.Bytes(uint64(n))
}
