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
