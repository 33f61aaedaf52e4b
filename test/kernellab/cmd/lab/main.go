// Command lab boots the kernellab guest with a shell on the console (make
// lab): the same kernel, initramfs and disks as the tests, for debugging a
// scenario by hand. /lab/scenarios.sh runs them all; poweroff -f leaves.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nastune/nastune/test/kernellab"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		os.Exit(1)
	}
}

func run() error {
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "nastune-lab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ctx := context.Background()
	k, initrd, err := kernellab.Prepare(ctx, repo, work)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "lab: booting %s %s (disks in %s; Ctrl-A X quits qemu)\n", k.Package, k.Version, work)
	return kernellab.Boot(ctx, kernellab.BootOptions{
		Kernel: k, Initramfs: initrd, Disks: kernellab.LabDisks(filepath.Clean(work)),
		Append: "lab.shell", Console: os.Stdout, Stdin: os.Stdin,
	})
}
