package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tune --share refuses bad flags before anything is read or measured.
func TestTuneShareRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--share", "http://x/y"}, "--share:"},
		{[]string{"tune", "--share", "smb://alice:pw@10.0.0.1/media"}, "password"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--file", "/srv/x"}, "--share excludes --net and --file"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--net", "10.0.0.2"}, "--share excludes --net and --file"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--tests", "smallfiles"}, `"smallfiles" is not a share test`},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--budget", "1s"}, "outside 10s-24h"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--client", "a b"}, "not a host"},
		{[]string{"tune", "--share", "smb://nas.local/media", "--client", "10.0.0.2"}, "this machine's address"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--client", "10.0.0.2"}, "--client needs a token"},
		{[]string{"tune", "--share", "smb://10.0.0.1:8445/media", "--client", "10.0.0.2", "--token", "t"}, "port below 1024"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--client", "10.0.0.2:99999", "--token", "t"}, "not a host"},
		{[]string{"tune", "--net", "10.0.0.2", "--client", "10.0.0.3"}, "--client is for --share"},
		{[]string{"tune", "--file", "/srv/x", "--client", "10.0.0.3"}, "--client is for --share"},
		{[]string{"tune", "--net", "10.0.0.2", "--password-file", "/root/pw"}, "--password-file is for --share"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "-P", "0"}, "-P 0 is outside 1-"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "-P", "99"}, "-P 99 is outside 1-"},
		{[]string{"tune", "--share", "smb://10.0.0.1/media", "--client", "10.0.0.2", "--token", "t", "-P", "4"}, "the client runs the share tests with one stream"},
	} {
		_, errs, code := runBench(ctx, nil, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}
}

// --list reads smb.conf and prints what would be tried, and what is not
// measured because the policy requires it; nothing is written.
func TestTuneShareList(t *testing.T) {
	d := t.TempDir()
	conf := filepath.Join(d, "smb.conf")
	src := "[global]\n\tsocket options = TCP_NODELAY SO_RCVBUF=65536 SO_SNDBUF=65536\n\taio read size = 0\n\tserver signing = mandatory\n[media]\n\tpath = /nonexistent-nastune-share\n"
	if err := os.WriteFile(conf, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runBench(context.Background(), nil, "tune", "--share", "smb://alice@192.0.2.1/media", "--smb-conf", conf, "--list")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"tune --share smb://alice@192.0.2.1/media: seqread,seqwrite",
		"knob " + conf + " [global] socket options = TCP_NODELAY SO_RCVBUF=65536 SO_SNDBUF=65536; tries TCP_NODELAY",
		"knob " + conf + " [global] aio read size = 0; tries 1",
		"use sendfile: not tried: signed or encrypted sessions never use it",
		"server signing = mandatory: not measured: required by your policy",
		"block knobs under /nonexistent-nastune-share: not tried",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--list output lacks %q:\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(conf); string(b) != src {
		t.Errorf("--list changed smb.conf:\n%s", b)
	}
	// --knobs keeps only the attributes named; a name that is no knob of
	// the share is refused with the ones it has
	out, errs, code = runBench(context.Background(), nil, "tune", "--share", "smb://alice@192.0.2.1/media", "--smb-conf", conf, "--list", "--knobs", "aio read size")
	if code != ExitOK || !strings.Contains(out, "aio read size = 0; tries 1") || strings.Contains(out, "socket options =") {
		t.Errorf("--knobs 'aio read size': exit %d, %s\n%s", code, errs, out)
	}
	_, errs, code = runBench(context.Background(), nil, "tune", "--share", "smb://alice@192.0.2.1/media", "--smb-conf", conf, "--list", "--knobs", "threads")
	if code != ExitUsage || !strings.Contains(errs, `"threads" is not a knob of smb://alice@192.0.2.1/media`) || !strings.Contains(errs, "aio read size") {
		t.Errorf("--knobs threads on an smb share: exit %d, %s", code, errs)
	}
}
