package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
)

type inventoryOptions struct {
	Root   string
	Output string
}

func newInventoryCmd(env *Env) *cobra.Command {
	o := &inventoryOptions{}
	cmd := &cobra.Command{
		Use:   "inventory",
		Short: "Tables of what the machine has: interfaces (net), disks, arrays, pools and filesystems (disks)",
		Long:  "inventory prints the tables admins write scripts for, read-only, from this machine or a\ncaptured tree (--root).\n\n" + exitHelp,
	}
	cmd.PersistentFlags().StringVar(&o.Root, "root", "/", "read a captured machine tree instead of this machine")
	cmd.PersistentFlags().StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	cmd.AddCommand(&cobra.Command{
		Use:   "disks",
		Short: "Disks (model, serial, by-id, sectors, bus, USB link, scheduler, partitions and alignment), md arrays, ZFS pools, filesystems",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventoryDisks(cmd.Context(), o, env)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "net",
		Short: "One row per network interface: state, speed, MTU, addresses, driver, offloads, rings, bonds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventoryNet(cmd.Context(), o, env)
		},
	})
	return cmd
}

// openRoot opens --root with the errors and hints every command shares.
func openRoot(dir string) (*hostfs.Root, error) {
	root, err := hostfs.Open(dir)
	if err != nil {
		return nil, &UsageError{Err: err, Hint: "--root takes a folder laid out like / (proc/, sys/, etc/); see docs/snapshot.md"}
	}
	if !root.IsLive() {
		_, err1 := root.Stat("/proc")
		_, err2 := root.Stat("/sys")
		if err1 != nil && err2 != nil {
			root.Close()
			return nil, usagef("--root must contain the captured proc/ and sys/ folders", "host root %s has neither proc/ nor sys/", dir)
		}
	}
	return root, nil
}

func runInventoryNet(ctx context.Context, o *inventoryOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	root, err := openRoot(o.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	t := inventory.NetTable(probe.Collect(ctx, root))
	if o.Output == "json" {
		err = render.JSON(env.Stdout, t)
	} else {
		err = render.NetTable(env.Stdout, t)
	}
	if err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}

func runInventoryDisks(ctx context.Context, o *inventoryOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	root, err := openRoot(o.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	t := inventory.DiskTable(probe.Collect(ctx, root))
	if o.Output == "json" {
		err = render.JSON(env.Stdout, t)
	} else {
		err = render.DiskTables(env.Stdout, t)
	}
	if err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}
