// Command nastune measures, explains and tunes a Linux NAS or home server.
// See the README and `nastune --help`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/nastune/nastune/internal/cli"
	"github.com/nastune/nastune/internal/cmdrun"
	_ "github.com/nastune/nastune/internal/startup" // a cheap start: grows the main stack first (see its doc)
)

func main() {
	cmdrun.HandleLimitMode() // the re-execution that runs a tool under limits
	os.Exit(run())
}

// run runs the command line. The first SIGINT or SIGTERM cancels the
// context: probes, commands and benchmarks stop, clean up and nastune
// exits with 128+signal (130 for ^C), unless the command ended normally
// on it (a bench server stops with ^C and exits 0). A second one kills at
// once: the default action is restored after the first.
func run() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	got := make(chan syscall.Signal, 1)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(os.Stderr, "nastune: %v: stopping (send it again to kill)\n", s)
		got <- s.(syscall.Signal)
		cancel(cli.SignalCause{Sig: s.(syscall.Signal)})
	}()
	code := cli.Main(ctx, os.Args[1:], cli.StdEnv())
	select {
	case s := <-got:
		if code == cli.ExitOK {
			return code // the command's normal end on a signal (bench net -s)
		}
		return 128 + int(s)
	default:
		return code
	}
}
