package cmdrun

// Installed reports whether Run would find name: in SystemPath, trusted
// (LookPath), never through the caller's $PATH, so "installed" and what
// Run executes cannot disagree.
func Installed(name string) bool {
	_, err := LookPath(name)
	return err == nil
}
