//go:build !linux

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// This is safefile on the client OSes the release builds for (macOS,
// Windows), where nastune runs only its client commands (bench share,
// bench net, bench compare, calc) as the user who started it: there is
// no root writing into a folder another user controls, which is what the
// Linux version (openat2-style walking with O_PATH) guards against. Only
// WriteFile, the --save path of those commands, exists here.

// ErrUnsafe is a path safefile refuses.
var ErrUnsafe = errors.New("unsafe path")

// WriteFile replaces path with data atomically: a temporary file in the
// same directory, written, synced and renamed over path; the temporary
// file is removed on every error. A symbolic link at path is refused.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	name := filepath.Base(path)
	if name == "" || name == "." || name == ".." || strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return fmt.Errorf("%s: give a file name, not a directory", path)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s: %w: it is a symbolic link; give a new file name", path, ErrUnsafe)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+name+".nastune-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	_ = os.Chmod(tmp, perm) // Windows keeps only the read-only bit
	return os.Rename(tmp, path)
}
