package cli

import "github.com/spf13/cobra"

// The Linux-only commands (platform.go lists them and why): built and
// linked only into the Linux binaries.
func init() {
	for path, mk := range map[string]func(*Env) *cobra.Command{
		"audit": newAuditCmd, "snapshot": newSnapshotCmd, "report": newReportCmd, "inventory": newInventoryCmd,
		"plan": newPlanCmd, "apply": newApplyCmd, "undo": newUndoCmd, "rules": newRulesCmd,
		"watch": newWatchCmd, "tune": newTuneCmd, "confirm": newConfirmCmd, "bench disk": newBenchDiskCmd,
	} {
		linuxCommands[path] = mk
	}
	// Run without a command, nastune audits this machine.
	linuxRoot = func(root *cobra.Command, env *Env) {
		opts := &auditOptions{}
		root.RunE = func(cmd *cobra.Command, _ []string) error { return runAudit(cmd.Context(), opts, env) }
		addAuditFlags(root, opts)
	}
}
