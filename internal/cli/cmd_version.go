package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set by the linker: -X github.com/nastune/nastune/internal/cli.Version=… (see Makefile).
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and build date",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			fmt.Fprintln(env.Stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what `nastune version` and `nastune --version` print.
func versionLine() string {
	commit, date := Commit, Date
	if bi, ok := debug.ReadBuildInfo(); ok && commit == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				date = s.Value
			}
		}
	}
	return fmt.Sprintf("nastune %s commit %s built %s %s/%s %s", Version, orDash(commit), orDash(date),
		runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
