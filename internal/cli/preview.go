package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/plan"
)

// safePreview is apply.Preview for `plan -o diff`, held to what hostfs
// reads. apply.Preview opens Root+path with the host's path resolution:
// in a --root tree an absolute symbolic link (etc/samba/smb.conf ->
// /etc/shadow) would print a file of this host, and a FIFO would hang it.
// So every path the preview reads is first checked through hostfs (links
// resolved inside the tree): it must be absent or a regular file that
// nastune may read, and the host must resolve it to the same file. After
// the preview, what it read must equal what hostfs reads, and what is
// printed is redacted like every other output.
func safePreview(p plan.Plan, rootDir string) ([]apply.ValueChange, []apply.FileChange, error) {
	root, err := openRoot(rootDir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	for _, path := range previewPaths(p) {
		if err := checkPreviewPath(root, rootDir, path); err != nil {
			return nil, nil, err
		}
	}
	vals, files, err := apply.Preview(p, apply.Options{Root: rootDir})
	if err != nil {
		return nil, nil, err
	}
	for i, v := range vals {
		s, err := root.ReadString(v.Path)
		if err != nil || (v.From != "" && !strings.Contains(strings.Join(strings.Fields(s), " "), v.From)) {
			return nil, nil, previewChanged(v.Path)
		}
		vals[i].From = hostfs.RedactString(v.From)
	}
	for i, f := range files {
		real := f.Path
		if rp, err := root.RealPath(f.Path); err == nil {
			real = rp
		}
		b, err := root.ReadFile(f.Path)
		switch {
		case f.OldExisted && (err != nil || !bytes.Equal(b, hostfs.Redact(real, f.Old))):
			return nil, nil, previewChanged(f.Path)
		case !f.OldExisted && err == nil:
			return nil, nil, previewChanged(f.Path)
		}
		files[i].Old = b
		files[i].New = hostfs.Redact(real, f.New)
	}
	return vals, files, nil
}

// previewPaths are the paths apply.Preview reads for p.
func previewPaths(p plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Runtime != "" {
			out = append(out, c.Runtime)
		}
		if c.Persist != nil && c.Persist.File != "" {
			out = append(out, c.Persist.File)
		}
	}
	return out
}

func previewChanged(path string) error {
	return usagef("run it again on a tree that nobody changes meanwhile",
		"%s: the file changed or differs from what nastune reads in the tree while the diff was made; refused", path)
}

// checkPreviewPath refuses a path that apply.Preview would read unsafely.
func checkPreviewPath(root *hostfs.Root, rootDir, path string) error {
	hint := "remove or replace it in the tree; nastune reads --root trees as chroot(2) would"
	st, err := root.Stat(path)
	hostPath := filepath.Join(rootDir, path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return usagef(hint, "%s: %v", path, err)
		}
		// Absent in the tree: the host must not find a file there either
		// (a link whose target exists only outside the tree).
		if _, herr := os.Stat(hostPath); herr == nil {
			return usagef(hint, "%s in %s: a symbolic link leads outside the tree; refused", path, rootDir)
		}
		return nil
	}
	if !st.Mode().IsRegular() {
		return usagef(hint, "%s in %s: %v; refused", path, rootDir, fmt.Errorf("%w (mode %v)", hostfs.ErrNotRegular, st.Mode().Type()))
	}
	real, err := root.RealPath(path)
	if err != nil {
		return usagef(hint, "%s: %v", path, err)
	}
	if hostfs.NeverRead(real) {
		return usagef(hint, "%s resolves to %s: %v; refused", path, real, hostfs.ErrNeverRead)
	}
	if root.IsLive() {
		return nil
	}
	base, err := filepath.EvalSymlinks(rootDir)
	if err != nil {
		return usagef(hint, "%s: %v", rootDir, err)
	}
	got, err := filepath.EvalSymlinks(hostPath)
	if err != nil || got != filepath.Join(base, real) {
		return usagef(hint, "%s in %s: a symbolic link leads outside the tree (the host resolves it to %s); refused", path, rootDir, got)
	}
	return nil
}
