//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/fleet"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/render"
)

func newReportCmd(env *Env) *cobra.Command {
	var output string
	var top int
	cmd := &cobra.Command{
		Use:   "report FILE|DIR…",
		Short: "Fleet view of many hosts: audit JSON files and snapshots → hosts × families, common findings, per-host detail",
		Long: "report reads `nastune audit -o json` files and `nastune snapshot` archives (folders are searched\n" +
			"for *.json and *.tar.gz) and prints a hosts × families matrix, the findings most hosts share and\n" +
			"each host's findings. Inputs that cannot be read are listed, not fatal; with none readable the\n" +
			"exit code is 2.\n\n" + exitHelp,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputFormat(output, "text", "json", "html"); err != nil {
				return err
			}
			files, err := expandInputs(args)
			if err != nil {
				return err
			}
			var in []fleet.Input
			var errs []fleet.InputError
			for _, f := range files {
				rep, err := readAuditInput(cmd, f)
				if err != nil {
					errs = append(errs, fleet.InputError{Source: f, Error: err.Error()})
					fmt.Fprintf(env.Stderr, "nastune report: %s: %v (skipped)\n", f, err)
					continue
				}
				in = append(in, fleet.Input{Source: f, Report: rep})
			}
			if len(in) == 0 {
				return usagef("give files written by nastune audit -o json or nastune snapshot", "none of the %d inputs could be read", len(files))
			}
			r := fleet.Build(in, errs)
			switch output {
			case "json":
				return render.JSON(env.Stdout, r)
			case "html":
				return render.HTMLFleet(env.Stdout, r, render.HTMLOptions{Now: time.Now(), Version: Version})
			}
			return render.FleetText(env.Stdout, r, top)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or html")
	cmd.Flags().IntVar(&top, "top", 20, "text output: how many common findings to list (0: all)")
	return cmd
}

// expandInputs lists files, searching folders for *.json and *.tar.gz.
func expandInputs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, &UsageError{Err: err, Hint: "give audit JSON files, snapshots or folders holding them"}
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// Only regular files: a symbolic link planted in a shared report
			// folder could lead anywhere, a FIFO would hang the read.
			if d.Type().IsRegular() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".tar.gz")) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// maxAuditJSON bounds one audit JSON input: decoding costs about ten
// times its size in memory, and a real report (24 disks, every finding)
// is under 100 KiB. A 140 MB file once took 1.6 GB before it was refused.
const maxAuditJSON = 16 << 20

// readAuditInput reads one audit JSON or snapshot.
func readAuditInput(cmd *cobra.Command, file string) (*audit.Report, error) {
	f, err := hostfs.OpenRegular(file) // a FIFO must not hang the report
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		h, at, err := snapshotFacts(cmd.Context(), file)
		if err != nil {
			return nil, err
		}
		rep := audit.FromFacts(h, audit.Options{})
		rep.Captured = &audit.Capture{Source: "snapshot"}
		if !at.IsZero() {
			rep.Captured.At = &at
		}
		return rep, nil
	}
	var rep audit.Report
	lr := &io.LimitedReader{R: br, N: maxAuditJSON + 1}
	dec := json.NewDecoder(lr)
	if err := dec.Decode(&rep); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("larger than %d MiB: not the output of nastune audit -o json (a real one is well under 1 MiB)", maxAuditJSON>>20)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not JSON at byte %d: %w", se.Offset, err)
		}
		return nil, err
	}
	if rep.Schema != audit.Schema {
		return nil, fmt.Errorf("schema %q, want %q (output of nastune audit -o json)", rep.Schema, audit.Schema)
	}
	// The one redaction layer again, as for a snapshot's files: a report
	// written by an older nastune (fewer forms) or by hand may quote a
	// secret in its evidence.
	// An evidence source that is a host path ("/proc/sys/…_key",
	// "/etc/fstab:3") also gets that path's own rules.
	for i := range rep.Findings {
		for j := range rep.Findings[i].Evidence {
			ev := &rep.Findings[i].Evidence[j]
			ev.Value = hostfs.RedactString(ev.Value)
			if src := ev.Source; strings.HasPrefix(src, "/") {
				if k := strings.LastIndexByte(src, ':'); k > 0 && strings.Trim(src[k+1:], "0123456789") == "" {
					src = src[:k]
				}
				ev.Value = strings.TrimSuffix(string(hostfs.Redact(src, []byte(ev.Value))), "\n")
			}
		}
	}
	return &rep, nil
}
