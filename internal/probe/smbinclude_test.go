package probe

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Includes as smbd reads them, and the bounds around them: a FIFO planted
// as an include is refused by hostfs (never blocks), a loop stops, a macro
// name is left to smbd; each is recorded as not collected. A share from an
// included file is part of the effective config.
func TestSambaIncludesProbe(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "proc/version", "Linux version 6.1.0\n")
	write(t, dir, "etc/samba/smb.conf", "[global]\n include = /etc/samba/shares.conf\n include = /etc/samba/pipe.conf\n include = /etc/samba/%m.conf\n")
	write(t, dir, "etc/samba/shares.conf", "[media]\n path = /srv/media\n include = /etc/samba/smb.conf\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "etc/samba/pipe.conf"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	h := collect(t, dir)
	if h.Samba == nil || h.Samba.Shares["media"] == nil || h.Samba.Shares["media"]["path"] != "/srv/media" {
		t.Fatalf("shares: %+v", h.Samba)
	}
	want := map[string]string{
		"/etc/samba/pipe.conf": "", "/etc/samba/%m.conf": "macro", "/etc/samba/smb.conf": "loop",
	}
	for _, n := range h.NotCollected {
		if sub, ok := want[n.Source]; ok && strings.Contains(n.Reason, sub) {
			delete(want, n.Source)
		}
	}
	if len(want) != 0 {
		t.Errorf("not recorded as not collected: %v (have %+v)", want, h.NotCollected)
	}
	for _, s := range h.Samba.Settings {
		if s.Key == "path" && s.File != "/etc/samba/shares.conf" {
			t.Errorf("path set in %s", s.File)
		}
	}
}
