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
		// The folders of name, deepest first, up to one already known:
		// its own folders were checked when it was, and stay folders (a
		// later entry of a folder's name must be a folder). Folders no
		// entry names count against MaxEntries too: unpacking makes them.
		for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
			d := name[:i]
			t, ok := seen[d]
			if !ok {
				seen[d] = implicitDir
				continue
			}
			switch t {
			case tar.TypeSymlink:
				return nil, errf(hdr.Name, "lies below the symbolic link %q", d)
			case tar.TypeReg:
				return nil, errf(hdr.Name, "lies below the file %q", d)
			}
			break
		}
		if len(seen) >= MaxEntries {
			return nil, fmt.Errorf("more than %d files, folders and links: refused", MaxEntries)
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
			// A target is content too: following the links together
			// (escapes) takes a step per component.
			if total += int64(len(hdr.Linkname)); total > MaxTotalBytes {
				return nil, errTooMuch
			}
			if err := root.in(name, func(d *os.Root, base string) error { return d.Symlink(hdr.Linkname, base) }); err != nil {
				return nil, errf(hdr.Name, "%v", err)
			}
			links[name] = hdr.Linkname
		case tar.TypeReg:
			if hdr.Size < 0 || hdr.Size > MaxFileBytes {
				return nil, errf(hdr.Name, "%d bytes: files above %d bytes are refused", hdr.Size, MaxFileBytes)
			}
			if total += hdr.Size; total > MaxTotalBytes {
				return nil, errTooMuch
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
	if name, via, bad := escapes(links); bad {
		return nil, errf(name, "link to %q leaves the snapshot (through the link %q)", links[name], via)
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
		if n := jsonContainers(factsJSON); n > MaxFactsValues {
			return nil, fmt.Errorf("%s: more than %d objects and arrays: refused (a memory bomb?)", FactsFile, MaxFactsValues)
		}
		var h facts.Host
		if err := json.Unmarshal(factsJSON, &h); err != nil {
			return nil, fmt.Errorf("%s: %w", FactsFile, err)
		}
		l.Facts = &h
	}
	return l, nil
}

// MaxFactsValues bounds the objects and arrays of a stored facts.json. Each
// "{}" of 2 bytes decodes into a struct of up to ~700 bytes (a
// facts.BlockDevice is 488): 4 MiB of them made 2.3 GiB of disks. A live
// audit's facts hold some 200; 32768 decode into at most ~25 MiB.
const MaxFactsValues = 1 << 15

// jsonContainers counts the objects and arrays of a JSON text: the '{'
// and '[' outside strings.
func jsonContainers(b []byte) int {
	n, in, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == '{' || c == '['):
			n++
		}
	}
	return n
}

// MaxStreamBytes bounds the whole decompressed archive: file content
// (MaxTotalBytes) plus, per entry, a header, a pax header with its
// records (nastune writes mtime with sub-second precision) and padding.
const MaxStreamBytes = MaxTotalBytes + MaxEntries*2048

var errTooMuch = fmt.Errorf("more than %d MiB of content: refused (a decompression bomb?)", MaxTotalBytes>>20)

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
	case len(name) >= MaxPathBytes:
		return "", errf(raw[:64]+"…", "a name of %d bytes: the most a path may have is %d", len(name), MaxPathBytes-1)
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
		switch {
		case c == "..":
			return "", errf(raw, `".." is refused`)
		case len(c) > MaxNameBytes:
			return "", errf(raw, "a component of %d bytes: the most a file name may have is %d", len(c), MaxNameBytes)
		}
	}
	return name, nil
}

// What a path of the tree may hold, as Linux allows (PATH_MAX with its
// NUL, NAME_MAX): a longer one cannot be unpacked or read, and every
// check of a name or a link target is linear in these.
const (
	MaxPathBytes = 4096
	MaxNameBytes = 255
)

// linkGraph follows the archive's links together, as the kernel resolves
// them, to find one that leads out of the tree. Each link is resolved
// once (memo) and a path is a node with a parent, so a ".." or a link
// followed costs one step whatever the depth: the check is linear in the
// links' names and targets, however they are nested.
type linkGraph struct {
	parent []int32            // of each node; node 0 is the top
	child  map[childKey]int32 // the links and the folders that hold them
	name   map[int32]string   // a link's name
	target map[int32]string   // a link's target
	memo   map[int32]linkEnd  // where a link leads, once resolved
}

type childKey struct {
	parent int32
	name   string
}

// linkEnd is where a walk ends: extra components (not in the graph: no
// link below them) below node, or out of the tree through via, or in a
// loop (no file: hostfs reports it when read).
type linkEnd struct {
	node  int32
	extra int
	state uint8
	via   string
}

const (
	walkDone uint8 = iota
	walkBusy       // being resolved: meeting it again is a loop
	walkOut
	walkLoop
)

func newLinkGraph(links map[string]string) *linkGraph {
	g := &linkGraph{parent: []int32{-1}, child: map[childKey]int32{}, name: map[int32]string{},
		target: map[int32]string{}, memo: map[int32]linkEnd{}}
	for name, t := range links {
		n := int32(0)
		for c := range strings.SplitSeq(name, "/") {
			k := childKey{n, c}
			id, ok := g.child[k]
			if !ok {
				id = int32(len(g.parent))
				g.parent = append(g.parent, n)
				g.child[k] = id
			}
			n = id
		}
		g.name[n], g.target[n] = name, t
	}
	return g
}

// escapes reports the first link, by name, that leads out of the tree,
// and the last link followed before it left. Loops and missing targets
// are no escape (hostfs reports them when read).
func escapes(links map[string]string) (name, via string, bad bool) {
	g := newLinkGraph(links)
	for _, name := range slices.Sorted(maps.Keys(links)) {
		if e := g.resolve(g.lookup(name)); e.state == walkOut {
			return name, e.via, true
		}
	}
	return "", "", false
}

// lookup is the node of a link's name.
func (g *linkGraph) lookup(name string) int32 {
	n := int32(0)
	for c := range strings.SplitSeq(name, "/") {
		n = g.child[childKey{n, c}]
	}
	return n
}

// resolve is where link node n leads.
func (g *linkGraph) resolve(n int32) linkEnd {
	if e, ok := g.memo[n]; ok {
		if e.state == walkBusy {
			return linkEnd{state: walkLoop}
		}
		return e
	}
	g.memo[n] = linkEnd{state: walkBusy}
	e := g.walk(g.parent[n], g.target[n], g.name[n])
	g.memo[n] = e
	return e
}

// walk follows target from node n, via being the last link followed.
func (g *linkGraph) walk(n int32, target, via string) linkEnd {
	extra := 0
	for c := range strings.SplitSeq(target, "/") {
		switch {
		case c == "" || c == ".":
		case c == ".." && extra > 0:
			extra--
		case c == "..":
			if n == 0 {
				return linkEnd{state: walkOut, via: via}
			}
			n = g.parent[n]
		case extra > 0:
			extra++
		default:
			id, ok := g.child[childKey{n, c}]
			if !ok {
				extra = 1
				continue
			}
			if _, link := g.target[id]; !link {
				n = id
				continue
			}
			e := g.resolve(id)
			switch e.state {
			case walkOut, walkLoop:
				return e
			}
			n, extra, via = e.node, e.extra, g.name[id]
		}
	}
	return linkEnd{node: n, extra: extra, state: walkDone}
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
	case len(target) >= MaxPathBytes:
		return fmt.Errorf("a link target of %d bytes: the most a path may have is %d", len(target), MaxPathBytes-1)
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
