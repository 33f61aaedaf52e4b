package hostfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestHeldFoldersBounded: a tree with more folders than maxHeldDirs reads
// right, keeps at most maxHeldDirs folders open, and Close releases them.
func TestHeldFoldersBounded(t *testing.T) {
	const n = 400
	if n <= maxHeldDirs {
		t.Fatalf("the tree needs more than %d folders", maxHeldDirs)
	}
	files := map[string]string{}
	links := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("sys/devices/d%d/q/v", i)] = fmt.Sprintf("%d\n", i)
		links[fmt.Sprintf("sys/class/c%d", i)] = fmt.Sprintf("../devices/d%d", i)
	}
	before := openFDs(t)
	r := tree(t, files, links)
	for pass := range 2 {
		for i := range n {
			got, err := r.ReadString(fmt.Sprintf("/sys/class/c%d/q/v", i))
			if err != nil || got != fmt.Sprint(i) {
				t.Fatalf("pass %d: /sys/class/c%d/q/v = %q, %v", pass, i, got, err)
			}
			if p, err := r.RealPath(fmt.Sprintf("/sys/class/c%d/q/../q", i)); err != nil || p != fmt.Sprintf("/sys/devices/d%d/q", i) {
				t.Fatalf("RealPath = %q, %v", p, err)
			}
		}
	}
	if held := len(r.tree.held); held > maxHeldDirs {
		t.Errorf("%d folders held open, limit %d", held, maxHeldDirs)
	}
	if open := openFDs(t) - before; open > maxHeldDirs+1 {
		t.Errorf("%d descriptors open while reading, limit %d", open, maxHeldDirs+1)
	}
	if len(r.tree.resolved) > maxResolved {
		t.Errorf("%d resolved folders kept, limit %d", len(r.tree.resolved), maxResolved)
	}
	r.Close()
	if open := openFDs(t) - before; open > 0 {
		t.Errorf("%d descriptors left open after Close", open)
	}
}

// TestTreeChangesWhileRead: a folder already held and resolved, then
// replaced by a link out of the tree (absolute, and relative with ".."),
// never leads a read outside DIR, whether the folder is still held or was
// closed in between.
func TestTreeChangesWhileRead(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "v"), []byte("OUTSIDE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{outside, "../../../../../../../../" + strings.TrimPrefix(outside, "/")} {
		for _, evict := range []bool{false, true} {
			r := tree(t, map[string]string{"a/b/v": "inside\n"}, nil)
			if got, err := r.ReadString("/a/b/v"); err != nil || got != "inside" {
				t.Fatalf("before: %q, %v", got, err)
			}
			b := filepath.Join(r.Dir(), "a/b")
			if err := os.RemoveAll(b); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, b); err != nil {
				t.Fatal(err)
			}
			if evict {
				r.tree.mu.Lock()
				for p, h := range r.tree.held {
					unix.Close(h.fd)
					delete(r.tree.held, p)
				}
				r.tree.mu.Unlock()
			}
			got, err := r.ReadFile("/a/b/v")
			if strings.Contains(string(got), "OUTSIDE") {
				t.Errorf("link %s (evicted %v): read outside the tree: %q", target, evict, got)
			}
			if err == nil {
				t.Errorf("link %s (evicted %v): read %q from a removed folder", target, evict, got)
			}
		}
	}
}

// TestResolvedFolderCache: the cache of resolved folders gives what a walk
// from the top gives, for links, "..", "." and doubled slashes.
func TestResolvedFolderCache(t *testing.T) {
	r := tree(t, map[string]string{
		"sys/devices/pci/host0/block/sda/size":   "8\n",
		"sys/devices/pci/host0/block/sda/sda1/p": "1\n",
	}, map[string]string{
		"sys/block/sda":       "../devices/pci/host0/block/sda",
		"sys/class/block/sda": "/sys/block/sda",
		"dev/up":              "..",
		"dev/loop":            "loop",
	})
	names := []string{
		"/sys/block/sda/size", "/sys/class/block/sda/size", "/sys/block/sda/../block/sda/size",
		"/sys/class/block/sda/sda1/../size", "/dev/up/sys/block/sda/size", "/sys//block/./sda/size",
		"/sys/block/sda/", "/sys/block/sda/..", "/", "/dev/loop/x", "/nope/x", "/sys/block/sda/size/x",
	}
	for pass := range 2 { // second pass from the cache
		for _, name := range names {
			got, gotErr := r.RealPath(name)
			want, wantErr := walk(name, true, true, r.lstatRawTop, r.readlinkRawTop, nil)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("pass %d: RealPath(%s) = %q, %v; a walk from the top gives %q, %v", pass, name, got, gotErr, want, wantErr)
			}
		}
	}
	if _, err := r.RealPath("/dev/loop/x"); err == nil || !errors.Is(err, errLinkLoop) {
		t.Errorf("link loop: %v", err)
	}
}

// lstatRawTop and readlinkRawTop look at a real path from the top of the
// tree, as hostfs did before folders were held.
func (r *Root) lstatRawTop(p string) (os.FileInfo, error) {
	top, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	return top.Lstat("." + p)
}

func (r *Root) readlinkRawTop(p string) (string, error) {
	top, err := os.OpenRoot(r.dir)
	if err != nil {
		return "", err
	}
	defer top.Close()
	return top.Readlink("." + p)
}

// TestTreeWalkedOnce: reading every file of a sysfs-like tree (deep
// folders, reached through class links) opens each folder once and each
// file once; before folders were held, each lookup re-opened every folder
// from the top (121,202 openat calls for a 654-file fixture).
func TestTreeWalkedOnce(t *testing.T) {
	files := map[string]string{}
	links := map[string]string{}
	const disks, attrs = 8, 12
	for d := range disks {
		dev := fmt.Sprintf("sys/devices/pci0000:00/0000:00:1f.2/ata%d/host%d/target%d:0:0/%d:0:0:0/block/sd%c", d, d, d, d, 'a'+d)
		for a := range attrs {
			files[fmt.Sprintf("%s/queue/a%d", dev, a)] = "1\n"
		}
		links[fmt.Sprintf("sys/block/sd%c", 'a'+d)] = "../" + strings.TrimPrefix(dev, "sys/")
	}
	r := tree(t, files, links)
	for range 3 { // probes read the same attributes again
		for d := range disks {
			for a := range attrs {
				if _, err := r.ReadFile(fmt.Sprintf("/sys/block/sd%c/queue/a%d", 'a'+d, a)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	folders := 5 + disks*7 // sys, block, devices, pci…, 1f.2; then ata…/queue per disk
	if reads := 3 * disks * attrs; r.tree.opens > reads+folders {
		t.Errorf("%d openat calls to read %d files in %d folders", r.tree.opens, reads, folders)
	}
}
