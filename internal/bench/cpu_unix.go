//go:build unix

package bench

import "golang.org/x/sys/unix"

// processCPU is the CPU time (user and system, in seconds) this process
// used so far.
func processCPU() float64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t unix.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
