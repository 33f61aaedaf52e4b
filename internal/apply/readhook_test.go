package apply

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewReadHook: with Options.ReadFile, Preview reads every file and
// runtime value through the hook (the CLI's hostfs view of a --root tree)
// and never opens Root+path itself; Apply ignores the hook, so what it
// writes starts from what its own walker reads.
func TestPreviewReadHook(t *testing.T) {
	root := scratch(t)
	// Root+path on the host side holds other content than the hook's view:
	// Preview must show the hook's.
	seen := map[string]bool{}
	view := map[string]string{
		"/proc/sys/net/ipv4/tcp_timestamps": "0\n",
		"/proc/sys/vm/vfs_cache_pressure":   "500\n",
		"/sys/block/sda/queue/scheduler":    "noop [cfq] deadline\n",
		"/proc/fs/nfsd/threads":             "2\n",
		"/etc/samba/smb.conf":               "[global]\n   socket options = SO_SNDBUF=1 # HOOK-VIEW\n",
		"/etc/default/nfs-kernel-server":    "RPCNFSDCOUNT=2\n",
	}
	hook := func(p string) ([]byte, error) {
		seen[p] = true
		if c, ok := view[p]; ok {
			return []byte(c), nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	vals, files, err := Preview(samplePlan(), Options{Root: root, ReadFile: hook})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/proc/sys/vm/vfs_cache_pressure", "/etc/samba/smb.conf", "/etc/sysctl.d/90-nastune.conf", "/etc/udev/rules.d/90-nastune.rules"} {
		if !seen[p] {
			t.Errorf("%s not read through the hook", p)
		}
	}
	var got []string
	for _, v := range vals {
		got = append(got, v.Path+"="+v.From)
	}
	if s := strings.Join(got, " "); !strings.Contains(s, "vfs_cache_pressure=500") || !strings.Contains(s, "scheduler=cfq") || !strings.Contains(s, "threads=2") {
		t.Errorf("values not from the hook: %s", s)
	}
	inFiles := map[string]bool{}
	for _, f := range files {
		inFiles[f.Path] = true
		if f.Path == "/etc/samba/smb.conf" && (!f.OldExisted || !strings.Contains(string(f.Old), "HOOK-VIEW")) {
			t.Errorf("smb.conf old side not from the hook: %q", f.Old)
		}
		if f.Path == "/etc/sysctl.d/90-nastune.conf" && f.OldExisted {
			t.Error("a file the hook does not find must be new")
		}
	}
	// The checks above hold only for files the preview lists.
	for _, p := range []string{"/etc/samba/smb.conf", "/etc/sysctl.d/90-nastune.conf"} {
		if !inFiles[p] {
			t.Errorf("preview lists no change of %s", p)
		}
	}
	// Errors of the hook (a FIFO, a file never read) stop the preview.
	refuse := errors.New("not a regular file")
	_, _, err = Preview(samplePlan(), Options{Root: root, ReadFile: func(p string) ([]byte, error) {
		if p == "/etc/samba/smb.conf" {
			return nil, refuse
		}
		return hook(p)
	}})
	if !errors.Is(err, refuse) {
		t.Errorf("hook error: %v", err)
	}
	// Apply does not use it.
	m, err := Apply(samplePlan(), Options{Root: root, ReadFile: func(string) ([]byte, error) {
		t.Error("Apply read through the hook")
		return nil, fs.ErrNotExist
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "etc/samba/smb.conf"))
	if strings.Contains(string(b), "HOOK-VIEW") || len(m.Steps) == 0 {
		t.Errorf("apply wrote from the hook's view: %s", b)
	}
}
