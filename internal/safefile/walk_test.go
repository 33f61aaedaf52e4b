package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestResolveConfined: below a root, "..", absolute links and relative
// links climbing out all stay inside it; a missing last name is fine; the
// last link is followed only when asked.
func TestResolveConfined(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc/samba"), 0o755)
	os.MkdirAll(filepath.Join(root, "srv/conf"), 0o755)
	os.Symlink("/srv/conf/smb.conf", filepath.Join(root, "etc/samba/smb.conf"))
	os.Symlink("../../../../../../../../srv", filepath.Join(root, "etc/up"))
	d, err := OpenRoot(root, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct {
		p      string
		follow bool
		real   string
	}{
		{"/etc/samba/smb.conf", true, "/srv/conf/smb.conf"},
		{"/etc/samba/smb.conf", false, "/etc/samba/smb.conf"},
		{"/../../../etc/./samba/../samba/new.conf", true, "/etc/samba/new.conf"},
		{"/etc/up/conf/x", true, "/srv/conf/x"},
	} {
		e, err := d.Resolve(c.p, Policy{FollowFinal: c.follow})
		if err != nil {
			t.Errorf("%s: %v", c.p, err)
			continue
		}
		var st, want unix.Stat_t
		unix.Fstat(e.Dir.Fd(), &st)
		unix.Stat(filepath.Join(root, filepath.Dir(c.real)), &want)
		if e.Real != c.real || e.Name != filepath.Base(c.real) || st.Ino != want.Ino {
			t.Errorf("%s (follow %v): real %q name %q ino %d, want %q ino %d", c.p, c.follow, e.Real, e.Name, st.Ino, c.real, want.Ino)
		}
		e.Close()
	}
	for _, p := range []string{"/", "/etc/..", "/etc/."} {
		if e, err := d.Resolve(p, Policy{}); err == nil || !strings.Contains(err.Error(), "resolves to a folder") {
			t.Errorf("%s: %v", p, err)
			if e != nil {
				e.Close()
			}
		}
	}
	if _, err := d.Resolve("etc/x", Policy{}); err == nil {
		t.Error("a relative path must be refused")
	}
	if _, err := d.Resolve("/nope/x", Policy{}); !errors.Is(err, unix.ENOENT) {
		t.Errorf("missing folder: %v", err)
	}
}

// TestResolveTrust: the same link rules as OpenDir (a link someone else
// owns, or one in a folder someone else owns, is refused) unless AnyOwner,
// which follows it but stays confined.
func TestResolveTrust(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.MkdirAll(filepath.Join(root, "home/u"), 0o755)
	os.Chown(filepath.Join(root, "home/u"), 12345, 12345)
	foreign := filepath.Join(root, "etc/foreign")
	os.Symlink("/etc/shadow", foreign)
	os.Lchown(foreign, 12345, 12345)
	os.Symlink("/etc/shadow", filepath.Join(root, "home/u/mine")) // root's link, their folder
	d, err := OpenRoot(root, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, p := range []string{"/etc/foreign", "/home/u/mine"} {
		if _, err := d.Resolve(p, Policy{FollowFinal: true}); !errors.Is(err, ErrUnsafe) {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := OpenDir(filepath.Join(root, p)); !errors.Is(err, ErrUnsafe) {
			t.Errorf("OpenDir %s: %v", p, err)
		}
		e, err := d.Resolve(p, Policy{FollowFinal: true, AnyOwner: true})
		if err != nil || e.Real != "/etc/shadow" {
			t.Errorf("%s AnyOwner: %v", p, err)
		} else {
			e.Close()
		}
		// Not following the last link: nothing to trust.
		if e, err := d.Resolve(p, Policy{}); err != nil {
			t.Errorf("%s unfollowed: %v", p, err)
		} else {
			e.Close()
		}
	}
}
