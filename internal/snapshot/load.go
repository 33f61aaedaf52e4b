package snapshot

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
)

// Loaded is a checked snapshot. Close removes its private folder, if any.
type Loaded struct {
	// Dir is the captured tree, for hostfs.Open; "" when Load did not
	// unpack it (the stored Facts are used instead).
	Dir  string
	Meta Meta
	// Facts are the facts of the live run when their layout matches this
	// binary; nil means: probe Dir as a captured tree instead.
	Facts *facts.Host
}

// Close removes the unpacked tree.
func (l *Loaded) Close() error {
	if l.Dir == "" {
		return nil
	}
	return os.RemoveAll(l.Dir)
}

// Load checks the whole snapshot at file and returns its metadata and,
// when their layout matches this binary, its stored facts; the tree is
// then not needed and nothing is written. Only without usable facts is
// the tree unpacked, checked again as it is written, into a new private
// temporary folder (Dir). On any error nothing is left behind.
//
// Writing the tree is what --from used to spend its time on (creating
// and removing some 800 files and folders, ~0.5 s on a busy ext4 /tmp,
// against ~5 ms to decompress and check the archive).
func Load(file string) (*Loaded, error) {
	f, err := hostfs.OpenRegular(file) // a FIFO given as a snapshot must not hang
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := read(f, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if l.Facts != nil {
		return l, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dir, err := os.MkdirTemp("", "nastune-snapshot-")
	if err != nil {
		return nil, err
	}
	l, err = unpack(f, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return l, nil
}

// unpack reads a snapshot from r into the empty folder dir. Every write
// goes through an os.Root of dir, so even a bug here cannot reach outside.
func unpack(r io.Reader, dir string) (*Loaded, error) {
	top, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	root := &folders{top: top}
	defer root.close()
	l, err := read(r, root)
	if err != nil {
		return nil, err
	}
	l.Dir = dir
	return l, nil
}

// implicitDir marks in read's seen map a folder no entry named but an
// entry's path created (unpack makes it): a later folder entry of that
// name is accepted, a file or link is not (unpack could not write it).
const implicitDir byte = 0xff

// read reads and checks a snapshot from r, writing its tree through root
// when root is not nil. Checked or written, the same archives are
// refused with the same errors.
func read(r io.Reader, root *folders) (*Loaded, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return nil, ErrNotSnapshot
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSnapshot, err)
	}
	zr.Multistream(false)
	// Every decompressed byte counts, headers too: pax and GNU long-name
	// headers, and the data of entries tar.Reader skips, never reach the
	// per-file checks below.
	cr := &countReader{r: zr, max: MaxStreamBytes}
	tr := tar.NewReader(cr)
	seen := map[string]byte{} // clean name → type
	links := map[string]string{}
	var total int64
	var meta, factsJSON []byte
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if cr.over {
			return nil, errBomb
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive: %w", err)
		}
		if n >= MaxEntries {
			return nil, fmt.Errorf("more than %d entries: refused", MaxEntries)
		}
		name, err := checkName(hdr.Name)
		if err != nil {
			return nil, err
		}
		if t, dup := seen[name]; dup {
			switch {
			case t != implicitDir:
				return nil, errf(hdr.Name, "appears twice")
			case hdr.Typeflag != tar.TypeDir:
				return nil, errf(hdr.Name, "is the folder of an earlier entry")
			}
		}
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			t, ok := seen[d]
			switch {
			case !ok:
				seen[d] = implicitDir
			case t == tar.TypeSymlink:
				return nil, errf(hdr.Name, "lies below the symbolic link %q", d)
			case t == tar.TypeReg:
				return nil, errf(hdr.Name, "lies below the file %q", d)
			}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if _, err := root.dir(name); err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
		case tar.TypeSymlink:
			if err := checkLink(name, hdr.Linkname); err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
			if err := root.in(name, func(d *os.Root, base string) error { return d.Symlink(hdr.Linkname, base) }); err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
			links[name] = hdr.Linkname
		case tar.TypeReg:
			if hdr.Size < 0 || hdr.Size > MaxFileBytes {
				return nil, errf(hdr.Name, "%d bytes: files above %d bytes are refused", hdr.Size, MaxFileBytes)
			}
			total += hdr.Size
			if total > MaxTotalBytes {
				return nil, fmt.Errorf("more than %d MiB of content: refused (a decompression bomb?)", MaxTotalBytes>>20)
			}
			// Only what is written or kept is held; the rest is counted.
			var data []byte
			var got int64
			if keep := "/" + name; root != nil || keep == MetaFile || keep == FactsFile {
				data, err = io.ReadAll(io.LimitReader(tr, hdr.Size+1))
				got = int64(len(data))
			} else {
				got, err = io.Copy(io.Discard, io.LimitReader(tr, hdr.Size+1))
			}
			if cr.over {
				return nil, errBomb
			}
			if err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
			if got != hdr.Size {
				return nil, errf(hdr.Name, "size mismatch")
			}
			switch "/" + name {
			case MetaFile:
				meta = data
			case FactsFile:
				factsJSON = data
			}
			if err := root.in(name, func(d *os.Root, base string) error { return d.WriteFile(base, data, 0o644) }); err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
		default:
			return nil, errf(hdr.Name, "type %q refused: only files, folders and symbolic links", string(hdr.Typeflag))
		}
		seen[name] = hdr.Typeflag
	}
	// Each link was checked alone; followed together, as the kernel
	// would, one can lead through another out of the tree ("up" -> "..",
	// "esc" -> "up/.."). None may.
	for _, name := range slices.Sorted(maps.Keys(links)) {
		if via, bad := escapes(links, name); bad {
			return nil, errf(name, "link to %q leaves the snapshot (through the link %q)", links[name], via)
		}
	}
	if meta == nil {
		return nil, fmt.Errorf("%w: no %s", ErrNotSnapshot, MetaFile)
	}
	l := &Loaded{}
	if err := json.Unmarshal(meta, &l.Meta); err != nil {
		return nil, fmt.Errorf("%s: %w", MetaFile, err)
	}
	if l.Meta.Format != Format {
		return nil, fmt.Errorf("%s: format %d, this nastune reads format %d", MetaFile, l.Meta.Format, Format)
	}
	if factsJSON != nil && l.Meta.FactsLayout == FactsLayout() {
		var h facts.Host
		if err := json.Unmarshal(factsJSON, &h); err != nil {
			return nil, fmt.Errorf("%s: %w", FactsFile, err)
		}
		l.Facts = &h
	}
	return l, nil
}

