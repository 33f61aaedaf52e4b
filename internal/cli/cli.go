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
	"runtime"
	"strings"
	"syscall"

	"github.com/nastune/nastune/internal/render"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Exit codes, documented in every command's help.
const (
	ExitOK       = 0 // completed; nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // bad flags or arguments, unreadable --root, bad input
	ExitFailed   = 3 // a change failed; apply rolled back what it had changed
	// ExitInterrupted: stopped by SIGINT (cmd/nastune exits 128+signal).
	ExitInterrupted = 130
)

const exitHelp = `Exit codes:
    0  completed, and no finding at or above --fail-on (default: never fail on findings)
    1  findings at or above --fail-on
    2  usage or input error (bad flag, missing or unreadable --root)
    3  a change failed: apply rolled back what it had changed (the error says which step)
  130  interrupted by SIGINT (143: SIGTERM); a second signal kills at once`

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

// interruptedError is a run a signal stopped after part of its work was
// printed (bench's finished tests): "nastune: interrupted: …" and the
// exit code of the signal (130, 143 for SIGTERM, 129 for SIGHUP), as for
// any other interrupted command.
type interruptedError struct {
	msg string
	sig syscall.Signal // 0: SIGINT, or cmd/nastune knows the signal
}

func (e *interruptedError) Error() string { return "interrupted: " + e.msg }

// Is makes it a context.Canceled for callers that check for that.
func (e *interruptedError) Is(target error) bool { return target == context.Canceled }

func (e *interruptedError) code() int {
	if e.sig != 0 {
		return 128 + int(e.sig)
	}
	return ExitInterrupted
}

// SignalCause is the cause (context.Cause) of a context a signal
// cancelled: cmd/nastune sets it for SIGINT and SIGTERM, bench for SIGHUP,
// so a command can say which signal stopped it.
type SignalCause struct{ Sig syscall.Signal }

func (c SignalCause) Error() string { return "stopped by " + c.Sig.String() }

// failedError is a run that failed doing what was asked (a write the
// kernel refused, a config that did not validate) after apply rolled back
// its earlier steps: exit 3, not the usage error's 2.
type failedError struct{ Err error }

func (e *failedError) Error() string { return e.Err.Error() }
func (e *failedError) Unwrap() error { return e.Err }

// errStopped: a server (bench net -s) ended by Ctrl-C, its normal end. It
// printed its one-line note; nastune exits 0.
var errStopped = errors.New("stopped")

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
	// complete is set by a command once its facts are complete and it
	// checked for an interruption: a signal after that point (while the
	// report is written) does not turn a finished run into a partial one.
	complete bool
}

// Main runs nastune with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, env Env) int {
	return mainFor(ctx, args, env, runtime.GOOS)
}

// mainFor is Main with the command tree of goos (platform.go): tests run
// the macOS and Windows trees on Linux.
func mainFor(ctx context.Context, args []string, env Env, goos string) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	// Host data (hostnames, config lines, file and process names, a peer's
	// reply, a stranger's snapshot) may hold terminal control sequences:
	// none reach the terminal raw, on stdout or on stderr (errors quote
	// paths and file contents). See render.TermSafe and docs/security.md.
	var safe []*render.TermSafe
	if env.Stdout != nil {
		t := render.NewTermSafe(env.Stdout)
		env.Stdout, safe = t, append(safe, t)
	}
	if env.Stderr != nil {
		t := render.NewTermSafe(env.Stderr)
		env.Stderr, safe = t, append(safe, t)
	}
	root := newRootOnly(&env, goos, commandWord(args, goos))
	root.SetArgs(args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil && ctx.Err() != nil && !env.complete {
		err = ctx.Err() // what was printed is partial
	}
	code := report(env.Stderr, err)
	for _, t := range safe {
		t.Flush()
	}
	return code
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
	if errors.Is(err, errStopped) {
		return ExitOK // a server stopped by its signal: it said so itself
	}
	var ie *interruptedError
	if errors.As(err, &ie) {
		fmt.Fprintf(w, "nastune: %v\n", err)
		return ie.code()
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(w, "nastune: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintf(w, "nastune: error: %v\n", err)
	if fe := (*failedError)(nil); errors.As(err, &fe) {
		return ExitFailed
	}
	var ue *UsageError
	if errors.As(err, &ue) && ue.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", ue.Hint)
	}
	return ExitUsage
}

func newRoot(env *Env) *cobra.Command { return newRootFor(env, runtime.GOOS) }

// newRootFor builds the command tree nastune offers on goos (platform.go):
// every command on Linux; on macOS and Windows the client commands, and
// the Linux-only ones as stubs that say so.
func newRootFor(env *Env, goos string) *cobra.Command { return newRootOnly(env, goos, "") }

// newRootOnly is newRootFor with, when only is a command's first word
// ("audit", "bench"), that command alone below the root: a run of one
// command does not build the 40 others with their flags (900 allocations,
// 0.3 ms here, 15 ms of an audit under ARMv5 emulation). Help of the
// root, completion and mistyped commands get the whole tree (commandWord).
func newRootOnly(env *Env, goos, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "nastune",
		Short: "Measure, explain and tune a Linux NAS or home server",
		Long: "nastune diagnoses a Linux NAS or home server read-only and explains every finding with its\n" +
			"evidence, the reason it matters and a recommendation computed from this machine's facts.\n" +
			"Run without a command it audits this machine (same as `nastune audit`).",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownSubcommand,
		Version:       Version,
	}
	root.SetVersionTemplate("{{versionLine}}\n")
	cobra.AddTemplateFunc("versionLine", versionLine)
	root.SetFlagErrorFunc(flagError)
	// -V as fio, iperf3 -v being taken by --verbose.
	root.Flags().BoolP("version", "V", false, "print the version and exit")
	addCommands(root, env, goos, only)
	setupExamples(root)
	setupHelp(root)
	if only == "" {
		setupCompletion(root) // completion asks the root (__complete): the whole tree
	}
	return root
}

// outputFormat checks -o against what a command supports.
func outputFormat(v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	hint := "use -o " + strings.Join(allowed, " or -o ")
	for _, a := range allowed {
		if strings.EqualFold(a, v) {
			hint = "did you mean `-o " + a + "`? " + hint
		}
	}
	return usagef(hint, "unknown output format %q", v)
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

// flagError points to the help of the command that was run (not the
// root's) and, for a misspelt flag, to the closest flags it takes.
func flagError(cmd *cobra.Command, err error) error {
	path := cmd.CommandPath()
	if !cmd.HasParent() {
		path += " audit" // the root takes audit's flags; its help lists commands
	}
	hint := fmt.Sprintf("run `%s --help` for the flags", path)
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		add := func(f *pflag.Flag) { names = append(names, f.Name) }
		cmd.Flags().VisitAll(add)
		cmd.InheritedFlags().VisitAll(add)
		if c := closest(name, names, 3); len(c) > 0 {
			for i := range c {
				c[i] = "`--" + c[i] + "`"
			}
			hint = fmt.Sprintf("did you mean %s? %s", strings.Join(c, " or "), hint)
		}
	}
	return &UsageError{Err: err, Hint: hint}
}
