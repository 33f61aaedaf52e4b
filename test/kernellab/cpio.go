package kernellab

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// cpioEntry is one file, folder or symlink of the initramfs.
type cpioEntry struct {
	mode uint32 // type and permission bits (0o100755, 0o040755, 0o120777)
	data []byte // file contents, or the target of a symlink
}

// Tree is an initramfs in memory: guest path (no leading slash) → entry.
// Parent folders are added when written.
type Tree map[string]cpioEntry

// File adds a regular file.
func (t Tree) File(path string, perm uint32, data []byte) {
	t[strings.TrimPrefix(path, "/")] = cpioEntry{mode: 0o100000 | perm, data: data}
}

// Dir adds a folder.
func (t Tree) Dir(path string) { t[strings.TrimPrefix(path, "/")] = cpioEntry{mode: 0o040755} }

// Symlink adds a symbolic link to target.
func (t Tree) Symlink(path, target string) {
	t[strings.TrimPrefix(path, "/")] = cpioEntry{mode: 0o120777, data: []byte(target)}
}

// WriteCPIO writes the tree as a "newc" cpio archive, the format the
// kernel unpacks as initramfs (Documentation/driver-api/early-userspace/
// buffer-format.rst): a 110-byte ASCII header per entry, the name, the
// data, each padded to 4 bytes, and a TRAILER!!! entry.
func (t Tree) WriteCPIO(w io.Writer) error {
	all := map[string]cpioEntry{}
	for p, e := range t {
		all[p] = e
		for d := p; strings.Contains(d, "/"); {
			d = d[:strings.LastIndex(d, "/")]
			if _, ok := all[d]; !ok {
				if _, ok := t[d]; !ok {
					all[d] = cpioEntry{mode: 0o040755}
				}
			}
		}
	}
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.Strings(names) // parents before children
	ino := uint32(1)
	for _, n := range names {
		if err := writeEntry(w, ino, n, all[n]); err != nil {
			return err
		}
		ino++
	}
	return writeEntry(w, 0, "TRAILER!!!", cpioEntry{})
}

func writeEntry(w io.Writer, ino uint32, name string, e cpioEntry) error {
	nlink := 1
	if e.mode&0o170000 == 0o040000 {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, e.mode, 0, 0, nlink, 0, len(e.data), 0, 0, 0, 0, len(name)+1, 0)
	buf := append([]byte(hdr), name...)
	buf = append(buf, 0)
	buf = pad4(buf)
	buf = append(buf, e.data...)
	buf = pad4(buf)
	_, err := w.Write(buf)
	return err
}

func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
