package bench

import (
	"context"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An attribution session on loopback: the token rules of a test, the
// share found in smb.conf, the test file evicted only when it is nastune's
// own, inside the share and not a link, and a report with samples.
func TestAttribSession(t *testing.T) {
	dir := t.TempDir()
	share := filepath.Join(dir, "share")
	os.Mkdir(share, 0o755)
	conf := filepath.Join(dir, "smb.conf")
	os.WriteFile(conf, []byte("[global]\n\tserver signing = mandatory\n[data]\n\tpath = "+share+"\n\tsmb encrypt = required\n\tuse sendfile = yes\n"), 0o644)
	own := sharePrefix + "x.bin"
	os.WriteFile(filepath.Join(share, own), []byte(headerMagic+"rest"), 0o644)
	os.WriteFile(filepath.Join(share, sharePrefix+"foreign.bin"), []byte("not ours"), 0o644)
	outside := filepath.Join(dir, sharePrefix+"out.bin")
	os.WriteFile(outside, []byte(headerMagic), 0o644)
	os.Symlink(outside, filepath.Join(share, sharePrefix+"link.bin"))
	os.Symlink(dir, filepath.Join(share, "up"))
	unix.Mkfifo(filepath.Join(share, sharePrefix+"fifo.bin"), 0o644)

	s := &Server{Addr: "127.0.0.1:0", Token: "tok", SMBConf: conf,
		Devices: func(string) ([]string, error) { return []string{"sda"}, nil }, Log: func(m string) { t.Log(m) }}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)

	if _, err := dialAttrib(ctx, s.Address(), "wrong"); err == nil || !strings.Contains(err.Error(), "bad token") {
		t.Errorf("a wrong token: %v", err)
	}
	a, err := dialAttrib(ctx, s.Address(), "tok")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := dialAttrib(ctx, s.Address(), "tok"); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("a second session at once: %v", err)
	}
	for _, c := range []struct {
		file, evicted, note string
	}{
		{own, filepath.Join(share, own), ""},
		{sharePrefix + "foreign.bin", "", "does not start with nastune's header"},
		{sharePrefix + "link.bin", "", "it is a symlink"},
		{sharePrefix + "fifo.bin", "", "not a regular file"}, // not even opened (safefile)
		{"up/" + sharePrefix + "out.bin", "", "outside the share"},
		{"../" + sharePrefix + "out.bin", "", "not a nastune test file"},
		{"smb.conf", "", "not a nastune test file"},
	} {
		rep, err := a.begin(attribMsg{Begin: "seqread", Protocol: "smb", Share: "data", File: c.file, Evict: true})
		if err != nil || !rep.OK || rep.Evicted != c.evicted {
			t.Errorf("begin %s: %+v %v, want evicted %q", c.file, rep, err, c.evicted)
		}
		time.Sleep(600 * time.Millisecond)
		rep, err = a.end()
		if err != nil || rep.Samples < 1 || rep.SharePath != share || len(rep.Devices) != 1 ||
			rep.Settings["smb encrypt"] != "required" || rep.Settings["server signing"] != "mandatory" || rep.Settings["use sendfile"] != "yes" {
			t.Errorf("end %s: %+v %v", c.file, rep, err)
		}
		if c.note != "" && !strings.Contains(strings.Join(rep.Notes, "; "), c.note) {
			t.Errorf("%s: notes %q, want %q", c.file, rep.Notes, c.note)
		}
	}
	rep, err := a.begin(attribMsg{Begin: "seqread", Protocol: "smb", Share: "nosuch"})
	if err == nil {
		rep, err = a.end()
	}
	if err != nil || !strings.Contains(strings.Join(rep.Notes, ";"), "no [nosuch]") {
		t.Errorf("an unknown share: %+v %v", rep, err)
	}
}
