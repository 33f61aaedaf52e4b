package cli

import (
	"context"
	"os"
	"strings"
	"testing"
)

// Bad flags are refused before anything is measured or written; without a
// terminal and without --yes tune refuses like apply.
func TestTuneRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, "--file is required"},
		{[]string{"tune", "--file", "/srv/x", "--tests", "seqread-buffered,nope"}, `unknown test "nope"`},
		{[]string{"tune", "--file", "/srv/x", "--bs", "6000"}, "multiple of 4K"},
		{[]string{"tune", "--file", "/srv/x", "--budget", "1s"}, "outside 10s-24h"},
		{[]string{"tune", "--file", "/srv/x", "-o", "prom"}, "unknown output format"},
	} {
		_, errs, code := run(ctx, nil, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}
	if os.Geteuid() == 0 {
		_, errs, code := run(ctx, nil, "tune", "--file", "/srv/x")
		if code != ExitUsage || !strings.Contains(errs, "not a terminal and no --yes") {
			t.Errorf("no TTY, no --yes: exit %d, %q", code, errs)
		}
	}
}
