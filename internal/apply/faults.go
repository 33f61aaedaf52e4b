//go:build nastune_faults

package apply

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fault injection, compiled only with `-tags nastune_faults` (make test
// builds the binaries its crash tests run that way; release builds never
// contain it): NASTUNE_CRASH_AT=STAGE[#N] kills the process with SIGKILL
// the N-th time (default 1) it reaches the crash point STAGE (Options.at:
// journaled, before-step, after-step, complete, armed, confirm, revert,
// reverted, undo-start, undo-journaled, restore, undo-restored).
func init() {
	spec := os.Getenv("NASTUNE_CRASH_AT")
	if spec == "" {
		return
	}
	stage, nth, n := spec, 1, 0
	if s, k, ok := strings.Cut(spec, "#"); ok {
		stage = s
		if v, err := strconv.Atoi(k); err == nil && v > 0 {
			nth = v
		}
	}
	crashPoint = func(s string) {
		if s != stage {
			return
		}
		if n++; n == nth {
			fmt.Fprintf(os.Stderr, "nastune: fault injection: killed at %s\n", spec)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Hour) // the signal is on its way
		}
	}
}
