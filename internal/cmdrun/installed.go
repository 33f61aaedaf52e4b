//go:build linux

package cmdrun

// Installed reports whether Run would find name: in SystemPath, as a file
// nobody but root can replace (LookPath), never through the caller's $PATH.
func Installed(name string) bool {
	_, err := LookPath(name)
	return err == nil
}
