// Command hostfixture packs a captured machine tree into the txtar form
// kept under testdata/hosts, and unpacks one for a look or a manual audit:
//
//	go run ./tools/hostfixture unpack testdata/hosts/kirkwood-nas.txtar /tmp/kirkwood
//	go run ./bin/nastune audit --root /tmp/kirkwood
//	go run ./tools/hostfixture pack /tmp/captured "comment describing the host" > testdata/hosts/new.txtar
package main

import (
	"fmt"
	"os"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/nastune/nastune/internal/fixture"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hostfixture:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 3 {
		return fmt.Errorf("usage: hostfixture unpack ARCHIVE DIR | hostfixture pack DIR COMMENT")
	}
	switch args[0] {
	case "unpack":
		if err := os.MkdirAll(args[2], 0o755); err != nil {
			return err
		}
		return fixture.UnpackFile(args[1], args[2])
	case "pack":
		a, err := fixture.Pack(args[1], args[2]+"\n")
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(txtar.Format(a))
		return err
	}
	return fmt.Errorf("unknown verb %q (want unpack or pack)", args[0])
}
