// Package cli is nastune's command line: one file per command, each with an
// options struct and a plain run function that tests call without cobra.
// This file maps errors to exit codes and to the `nastune: error:` and
// `hint:` lines users see; no other place prints errors or exits.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes, documented in every command's help.
const (
	ExitOK       = 0 // completed; nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // bad flags or arguments, unreadable --root, bad input
)

const exitHelp = `Exit codes:
  0  completed, and no finding at or above --fail-on (default: never fail on findings)
  1  findings at or above --fail-on
  2  usage or input error (bad flag, missing or unreadable --root)`

// UsageError is a mistake in what the user asked for; Hint says how to fix it.
type UsageError struct {
	Err  error
	Hint string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(hint, format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), Hint: hint}
}

// errFindings reports findings at or above --fail-on; the report itself was
// already printed.
var errFindings = errors.New("findings at or above --fail-on")

// Env is what commands may use from the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// IsTTY reports whether Stdout is a terminal (colours, progress).
	IsTTY bool
}

// Main runs nastune with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	root := newRoot(&env)
	root.SetArgs(args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	return report(env.Stderr, err)
}

// StdEnv is the environment of the running process.
func StdEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		IsTTY: term.IsTerminal(int(os.Stdout.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))}
}

func report(w io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errFindings) {
		return ExitFindings
	}
	fmt.Fprintf(w, "nastune: error: %v\n", err)
	var ue *UsageError
	if errors.As(err, &ue) && ue.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", ue.Hint)
	}
	return ExitUsage
}

func newRoot(env *Env) *cobra.Command {
	opts := &auditOptions{}
	root := &cobra.Command{
		Use:   "nastune",
		Short: "Measure, explain and tune a Linux NAS or home server",
		Long: "nastune diagnoses a Linux NAS or home server read-only and explains every finding with its\n" +
			"evidence, the reason it matters and a recommendation computed from this machine's facts.\n" +
			"Run without a command it audits this machine (same as `nastune audit`).",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAudit(cmd.Context(), opts, env)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Err: err, Hint: "run `nastune --help` for the flags"}
	})
	addAuditFlags(root, opts)
	root.AddCommand(newAuditCmd(env), newSnapshotCmd(env), newReportCmd(env), newInventoryCmd(env), newPlanCmd(env), newApplyCmd(env), newUndoCmd(env),
		newBenchCmd(env), newCalcCmd(env), newRulesCmd(env), newVersionCmd(env))
	root.AddCommand(newTuneCmd(env), newConfirmCmd(env))
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitHelp + "\n")
	return root
}

// outputFormat checks -o against what a command supports.
func outputFormat(v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usagef("use -o "+strings.Join(allowed, " or -o "), "unknown output format %q", v)
}

// useColor decides on ANSI colours: --color always/never, or auto (a TTY
// and neither NO_COLOR nor TERM=dumb).
func useColor(mode string, env *Env) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return env.IsTTY && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb", nil
	}
	return false, usagef("use --color auto, always or never", "unknown --color value %q", mode)
}

// Command returns the command tree, for generators of man pages and shell
// completions (tools/gendist); it runs nothing.
func Command() *cobra.Command {
	env := StdEnv()
	return newRoot(&env)
}
