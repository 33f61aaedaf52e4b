// Package kernfmt parses the text formats the Linux kernel writes in /proc
// and /sys: meminfo, cpuinfo, mounts, swaps, softnet_stat, the bracketed
// choice lists of sysfs (queue/scheduler) and the kernel release string.
//
// Every function is pure: it takes the bytes or a reader and returns data,
// never touching the system. Errors wrap ErrSyntax and name the line, so a
// caller can say "line 3 of /proc/swaps: …" to the user.
//
// Why not prometheus/procfs: procfs reads its files by host path, which
// would step around the confined reader of a --root tree or a snapshot, and
// it picks its cpuinfo parser by the GOARCH it was built for, so an ARM
// capture audited on an x86 laptop would be misread. These formats are small
// and stable; each parser here is table-tested against real captures,
// malformed inputs and a fuzz target.
package kernfmt

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("syntax error")

// LineError names the line a parse error was found on.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *LineError) Unwrap() error { return ErrSyntax }

func lineErr(line int, format string, args ...any) error {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...)}
}
