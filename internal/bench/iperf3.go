//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
)

// Iperf3ServerHint is what to start on the other machine for --engine
// iperf3 (nastune's own server speaks another protocol).
func Iperf3ServerHint(server string) string {
	host, port, err := net.SplitHostPort(WithPort(server))
	if err != nil {
		host, port = server, DefaultPort
	}
	return fmt.Sprintf("start `iperf3 -s -p %s` on %s (Debian package iperf3); nastune's own server (nastune bench net -s) speaks another protocol", port, host)
}

// RunIperf3 measures with iperf3 against an iperf3 server (iperf3 -s),
// --repeat times, with a time limit. iperf3 before 3.17 writes its JSON
// only at the end: the per-second intervals are then reported afterwards.
func RunIperf3(ctx context.Context, o NetOptions) (*NetResult, error) {
	ip, err := cmdrun.LookPath("iperf3") // never through $PATH: nastune runs as root
	if err != nil {
		return nil, errors.New("iperf3 is not installed (Debian package iperf3); use --engine builtin")
	}
	return repeatNet(ctx, o, func(ctx context.Context, o NetOptions, run int) (*NetResult, error) {
		host, port, err := net.SplitHostPort(WithPort(o.Server))
		if err != nil {
			return nil, err
		}
		secs := int(o.Duration.Seconds())
		args := []string{"-c", host, "-p", port, "-t", strconv.Itoa(secs), "-P", strconv.Itoa(o.Streams), "-J",
			"-i", strconv.FormatFloat(max(o.Interval, time.Second).Seconds(), 'f', -1, 64), "--connect-timeout", "5000"}
		if o.Reverse {
			args = append(args, "-R")
		}
		cctx, cancel := context.WithTimeout(ctx, o.Duration+30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, ip, args...)
		cmd.WaitDelay = 5 * time.Second
		var out limitedBuffer
		cmd.Stdout = &out
		stop := tickProgress(200*time.Millisecond, o.Duration, o.Progress)
		err = cmd.Run()
		// An iperf3 server takes a moment after a test before it takes
		// the next: back-to-back --repeat runs retry a few times.
		for try := 0; try < 5 && ctx.Err() == nil && strings.Contains(string(out.b), "server is busy"); try++ {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
			out.b = nil
			cmd = exec.CommandContext(cctx, ip, args...)
			cmd.WaitDelay, cmd.Stdout = 5*time.Second, &out
			err = cmd.Run()
		}
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil && len(out.b) == 0 {
			return nil, fmt.Errorf("iperf3: %w; %s", err, Iperf3ServerHint(o.Server))
		}
		r, perr := ParseIperf3(out.b)
		if perr != nil {
			if strings.Contains(perr.Error(), "unable to") || strings.Contains(perr.Error(), "control") {
				return nil, fmt.Errorf("%w; %s", perr, Iperf3ServerHint(o.Server))
			}
			return nil, perr
		}
		r.Server, r.Streams, r.Reverse = WithPort(o.Server), o.Streams, o.Reverse
		if o.OnInterval != nil {
			for _, iv := range r.Intervals {
				o.OnInterval(run, iv)
			}
		}
		return r, nil
	})
}

// ParseIperf3 reads iperf3 -J output.
func ParseIperf3(b []byte) (*NetResult, error) {
	var j struct {
		Error     string `json:"error"`
		Intervals []struct {
			Sum struct {
				Start       float64 `json:"start"`
				End         float64 `json:"end"`
				Bytes       int64   `json:"bytes"`
				Bits        float64 `json:"bits_per_second"`
				Retransmits int64   `json:"retransmits"`
			} `json:"sum"`
		} `json:"intervals"`
		End struct {
			SumSent struct {
				Bytes       int64   `json:"bytes"`
				Seconds     float64 `json:"seconds"`
				Retransmits int64   `json:"retransmits"`
			} `json:"sum_sent"`
			SumReceived struct {
				Bytes         int64   `json:"bytes"`
				Seconds       float64 `json:"seconds"`
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
			CPU struct {
				Host   float64 `json:"host_total"`
				Remote float64 `json:"remote_total"`
			} `json:"cpu_utilization_percent"`
		} `json:"end"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("iperf3 output: %w", err)
	}
	if j.Error != "" {
		return nil, fmt.Errorf("iperf3: %s", j.Error)
	}
	r := &NetResult{Kind: "net", Engine: "iperf3", Seconds: j.End.SumReceived.Seconds, Bytes: j.End.SumReceived.Bytes,
		BitsPerSecond: j.End.SumReceived.BitsPerSecond, Retransmits: j.End.SumSent.Retransmits,
		CPUClientPct: j.End.CPU.Host, CPUServerPct: j.End.CPU.Remote, Date: time.Now().UTC().Format(time.RFC3339)}
	for _, iv := range j.Intervals {
		r.Intervals = append(r.Intervals, Interval{Start: iv.Sum.Start, End: iv.Sum.End, Bytes: iv.Sum.Bytes, BitsPerSecond: iv.Sum.Bits, Retransmits: iv.Sum.Retransmits})
	}
	return r, nil
}
