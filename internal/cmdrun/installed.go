package cmdrun

import "os/exec"

// Installed reports whether name is on the PATH Run uses.
func Installed(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
