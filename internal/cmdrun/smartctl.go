//go:build linux

package cmdrun

// smartctl only reads: -x prints every SMART log, -j as JSON (smartmontools
// ≥ 7), -n standby returns at once instead of spinning up a sleeping disk,
// -d sat asks a USB bridge smartctl does not know for SAT pass-through.
// The forms without -n are for NVMe devices, which have no such mode.
func init() {
	allowed = append(allowed,
		[]string{"smartctl", "-x", "-j", "-n", "standby", "DEV"},
		[]string{"smartctl", "-x", "-n", "standby", "DEV"},
		[]string{"smartctl", "-x", "-j", "-n", "standby", "-d", "sat", "DEV"},
		[]string{"smartctl", "-x", "-n", "standby", "-d", "sat", "DEV"},
		[]string{"smartctl", "-x", "-j", "DEV"},
		[]string{"smartctl", "-x", "DEV"},
	)
}
