//go:build linux

package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/plan"
)

// safePreview is apply.Preview for `plan` (text and -o diff), reading what
// is there now through hostfs (apply.Options.ReadFile): in a --root tree
// links resolve inside the tree as chroot(2) would, so an absolute link
// (etc/samba/smb.conf -> /etc/shadow) never prints a file of this host;
// only regular files are read (a FIFO is an error, not a hang); files
// nastune never reads are refused; and what is read is redacted like
// every other output. The new content is redacted too. apply itself keeps
// its own walker for what it writes.
func safePreview(p plan.Plan, rootDir string) ([]apply.ValueChange, []apply.FileChange, error) {
	root, err := openRoot(rootDir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	vals, files, err := apply.Preview(p, apply.Options{Root: rootDir, ReadFile: previewReader(root, rootDir)})
	if err != nil {
		return nil, nil, err
	}
	for i, v := range vals {
		vals[i].From = hostfs.RedactString(v.From)
	}
	for i, f := range files {
		real := f.Path
		if rp, err := root.RealPath(f.Path); err == nil {
			real = rp
		}
		files[i].New = hostfs.Redact(real, f.New)
	}
	return vals, files, nil
}

// previewReader reads a path of the plan through hostfs. A path missing
// in a tree while the host finds a file at DIR/path is a symbolic link
// leading out of the tree: refused, as the diff would call an existing
// file new.
func previewReader(root *hostfs.Root, rootDir string) func(string) ([]byte, error) {
	hint := "remove or replace it in the tree; nastune reads --root trees as chroot(2) would"
	return func(path string) ([]byte, error) {
		b, err := root.ReadFile(path)
		switch {
		case err == nil:
			return b, nil
		case errors.Is(err, fs.ErrNotExist):
			if !root.IsLive() {
				if _, herr := os.Stat(filepath.Join(rootDir, path)); herr == nil {
					return nil, usagef(hint, "%s in %s: a symbolic link leads outside the tree; refused", path, rootDir)
				}
			}
			return nil, err
		case errors.Is(err, hostfs.ErrNeverRead), errors.Is(err, hostfs.ErrNotRegular), errors.Is(err, hostfs.ErrTooLarge):
			if root.IsLive() {
				return nil, usagef("nastune plans only files it may read", "%v; refused", err)
			}
			return nil, usagef(hint, "%s in %s: %v; refused", path, rootDir, err)
		}
		return nil, err
	}
}
