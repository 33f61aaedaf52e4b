package perr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{Line(3, "bad %q", "x"), `line 3: bad "x"`},
		{Line(0, "no processor entries found"), "line 0: no processor entries found"},
		{Input("not smartctl output: %s", "empty"), "not smartctl output: empty"},
		{fmt.Errorf("/proc/swaps: %w", Line(2, "short")), "/proc/swaps: line 2: short"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
		if !errors.Is(c.err, ErrSyntax) {
			t.Errorf("%v does not wrap ErrSyntax", c.err)
		}
		var pe *Error
		if errors.As(c.err, &pe) == strings.HasPrefix(c.want, "not smartctl") {
			t.Errorf("%v: *Error %v", c.err, pe)
		}
	}
}
