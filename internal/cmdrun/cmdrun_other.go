//go:build !linux

package cmdrun

import "fmt"

// On the client OSes the release builds for (macOS, Windows) nastune runs
// no external tool: its client commands (bench share, bench net, bench
// compare, calc) are pure Go. LookPath says so to a caller that asks.

// LookPath finds no tool outside Linux.
func LookPath(name string) (string, error) {
	return "", fmt.Errorf("%s: nastune runs external tools only on Linux", name)
}

// HandleLimitMode does nothing: the re-execution under limits is Linux's.
func HandleLimitMode() {}
