package bench

import "golang.org/x/sys/windows"

// processCPU is the CPU time (user and kernel, in seconds) this process
// used so far.
func processCPU() float64 {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	ft := func(f windows.Filetime) float64 {
		return float64(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) / 1e7
	}
	return ft(kernel) + ft(user)
}
