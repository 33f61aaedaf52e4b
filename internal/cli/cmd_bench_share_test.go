package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/bench"
)

func TestBenchShareUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"bench", "share", "smb://alice:hunter2@nas/photos"}, nil, "holds a password"},
		{[]string{"bench", "share", "ftp://nas/x"}, nil, `scheme "ftp"`},
		{[]string{"bench", "share", "smb://alice@nas/photos"}, nil, "no terminal to ask on"},
		{[]string{"bench", "share", "--tests", "seqread,warp", "smb://nas/p"}, nil, `unknown test "warp"`},
		{[]string{"bench", "share", "--bs", "1000", "smb://nas/p"}, nil, "multiple of 4K"},
		{[]string{"bench", "share", "-P", "17", "smb://nas/p"}, nil, "outside 1-16"},
		{[]string{"bench", "share", "--size", "1M", "smb://nas/p"}, nil, "below 16MiB"},
		{[]string{"bench", "share", "-o", "prom", "smb://nas/p"}, nil, "prom"},
		{[]string{"bench", "share", "--password-file", "/nonexistent", "nfs://nas/srv"}, nil, "nfs:// takes no password"},
		{[]string{"bench", "share", "--password-file", "/nonexistent/pw", "smb://bob@nas/p"}, nil, "--password-file"},
	} {
		out, errs, code := runBench(context.Background(), c.env, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
		if strings.Contains(out+errs, "hunter2") {
			t.Errorf("%v: the password is repeated: %q", c.args, out+errs)
		}
	}
}

func TestSharePassword(t *testing.T) {
	u, _ := bench.ParseShareURL("smb://bob@nas/p")
	f := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(f, []byte("s3cret\r\nignored\n"), 0o600)
	env := &Env{Getenv: func(k string) string { return map[string]string{smbPasswordEnv: "from-env"}[k] }, Stdin: strings.NewReader("")}
	if pw, err := sharePassword(u, f, env); err != nil || pw != "s3cret" {
		t.Errorf("--password-file: %q %v", pw, err)
	}
	if pw, err := sharePassword(u, "", env); err != nil || pw != "from-env" {
		t.Errorf("environment: %q %v", pw, err)
	}
	anon, _ := bench.ParseShareURL("smb://nas/p")
	if pw, err := sharePassword(anon, "", env); err != nil || pw != "" {
		t.Errorf("anonymous: %q %v", pw, err)
	}
	if _, err := sharePassword(u, filepath.Dir(f), env); err == nil {
		t.Error("a folder as --password-file must be refused")
	}
}
