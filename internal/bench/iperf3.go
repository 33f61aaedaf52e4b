package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"time"
)

// RunIperf3 measures with iperf3 against an iperf3 server (iperf3 -s).
func RunIperf3(ctx context.Context, o NetOptions) (*NetResult, error) {
	ip, err := exec.LookPath("iperf3")
	if err != nil {
		return nil, errors.New("iperf3 is not installed (Debian package iperf3); use --engine builtin")
	}
	host, port, err := net.SplitHostPort(o.Server)
	if err != nil {
		return nil, err
	}
	args := []string{"-c", host, "-p", port, "-t", strconv.Itoa(int(o.Duration.Seconds())), "-P", strconv.Itoa(o.Streams), "-J"}
	if o.Reverse {
		args = append(args, "-R")
	}
	out, err := exec.CommandContext(ctx, ip, args...).Output()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("iperf3: %w", err)
	}
	r, perr := ParseIperf3(out)
	if perr != nil {
		return nil, perr
	}
	r.Server, r.Streams, r.Reverse = o.Server, o.Streams, o.Reverse
	return r, nil
}

// ParseIperf3 reads iperf3 -J output.
func ParseIperf3(b []byte) (*NetResult, error) {
	var j struct {
		Error string `json:"error"`
		End   struct {
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
	return &NetResult{Kind: "net", Engine: "iperf3", Seconds: j.End.SumReceived.Seconds, Bytes: j.End.SumReceived.Bytes,
		BitsPerSecond: j.End.SumReceived.BitsPerSecond, Retransmits: j.End.SumSent.Retransmits,
		CPUClientPct: j.End.CPU.Host, CPUServerPct: j.End.CPU.Remote, Date: time.Now().UTC().Format(time.RFC3339)}, nil
}
