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
	Line int // 1-based; 0 when the problem is not on one line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *Error) Unwrap() error { return ErrSyntax }

// Line returns an *Error for line n with a formatted message.
func Line(n int, format string, args ...any) error {
	return &Error{Line: n, Msg: fmt.Sprintf(format, args...)}
}
