//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/render"
)

type inventoryOptions struct {
	Root   string
	From   string
	Output string
}

func newInventoryCmd(env *Env) *cobra.Command {
	o := &inventoryOptions{}
	cmd := &cobra.Command{
		Use:   "inventory",
		Short: "Tables of what the machine has: interfaces (net), disks, arrays, pools and filesystems (disks), shares, exports and VPNs (services)",
		Long: "inventory prints the tables admins write scripts for, read-only, from this machine or a\ncaptured tree (--root). " +
			"Without a subcommand it prints all of them (net, disks, paths, services).\n\n" + exitHelp,
		Args: unknownSubcommand, // "inventory nett": did you mean net?
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventory(cmd.Context(), o, env, func(h *facts.Host) any { return inventory.AllTables(h) },
				func(w io.Writer, v any) error { return render.AllTables(w, v.(inventory.All)) })
		},
	}
	cmd.PersistentFlags().StringVar(&o.Root, "root", "/", "read a captured machine tree instead of this machine")
	cmd.PersistentFlags().StringVar(&o.From, "from", "", "read a snapshot written by nastune snapshot -o FILE")
	cmd.PersistentFlags().StringVarP(&o.Output, "output", "o", "text", "output format: text, json or html")
	cmd.AddCommand(&cobra.Command{
		Use:   "disks",
		Short: "Disks (model, serial, by-id, sectors, bus, USB link, scheduler, partitions and alignment), md arrays, ZFS pools, filesystems",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventory(cmd.Context(), o, env, func(h *facts.Host) any { return inventory.DiskTable(h) },
				func(w io.Writer, v any) error { return render.DiskTables(w, v.(inventory.Disks)) })
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "services",
		Short: "Samba shares with their key options, NFS exports, OpenVPN instances",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventory(cmd.Context(), o, env, func(h *facts.Host) any { return inventory.ServiceTable(h) },
				func(w io.Writer, v any) error { return render.ServiceTables(w, v.(inventory.Services)) })
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "paths",
		Short: "Data paths (arrays, disks, NICs) with the MB/s each link allows, the ceiling and the narrowest link",
		Long: "paths models each md array and disk through its SATA or USB link and its controller's PCIe links,\n" +
			"and each wired NIC as TCP payload, with the usable-throughput factors of docs/ceilings.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventory(cmd.Context(), o, env, func(h *facts.Host) any { return inventory.PathTable(h) },
				func(w io.Writer, v any) error { return render.PathTable(w, v.(inventory.Paths)) })
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "net",
		Short: "One row per network interface: state, speed, MTU, addresses, driver, offloads, rings, bonds",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInventory(cmd.Context(), o, env, func(h *facts.Host) any { return inventory.NetTable(h) },
				func(w io.Writer, v any) error { return render.NetTable(w, v.(inventory.Net)) })
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

// runInventory probes the root and prints one table as text or JSON.
func runInventory(ctx context.Context, o *inventoryOptions, env *Env, build func(*facts.Host) any, text func(io.Writer, any) error) error {
	if err := outputFormat(o.Output, "text", "json", "html"); err != nil {
		return err
	}
	h, _, err := collect(ctx, o.Root, o.From)
	if err != nil {
		return err
	}
	t := build(h)
	switch o.Output {
	case "json":
		err = render.JSON(env.Stdout, t)
	case "html":
		err = render.HTMLTables(env.Stdout, "nastune inventory: "+h.Hostname, "kernel "+h.Kernel.Release, t, render.HTMLOptions{Now: time.Now(), Version: Version})
	default:
		err = text(env.Stdout, t)
	}
	if err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}