// MaxStreamBytes bounds the whole decompressed archive: file content
// (MaxTotalBytes) plus, per entry, a header, a pax header with its
// records (nastune writes mtime with sub-second precision) and padding.
const MaxStreamBytes = MaxTotalBytes + MaxEntries*2048

var errBomb = fmt.Errorf("more than %d MiB decompressed: refused (a decompression bomb?)", MaxStreamBytes>>20)

// countReader counts every byte read and fails past max.
type countReader struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (c *countReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		c.over = true
		return 0, errBomb
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// checkName accepts relative, clean names without "..".
func checkName(raw string) (string, error) {
	name := strings.TrimSuffix(raw, "/")
	switch {
	case name == "" || name == ".":
		return "", errf(raw, "empty name")
	case strings.HasPrefix(name, "/"):
		return "", errf(raw, "absolute names are refused")
	case strings.ContainsRune(name, 0) || strings.Contains(name, "\\"):
		return "", errf(raw, "invalid characters")
	case path.Clean(name) != name:
		return "", errf(raw, "not a clean path")
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return "", errf(raw, `".." is refused`)
		}
	}
	return name, nil
}

// escapes follows the link name through every link of the archive, as
// the kernel resolves it from name's folder, and reports whether a ".."
// climbs above the tree, with the last link followed before. Loops and
// missing targets are no escape (hostfs reports them when read).
func escapes(links map[string]string, name string) (via string, bad bool) {
	var stack []string // resolved components: real folders of the tree
	if d := path.Dir(name); d != "." {
		stack = strings.Split(d, "/")
	}
	todo := strings.Split(links[name], "/")
	via = name
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return via, true
			}
			stack = stack[:len(stack)-1]
			continue
		}
		cand := strings.Join(append(append([]string(nil), stack...), c), "/")
		if t, ok := links[cand]; ok {
			if hops++; hops > 40 {
				return "", false
			}
			via = cand
			todo = append(strings.Split(t, "/"), todo...)
			continue
		}
		stack = append(stack, c)
	}
	return "", false
}

// checkLink accepts relative targets that stay inside the tree.
func checkLink(name, target string) error {
	switch {
	case target == "":
		return errors.New("empty link target")
	case strings.HasPrefix(target, "/"):
		return fmt.Errorf("link to absolute path %q refused", target)
	case strings.ContainsRune(target, 0):
		return errors.New("invalid link target")
	}
	joined := path.Join(path.Dir(name), target)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return fmt.Errorf("link to %q leaves the snapshot", target)
	}
	return nil
}

// folders holds open the chain of folders of the last entry written, each
// an os.Root opened inside its parent, so writing an archive sorted by path
// (as nastune writes them) opens each folder once instead of walking from
// the top for every entry. The chain is as long as a path is deep. A nil
// *folders writes nothing (read only checks the archive).
type folders struct {
	top   *os.Root
	names []string   // components of the held folder
	roots []*os.Root // roots[i] is the folder names[:i+1]
}

// dir returns the folder name ("." is the tree), created with its
// parents when missing.
func (f *folders) dir(name string) (*os.Root, error) {
	if f == nil { // read only checks
		return nil, nil
	}
	var comps []string
	if name != "." {
		comps = strings.Split(name, "/")
	}
	k := 0
	for k < len(comps) && k < len(f.names) && comps[k] == f.names[k] {
		k++
	}
	for _, r := range f.roots[k:] {
		r.Close()
	}
	f.names, f.roots = f.names[:k], f.roots[:k]
	for _, c := range comps[k:] {
		parent := f.top
		if len(f.roots) > 0 {
			parent = f.roots[len(f.roots)-1]
		}
		if err := parent.Mkdir(c, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		r, err := parent.OpenRoot(c)
		if err != nil {
			return nil, err
		}
		f.names, f.roots = append(f.names, c), append(f.roots, r)
	}
	if len(f.roots) == 0 {
		return f.top, nil
	}
	return f.roots[len(f.roots)-1], nil
}

// in runs op on the folder of name (created when missing) and name's last
// component.
func (f *folders) in(name string, op func(d *os.Root, base string) error) error {
	if f == nil { // read only checks
		return nil
	}
	d, err := f.dir(path.Dir(name))
	if err != nil {
		return err
	}
	return op(d, path.Base(name))
}

func (f *folders) close() {
	for _, r := range f.roots {
		r.Close()
	}
	f.top.Close()
}
