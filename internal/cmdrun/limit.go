//go:build linux

package cmdrun

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// LimitArg is the hidden first argument of the nastune binary's
// re-execution: "nastune __nastune-limit MEM CPU PATH ARGS..." sets the
// limits on itself and execs PATH with ARGS.
const LimitArg = "__nastune-limit"

// addressSlack is what RLIMIT_AS allows beyond the memory limit: shared
// libraries and file mappings count as address space (testparm maps 66 MB
// before it reads a line), while RLIMIT_DATA bounds what a tool allocates.
const addressSlack = 512 << 20

var selfLimit atomic.Bool

// HandleLimitMode must be the first call in main. In the re-execution
// (os.Args[1] == LimitArg) it sets the limits and execs the tool, never
// returning; otherwise it records that this binary can contain the tools
// it starts and returns.
func HandleLimitMode() {
	if len(os.Args) > 1 && os.Args[1] == LimitArg {
		os.Exit(limitMain(os.Args[2:]))
	}
	selfLimit.Store(true)
}

// selfPath is the binary to re-execute, or "" when this binary has no
// HandleLimitMode (tests) and prlimit(2) is used instead.
func selfPath() string {
	if !selfLimit.Load() {
		return ""
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe" // works even when the file was replaced
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// limitMain is the re-executed side: args are MEM CPU PATH ARGS...
func limitMain(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "nastune: internal: usage: "+LimitArg+" MEM CPU PATH [ARGS]")
		return 127
	}
	mem, err1 := strconv.ParseUint(args[0], 10, 64)
	cpu, err2 := strconv.ParseUint(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "nastune: internal: bad limits", args[0], args[1])
		return 127
	}
	if err := setLimits(0, mem, cpu); err != nil {
		fmt.Fprintln(os.Stderr, "nastune: setting limits:", err)
		return 127
	}
	err := unix.Exec(args[2], args[2:], os.Environ())
	fmt.Fprintf(os.Stderr, "nastune: exec %s: %v\n", args[2], err)
	return 127
}

// setLimits sets the memory, CPU and core limits of pid (0: this process).
func setLimits(pid int, mem, cpu uint64) error {
	for _, l := range []struct {
		res      int
		cur, max uint64
	}{
		{unix.RLIMIT_DATA, mem, mem},
		{unix.RLIMIT_AS, mem + addressSlack, mem + addressSlack},
		{unix.RLIMIT_CPU, cpu, cpu + 1},
		{unix.RLIMIT_CORE, 0, 0},
	} {
		rl := unix.Rlimit{Cur: l.cur, Max: l.max}
		if err := unix.Prlimit(pid, l.res, &rl, nil); err != nil {
			return fmt.Errorf("resource %d: %w", l.res, err)
		}
	}
	return nil
}
