package pathwalk

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"testing"
)

// mapCursor walks a tree given as path → entry: "dir", "file", or
// "link:TARGET" (owned by linkUID).
type mapCursor struct {
	tree    map[string]string
	linkUID uint32
	done    []string
}

func (m *mapCursor) Real(c string) string {
	return "/" + path.Join(append(append([]string{}, m.done...), c)...)
}

func (m *mapCursor) Look(c string) (Node, error) {
	e, ok := m.tree[m.Real(c)]
	if !ok {
		return Node{}, &fs.PathError{Op: "open", Path: m.Real(c), Err: fs.ErrNotExist}
	}
	if t, ok := strings.CutPrefix(e, "link:"); ok {
		return Node{Link: true, Target: t, LinkUID: m.linkUID, ParentUID: 0}, nil
	}
	return Node{}, nil
}

func (m *mapCursor) Enter(c string) error {
	if m.tree[m.Real(c)] == "file" {
		return errors.New(m.Real(c) + ": not a folder")
	}
	m.done = append(m.done, c)
	return nil
}

func (m *mapCursor) Up() error {
	if len(m.done) > 0 {
		m.done = m.done[:len(m.done)-1]
	}
	return nil
}

func (m *mapCursor) Restart() error { m.done = nil; return nil }

func TestWalk(t *testing.T) {
	tree := map[string]string{
		"/etc": "dir", "/etc/samba": "dir", "/etc/samba/smb.conf": "file",
		"/conf":  "link:/etc/samba",   // absolute: starts again at the root
		"/up":    "link:../../../etc", // ".." stops at the root
		"/loop":  "link:/loop",        // follows itself
		"/final": "link:etc/samba/smb.conf",
	}
	other := uint32(os.Geteuid()) + 1000
	for _, c := range []struct {
		name, p string
		o       Options
		uid     uint32
		want    string // real path, or "error:" and what the error says
	}{
		{"plain", "/etc/samba/smb.conf", Options{}, 0, "/etc/samba/smb.conf"},
		{"absolute link confined", "/conf/smb.conf", Options{}, 0, "/etc/samba/smb.conf"},
		{"dotdot at the root", "/up/samba/smb.conf", Options{}, 0, "/etc/samba/smb.conf"},
		{"final not followed", "/final", Options{}, 0, "/final"},
		{"final followed", "/final", Options{Policy: Policy{FollowFinal: true}}, 0, "/etc/samba/smb.conf"},
		{"missing final is an error", "/etc/new.conf", Options{Policy: Policy{FollowFinal: true}}, 0, "error:not exist"},
		{"missing final allowed", "/etc/new.conf", Options{MissingOK: true, Policy: Policy{FollowFinal: true}}, 0, "/etc/new.conf"},
		{"untrusted link refused", "/conf/smb.conf", Options{}, other, "error:unsafe path"},
		{"untrusted link, any owner", "/conf/smb.conf", Options{Policy: Policy{AnyOwner: true}}, other, "/etc/samba/smb.conf"},
		{"loop", "/loop/x", Options{}, 0, "error:too many levels"},
		{"loop, lenient", "/loop/x", Options{Lenient: true}, 0, "/loop/x"},
		{"file as folder", "/etc/samba/smb.conf/x", Options{}, 0, "error:not a folder"},
		{"ends on a folder", "/etc/samba/..", Options{}, 0, "/etc"},
	} {
		m := &mapCursor{tree: tree, linkUID: c.uid}
		c.o.Display = c.p
		last, err := Walk(m, Split(c.p), c.o)
		got := "/" + path.Join(m.done...)
		if last != "" {
			got = m.Real(last)
		}
		if err != nil {
			got = "error:" + err.Error()
		}
		if want, ok := strings.CutPrefix(c.want, "error:"); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %s → %q, want an error saying %q", c.name, c.p, got, want)
			}
			if want == "unsafe path" && !errors.Is(err, ErrUnsafe) {
				t.Errorf("%s: %v is not ErrUnsafe", c.name, err)
			}
			if want == "too many levels" && !errors.Is(err, syscall.ELOOP) {
				t.Errorf("%s: %v is not ELOOP", c.name, err)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s: %s → %q, want %q", c.name, c.p, got, c.want)
		}
	}
}
