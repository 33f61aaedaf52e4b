// Package perr is the one syntax error of the parsers under internal/parse.
//
// Every parse error wraps ErrSyntax, so a caller asks errors.Is(err,
// perr.ErrSyntax) whichever parser failed, and most are an *Error naming
// the line of the input the problem was found on. The caller adds the file
// (a probe records the host path beside the error), so the user reads
// "/etc/sysctl.conf: line 8: …".
package perr

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every parse error of internal/parse.
var ErrSyntax = errors.New("syntax error")

// Error is a problem on one line of the input.
type Error struct {
	Line int // 1-based
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *Error) Unwrap() error { return ErrSyntax }

// Line returns an *Error for line n with a formatted message.
func Line(n int, format string, args ...any) error {
	return &Error{Line: n, Msg: fmt.Sprintf(format, args...)}
}

// inputError is a problem with the input as a whole, on no one line.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return ErrSyntax }

// Input returns an error about the input as a whole ("not smartctl
// output: …"), which wraps ErrSyntax and names no line.
func Input(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}
