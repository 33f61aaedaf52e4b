package hostfs

// Read returns what the recording holds for name, as a probe would name it
// (symlinks on the way resolved as the reads were): the content of a file
// read, or the output of a command under its CommandFile name. ok is false
// when name was not read in full.
func (rec *Recorder) Read(name string) (data []byte, ok bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if b, ok := rec.cmds[name]; ok {
		return b, true
	}
	b, ok := rec.files[rec.chain(name)]
	return b, ok
}

// Seen reports whether the run touched name at all: read it, listed it,
// stat'ed it or followed it as a link.
func (rec *Recorder) Seen(name string) bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if _, ok := rec.cmds[name]; ok {
		return true
	}
	p := rec.chain(name)
	_, f := rec.files[p]
	_, l := rec.links[p]
	return f || l || rec.dirs[p] || rec.stubs[p]
}
