package hostfs

import (
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// A Recorder notes everything a probe run reads through a Root: file
// contents as read, directory listings, the symbolic links met on the way
// and command output. `nastune snapshot` turns a recording into an archive
// that replays as a captured tree, so a snapshot holds what the audit read
// and nothing else. Recording only reads; it is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	r     *Root
	files map[string][]byte // real path → content as read
	dirs  map[string]bool   // real paths of directories
	links map[string]string // path of a symlink → its target as stored
	stubs map[string]bool   // regular files seen (listed, stat'ed) but not read
	cmds  map[string][]byte // CommandFile name → output
}

// Record makes r note every successful read in rec from now on.
func (r *Root) Record() *Recorder {
	rec := &Recorder{r: r, files: map[string][]byte{}, dirs: map[string]bool{}, links: map[string]string{},
		stubs: map[string]bool{}, cmds: map[string][]byte{}}
	r.rec = rec
	return rec
}

// Entry is one item of a recording, in archive order.
type Entry struct {
	Path   string      // absolute host path
	Mode   fs.FileMode // fs.ModeDir, fs.ModeSymlink or 0 (regular file)
	Data   []byte      // file content
	Target string      // symlink target, as stored on the host
}

// Entries returns the recording sorted by path, parents first; every
// parent directory of an entry is itself an entry.
func (rec *Recorder) Entries() []Entry {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	m := map[string]Entry{}
	var add func(e Entry)
	addParents := func(p string) {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := m[d]; ok {
				if m[d].Mode == fs.ModeDir {
					break
				}
			}
			m[d] = Entry{Path: d, Mode: fs.ModeDir}
		}
	}
	add = func(e Entry) {
		if old, ok := m[e.Path]; ok && old.Mode == fs.ModeDir && e.Mode != fs.ModeDir {
			return // a directory that also holds entries stays one
		}
		m[e.Path] = e
		addParents(e.Path)
	}
	for p := range rec.stubs {
		add(Entry{Path: p})
	}
	for p := range rec.dirs {
		add(Entry{Path: p, Mode: fs.ModeDir})
	}
	for p, t := range rec.links {
		add(Entry{Path: p, Mode: fs.ModeSymlink, Target: t})
	}
	for p, b := range rec.files {
		add(Entry{Path: p, Data: b})
	}
	for name, b := range rec.cmds {
		add(Entry{Path: name, Data: b})
	}
	// Parents added after a child was typed as a stub or a link win:
	// something below a path makes it a directory.
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		if e.Path != "/" {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// chain walks name component by component, notes every symlink on the way
// and returns the real path (as RealPath would).
func (rec *Recorder) chain(name string) string {
	p, _ := walk(name, true, false, rec.r.lstatRaw, rec.r.readlinkRaw, func(path, target string) { rec.links[path] = target })
	return p
}

func (rec *Recorder) file(name string, data []byte) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	p := rec.chain(name)
	if old, ok := rec.files[p]; ok && len(old) >= len(data) {
		return
	}
	rec.files[p] = append([]byte(nil), data...)
	delete(rec.stubs, p)
}

func (rec *Recorder) dir(name string, ents []fs.DirEntry) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	p := rec.chain(name)
	rec.dirs[p] = true
	for _, e := range ents {
		c := path.Join(p, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			if t, err := rec.r.readlinkRaw(c); err == nil {
				rec.links[c] = t
			}
		case e.IsDir():
			rec.dirs[c] = true
		case e.Type().IsRegular():
			if _, ok := rec.files[c]; !ok {
				rec.stubs[c] = true
			}
		}
	}
}

// seen notes that name exists (Stat, Lstat, RealPath).
func (rec *Recorder) seen(name string, follow bool) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var p string
	if follow {
		p = rec.chain(name)
	} else {
		p = path.Join(rec.chain(path.Dir(name)), path.Base(name))
	}
	st, err := rec.r.lstatRaw(p)
	switch {
	case err != nil:
	case st.Mode()&fs.ModeSymlink != 0:
		if t, err := rec.r.readlinkRaw(p); err == nil {
			rec.links[p] = t
		}
	case st.IsDir():
		rec.dirs[p] = true
	case st.Mode().IsRegular():
		if _, ok := rec.files[p]; !ok {
			rec.stubs[p] = true
		}
	}
}

func (rec *Recorder) command(argv []string, out []byte) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	b := append([]byte("# command: "+strings.Join(argv, " ")+"\n"), out...)
	rec.cmds[CommandFile(argv...)] = b
}
