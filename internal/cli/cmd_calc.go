package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/render"
)

type calcTCPOptions struct {
	Bandwidth string
	RTT       string
	RAM       string
	Output    string
}

func newCalcCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calc",
		Short: "Calculators: TCP buffers from bandwidth × RTT",
		Long:  "calc runs the arithmetic the rules use, for any numbers you give it. It reads nothing but\n/proc/meminfo (for the RAM share, unless --ram is given).\n\n" + exitHelp,
	}
	o := &calcTCPOptions{}
	tcp := &cobra.Command{
		Use:   "tcp",
		Short: "TCP buffer sizes (tcp_rmem/tcp_wmem) for a path's bandwidth and round-trip time",
		Long: "calc tcp computes the bandwidth-delay product (BDP = bandwidth × RTT) and the tcp_rmem/tcp_wmem\n" +
			"triples whose max is at least 2 × BDP, keeping the kernel defaults when they already cover it.\n\n" +
			"Units: --bandwidth in bit/s with K, M or G (decimal): 1Gbit, 100Mbit, 2.5G.\n" +
			"       --rtt with us, ms or s: 500us, 20ms, 1s.\n" +
			"       --ram " + calc.SizeHelp + ".\n\n" + exitHelp,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runCalcTCP(o, env) },
	}
	f := tcp.Flags()
	f.StringVar(&o.Bandwidth, "bandwidth", "", "link or path bandwidth, e.g. 1Gbit (required)")
	f.StringVar(&o.RTT, "rtt", "", "round-trip time, e.g. 20ms (required)")
	f.StringVar(&o.RAM, "ram", "", "memory of the machine (default: this machine's MemTotal)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	cmd.AddCommand(tcp)
	return cmd
}

func runCalcTCP(o *calcTCPOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	if o.Bandwidth == "" || o.RTT == "" {
		return usagef("e.g. nastune calc tcp --bandwidth 1Gbit --rtt 20ms", "--bandwidth and --rtt are required")
	}
	bps, err := calc.ParseBandwidth(o.Bandwidth)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--bandwidth: %w", err), Hint: "accepted: 1Gbit, 100Mbit, 2.5G, 10gbps"}
	}
	rtt, err := calc.ParseRTT(o.RTT)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--rtt: %w", err), Hint: "accepted: 500us, 0.5ms, 20ms, 1s"}
	}
	var ram uint64
	if o.RAM != "" {
		if ram, err = calc.ParseSize(o.RAM); err != nil {
			return &UsageError{Err: fmt.Errorf("--ram: %w", err), Hint: "accepted: 128MiB, 4GiB, 16GB"}
		}
	} else if b, err := hostfs.Live().ReadFile("/proc/meminfo"); err == nil {
		if m, err := kernfmt.Meminfo(b); err == nil {
			ram = m["MemTotal"]
		}
	}
	p := calc.PlanTCP(bps, rtt, ram)
	if o.Output == "json" {
		return render.JSON(env.Stdout, p)
	}
	w := env.Stdout
	fmt.Fprintf(w, "BDP       %s × %v = %d bytes\n", bandwidthText(bps), rtt.Round(time.Microsecond), p.BDPBytes)
	fmt.Fprintf(w, "need      2 × BDP = %d bytes per socket\n", p.NeedBytes)
	fmt.Fprintf(w, "tcp_rmem  %s\n", p.TCPRmem)
	fmt.Fprintf(w, "tcp_wmem  %s\n", p.TCPWmem)
	if p.RAMBytes > 0 {
		fmt.Fprintf(w, "RAM share %.3f%% of %d bytes per socket at the max\n", p.RAMShare*100, p.RAMBytes)
	}
	fmt.Fprintf(w, "\n%s\n", wrap(p.Why, 78))
	return nil
}

func bandwidthText(bps float64) string {
	switch {
	case bps >= 1e9:
		return fmt.Sprintf("%g Gbit/s", bps/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%g Mbit/s", bps/1e6)
	}
	return fmt.Sprintf("%g bit/s", bps)
}
