//go:build linux

package cmdrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// SystemPath is where tools are looked up, in this order (Debian's sudo
// secure_path). The caller's $PATH is not used: nastune runs as root, and
// a $PATH kept through `sudo -E`, or with a user's ~/bin or "." in it,
// would run whatever "ethtool" someone else put there.
var SystemPath = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// lookPath finds name (an absolute path is taken as it is) in dirs and accepts only a file that nobody but
// root (or the user running nastune) can replace: the file and every
// folder above it owned by root or by us, writable by no one else
// (group-writable only for group 0). An untrusted candidate is skipped,
// so a later trusted one is still found.
func lookPath(name string, dirs []string) (string, error) {
	switch {
	case filepath.IsAbs(name):
		return name, nil // the caller named the file itself: no search
	case strings.Contains(name, "/"):
		return "", fmt.Errorf("%s: only tool names or absolute paths are run", name)
	}
	var why error
	for _, d := range dirs {
		p := filepath.Join(d, name)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if err := trusted(real); err != nil {
			why = err
			continue
		}
		return real, nil
	}
	if why != nil {
		return "", fmt.Errorf("%s: %w (%v)", name, ErrNotInstalled, why)
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotInstalled)
}

// trusted checks p and each folder above it.
func trusted(p string) error {
	me := uint32(os.Geteuid())
	for q := p; ; q = filepath.Dir(q) {
		st, err := os.Lstat(q)
		if err != nil {
			return err
		}
		s, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: no owner information", q)
		}
		perm := st.Mode().Perm()
		switch {
		case s.Uid != 0 && s.Uid != me:
			return fmt.Errorf("%s is owned by uid %d", q, s.Uid)
		case perm&0o002 != 0:
			return fmt.Errorf("%s is writable by everyone", q)
		case perm&0o020 != 0 && s.Gid != 0:
			return fmt.Errorf("%s is writable by group %d", q, s.Gid)
		}
		if q == "/" {
			return nil
		}
	}
}

// LookPath finds a tool in SystemPath the way every command nastune runs
// is found (fio and iperf3 for bench too), never through $PATH.
func LookPath(name string) (string, error) { return lookPath(name, SystemPath) }
