//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/snapshot"
	"github.com/nastune/nastune/internal/units"
)

func newSnapshotCmd(env *Env) *cobra.Command {
	var out, root string
	var force bool
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE.tar.gz",
		Short: "Capture everything the audit reads into one file, to audit later or elsewhere (audit --from)",
		Long: "snapshot runs the probes of an audit, read-only, and writes what they read (files, folder\n" +
			"listings, links, command output) plus the collected facts to FILE.tar.gz. `nastune audit --from\n" +
			"FILE` on any machine then yields the findings of a live audit at this moment.\n" +
			"Never captured: password databases, private keys, keytabs; password and secret values in\n" +
			"configuration files are redacted. See docs/snapshot.md.\n\n" + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("e.g. nastune snapshot -o nas1.tar.gz", "-o FILE is required")
			}
			if _, err := os.Lstat(out); err == nil && !force {
				return usagef("pick a new name or pass --force", "%s exists", out)
			}
			r, err := openRoot(root)
			if err != nil {
				return err
			}
			defer r.Close()
			rec := r.Record()
			h := probe.Collect(cmd.Context(), r)
			meta := snapshot.Meta{Version: Version, Created: time.Now().UTC().Truncate(time.Second)}
			n, m, err := snapshot.WriteFile(out, rec.Entries(), h, meta)
			if err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			fmt.Fprintf(env.Stdout, "snapshot %s: %s, %s, %d excluded, %s redacted\n", out, units.Count(m.Files, "file", "files"), units.Bytes(uint64(n)), len(m.Excluded), units.Count(m.RedactedKeys, "value", "values"))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the `FILE`.tar.gz to write")
	cmd.Flags().StringVar(&root, "root", "/", "capture a captured machine tree instead of this machine")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite FILE")
	return cmd
}

// collect gathers the facts from this machine, --root DIR or --from FILE.
// A snapshot whose facts layout matches this binary gives its stored facts
// (the live run's, including kernel-only answers); otherwise its tree is
// probed as a captured tree.
func collect(ctx context.Context, rootDir, from string) (*facts.Host, *audit.Capture, error) {
	if from != "" {
		if rootDir != "/" && rootDir != "" {
			return nil, nil, usagef("give one of them", "--from and --root exclude each other")
		}
		h, at, err := snapshotFacts(ctx, from)
		if err != nil {
			hint := "give a file written by nastune snapshot -o FILE"
			if errors.Is(err, os.ErrNotExist) {
				hint = "check the file name"
			}
			return nil, nil, &UsageError{Err: err, Hint: hint}
		}
		c := &audit.Capture{Source: "snapshot"}
		if !at.IsZero() {
			c.At = &at
		}
		return h, c, nil
	}
	r, err := openRoot(rootDir)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	// A live run reads now; a captured tree does not say when it was taken.
	c := &audit.Capture{Source: "tree"}
	if rootDir == "/" || rootDir == "" {
		now := time.Now().UTC().Truncate(time.Second)
		c = &audit.Capture{Source: "live", At: &now}
	}
	h := probe.Collect(ctx, r)
	if err := ctx.Err(); err != nil {
		return nil, nil, err // interrupted: no report from partial facts
	}
	return h, c, nil
}

// snapshotFacts loads a snapshot: its stored facts when their layout
// matches this binary, else the facts of probing its tree.
func snapshotFacts(ctx context.Context, file string) (*facts.Host, time.Time, error) {
	l, err := snapshot.Load(file)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer l.Close()
	at := l.Meta.Created.UTC()
	if l.Facts != nil {
		return l.Facts, at, nil
	}
	r, err := hostfs.Open(l.Dir)
	if err != nil {
		return nil, at, err
	}
	defer r.Close()
	h := probe.Collect(ctx, r)
	if err := ctx.Err(); err != nil {
		return nil, at, err // interrupted: no report from partial facts
	}
	return h, at, nil
}
