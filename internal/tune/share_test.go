package tune

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
)

func TestSambaKnobs(t *testing.T) {
	const conf = "/etc/samba/smb.conf"
	type kv struct{ attr, from, to string }
	for _, c := range []struct {
		name, src, version string
		want               []kv
		notes              []string
	}{
		{"clean", "[global]\n\tworkgroup = W\n[data]\n\tpath = /srv\n", "4.17.12-Debian", nil,
			[]string{"use sendfile: not tried: with aio read size 1"}},
		{"buffers removed, other options kept", "[global]\nsocket options = TCP_NODELAY SO_RCVBUF=65536 IPTOS_LOWDELAY SO_SNDBUF=65536\n", "4.17.12",
			[]kv{{"socket options", "TCP_NODELAY SO_RCVBUF=65536 IPTOS_LOWDELAY SO_SNDBUF=65536", "TCP_NODELAY IPTOS_LOWDELAY"}}, nil},
		{"only buffers: Samba's default", "[global]\nsocket options = SO_RCVBUF=8192 SO_SNDBUF=8192\n", "",
			[]kv{{"socket options", "SO_RCVBUF=8192 SO_SNDBUF=8192", "TCP_NODELAY"}}, nil},
		{"socket options without buffers: nothing", "[global]\nsocket options = TCP_NODELAY\n", "", nil, nil},
		{"comma-separated, as Samba splits them", "[global]\nsocket options = TCP_NODELAY,SO_SNDBUF=8192\n", "",
			[]kv{{"socket options", "TCP_NODELAY,SO_SNDBUF=8192", "TCP_NODELAY"}}, nil},
		{"a buffer without NAME=VALUE sets nothing: nothing", "[global]\nsocket options = SO_RCVBUF = 8192\n", "", nil, nil},
		{"aio 0 and legacy size; sendfile reachable", "[global]\naio read size = 0\naio write size = 16384\n", "4.17",
			[]kv{{"aio read size", "0", "1"}, {"aio write size", "16384", "1"}, {"use sendfile", "no", "yes"}}, nil},
		{"aio before 4.8: 0 is the default", "[global]\naio read size = 0\n", "4.7.6",
			[]kv{{"use sendfile", "no", "yes"}}, nil},
		{"sendfile already on", "[global]\naio read size = 0\nuse sendfile = yes\n", "4.17",
			[]kv{{"aio read size", "0", "1"}}, nil},
		{"signing mandatory", "[global]\naio read size = 0\nserver signing = mandatory\n", "4.17",
			[]kv{{"aio read size", "0", "1"}},
			[]string{"use sendfile: not tried: signed or encrypted", "server signing = mandatory: not measured: required by your policy"}},
		{"share encryption is named", "[global]\n[secret]\npath = /s\nsmb encrypt = required\n", "4.17", nil,
			[]string{"[secret] smb encrypt = required: not measured: required by your policy"}},
		{"min receivefile size", "[global]\nmin receivefile size = 16384\n", "4.17",
			[]kv{{"min receivefile size", "16384", "0"}}, nil},
		{"multi channel off on 4.17", "[global]\nserver multi channel support = no\n", "4.17.12",
			[]kv{{"server multi channel support", "no", "yes"}}, nil},
		{"a value with a control byte is not tried", "[global]\nsocket options = SO_RCVBUF=8192 \x1b[2J\n", "4.17", nil,
			[]string{"socket options: not tried: its value in /etc/samba/smb.conf holds characters nastune does not write"}},
		{"multi channel off on 4.13: experimental", "[global]\nserver multi channel support = no\n", "4.13.17",
			nil, []string{"server multi channel support: not tried: experimental before Samba 4.15 (this is 4.13.17)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			knobs, notes, err := SambaKnobs(conf, []byte(c.src), c.version)
			if err != nil {
				t.Fatal(err)
			}
			var got []kv
			for _, k := range knobs {
				if len(k.Values) != 1 || k.Path != SmbKnobPath(conf, k.Attr) {
					t.Errorf("knob %+v", k)
				}
				got = append(got, kv{k.Attr, k.Current, k.Values[0]})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("knobs %v, want %v", got, c.want)
			}
			for _, n := range c.notes {
				found := false
				for _, x := range notes {
					found = found || strings.Contains(x, n)
				}
				if !found {
					t.Errorf("notes %q lack %q", notes, n)
				}
			}
		})
	}
	if _, _, err := SambaKnobs(conf, []byte("[global\n"), ""); err == nil || !strings.Contains(err.Error(), conf) {
		t.Errorf("a broken smb.conf: %v, want an error naming it", err)
	}
}

