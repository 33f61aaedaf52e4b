// Command nastune measures, explains and tunes a Linux NAS or home server.
// See the README and `nastune --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nastune/nastune/internal/cli"
)

func main() { os.Exit(run()) }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Main(ctx, os.Args[1:], cli.StdEnv())
}
