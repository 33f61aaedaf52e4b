package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// argsUsage wraps a cobra argument check so that a wrong number of
// arguments is a usage error that shows the command's usage line, as
// flag errors point to --help, instead of cobra's bare "requires at least
// 1 arg(s), only received 0".
func argsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &UsageError{Err: err, Hint: fmt.Sprintf("usage: %s (run `%s --help`)", cmd.UseLine(), cmd.CommandPath())}
		}
		return nil
	}
}

// noArgs is cobra.NoArgs for a command that takes its inputs as flags,
// with argsUsage's hint: cobra's own calls a stray argument an unknown
// command ('unknown command "x/f" for "nastune bench disk"'), which reads
// as a mistyped subcommand on a command that has none, when the user
// meant --file x/f.
var noArgs = argsUsage(func(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments (got %q)", cmd.CommandPath(), args[0])
	}
	return nil
})