func TestNfsdKnob(t *testing.T) {
	for _, c := range []struct {
		cur, cores int
		ram        uint64
		want       []string
		skipped    int
	}{
		{8, 4, 8 << 30, []string{"16", "32", "64"}, 1}, // 128 > 16 × 4 cores
		{8, 1, 128 << 20, nil, 4},                      // 128 MiB: 5% is 6 threads
		{1, 2, 1 << 30, []string{"8", "16", "32"}, 2},  // 51 threads by memory, 32 by cores
		{64, 16, 64 << 30, []string{"128"}, 0},
	} {
		k, ok := NfsdKnob(c.cur, c.cores, c.ram)
		if !ok || !reflect.DeepEqual(k.Values, c.want) || len(k.Skipped) != c.skipped || k.Path != NfsdThreads || !k.Ladder {
			t.Errorf("NfsdKnob(%d, %d, %d) = %+v, want values %v and %d skipped", c.cur, c.cores, c.ram, k, c.want, c.skipped)
		}
	}
	if _, ok := NfsdKnob(0, 2, 1<<30); ok {
		t.Error("nfsd without threads (not started) offered a knob")
	}
}

type fakeService struct{ calls []string }

func (f *fakeService) Reload() error  { f.calls = append(f.calls, "reload"); return nil }
func (f *fakeService) Restart() error { f.calls = append(f.calls, "restart"); return nil }

// ShareApplier on a scratch root: a Samba trial is a journaled smb.conf
// edit the service is told about (restart for socket options, reload
// otherwise), its revert restores the bytes and reads the value back, and
// Persist writes smb.conf and nfs.conf in one run that undo reverts.
func TestShareApplier(t *testing.T) {
	root := t.TempDir()
	const conf = "/etc/samba/smb.conf"
	src := "# mine\n[global]\n   socket options = SO_RCVBUF=8192 SO_SNDBUF=8192\n   aio read size = 0\n[data]\n   path = /srv\n"
	for p, c := range map[string]string{conf: src, "/etc/nfs.conf": "[nfsd]\n# threads=8\n", NfsdThreads: "8\n"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svc := &fakeService{}
	opts := apply.Options{Root: root, Tune: "tune-x"}
	a := &ShareApplier{Journal: &JournalApplier{Opts: opts}, Conf: conf, Version: "4.17.12", Service: svc, NFSConf: "/etc/nfs.conf"}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(root, p)); return string(b) }

	id, err := a.Trial(SmbKnobPath(conf, "socket options"), "TCP_NODELAY")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(conf); !strings.Contains(got, "socket options = TCP_NODELAY\n") || !strings.HasPrefix(got, "# mine\n") {
		t.Errorf("smb.conf during the trial:\n%s", got)
	}
	if v, _ := a.Read(SmbKnobPath(conf, "socket options")); v != "TCP_NODELAY" {
		t.Errorf("read %q", v)
	}
	rb, err := a.Revert(id)
	if err != nil || rb != "SO_RCVBUF=8192 SO_SNDBUF=8192" || read(conf) != src {
		t.Errorf("revert: %q %v\n%s", rb, err, read(conf))
	}
	id, err = a.Trial(SmbKnobPath(conf, "aio read size"), "1")
	if err != nil {
		t.Fatal(err)
	}
	if rb, err := a.Revert(id); err != nil || rb != "0" {
		t.Errorf("revert aio: %q %v", rb, err)
	}
	if want := []string{"restart", "restart", "reload", "reload"}; !reflect.DeepEqual(svc.calls, want) {
		t.Errorf("service calls %v, want %v", svc.calls, want)
	}
	// A value the smb.conf writer refuses (a newline, a section header)
	// is no trial and tells the service nothing.
	svc.calls = nil
	if _, err := a.Trial(SmbKnobPath(conf, "socket options"), "TCP_NODELAY\n[evil]"); err == nil || len(svc.calls) != 0 || read(conf) != src {
		t.Errorf("a value with a newline: %v, calls %v", err, svc.calls)
	}
	kept := []Kept{{Knob: SmbKnobPath(conf, "aio read size"), From: "0", To: "1"}, {Knob: SmbKnobPath(conf, "socket options"), From: "SO_RCVBUF=8192 SO_SNDBUF=8192", To: "TCP_NODELAY"},
		{Knob: NfsdThreads, From: "8", To: "16"}}
	run, err := a.Persist(kept)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(conf); !strings.Contains(got, "aio read size = 1\n") || !strings.Contains(got, "socket options = TCP_NODELAY\n") {
		t.Errorf("smb.conf kept:\n%s", got)
	}
	if !strings.Contains(read("/etc/nfs.conf"), "threads") || strings.TrimSpace(read(NfsdThreads)) != "16" {
		t.Errorf("nfs.conf %q, threads %q", read("/etc/nfs.conf"), read(NfsdThreads))
	}
	if want := []string{"restart"}; !reflect.DeepEqual(svc.calls, want) {
		t.Errorf("after persist: %v, want one restart (socket options kept)", svc.calls)
	}
	if kept[2].Persisted != "/etc/nfs.conf [nfsd] threads" || kept[0].Persisted != conf {
		t.Errorf("persisted %+v", kept)
	}
	if _, err := apply.Undo(run, opts); err != nil {
		t.Fatal(err)
	}
	if read(conf) != src || read("/etc/nfs.conf") != "[nfsd]\n# threads=8\n" || strings.TrimSpace(read(NfsdThreads)) != "8" {
		t.Errorf("after undo:\n%s\n%s\n%s", read(conf), read("/etc/nfs.conf"), read(NfsdThreads))
	}
}
