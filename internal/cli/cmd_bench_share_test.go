package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	gonfs "github.com/willscott/go-nfs"
	nfshelper "github.com/willscott/go-nfs/helpers"

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

// End to end through the CLI: an NFSv3 server (go-nfs on loopback, a temp
// folder), -o json with --save twice, then bench compare of the two.
func TestBenchShareNFSSaveCompare(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go gonfs.Serve(l, nfshelper.NewCachingHandler(nfshelper.NewNullAuthHandler(osfs.New(dir)), 4096))
	url := fmt.Sprintf("nfs://127.0.0.1:%d/export", l.Addr().(*net.TCPAddr).Port)
	saves := []string{filepath.Join(t.TempDir(), "before.json"), filepath.Join(t.TempDir(), "after.json")}
	for _, s := range saves {
		out, errs, code := runBench(context.Background(), nil, "bench", "share", url, "--tcp", "off", "--size", "16M", "--tests", "seqwrite,seqread,metadata",
			"--files", "10", "--repeat", "2", "-o", "json", "--save", s)
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, errs)
		}
		var r bench.ShareResult
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Kind != "share" || len(r.Tests) != 3 || r.Tests[1].Runs != 2 {
			t.Fatalf("result %+v %v\n%s", r, err, out)
		}
	}
	out, errs, code := runBench(context.Background(), nil, "bench", "compare", saves[0], saves[1])
	if code != 0 || !strings.Contains(out, "seqread") || !strings.Contains(out, "metadata") {
		t.Errorf("compare: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runBench(context.Background(), nil, "bench", "share", url, "--tcp", "off", "--size", "16M", "-o", "html")
	if code != 0 || !strings.Contains(out, "<html") || !strings.Contains(out, "seqread") {
		t.Errorf("html: exit %d %s\n%.300s", code, errs, out)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("left behind: %v", es)
	}
}

// The text output, from a fixed result (golden).
func TestPrintShareGolden(t *testing.T) {
	r := &bench.ShareResult{Kind: "share", URL: "smb://alice@nas/photos", ShareInfo: bench.ShareInfo{Protocol: "smb", Dialect: "3.1.1", Signing: "off", Encryption: "on"},
		Size: 1 << 30, BlockSize: 1 << 20, Streams: 2, InFlight: 4, Files: 100,
		Tests: []bench.TestResult{
			{Name: "seqwrite", MiBPerS: 101.5, IOPS: 101.5, LatUS: bench.Lat{P50: 38000, P99: 91000}, Runs: 3, SpreadLo: 99, SpreadHi: 104},
			{Name: "seqread", MiBPerS: 112.25, IOPS: 112.25, LatUS: bench.Lat{P50: 35000, P99: 60000}, Runs: 3, SpreadLo: 110, SpreadHi: 113, Verified: true},
			{Name: "metadata", IOPS: 2500, LatUS: bench.Lat{P50: 400, P99: 900}, Runs: 3, SpreadLo: 2400, SpreadHi: 2600, Verified: true}},
		Attribution: "attribution needs `nastune bench net -s` on nas", Interrupted: true}
	var b strings.Builder
	printShare(&b, r)
	golden(t, filepath.Join("testdata", "bench_share.txt"), b.String())
}

// Ctrl-C during the second test: the first is printed, exit 130, and
// everything made on the share is removed.
func TestBenchShareInterrupted(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go gonfs.Serve(l, nfshelper.NewCachingHandler(nfshelper.NewNullAuthHandler(osfs.New(dir)), 1<<16))
	url := fmt.Sprintf("nfs://127.0.0.1:%d/export", l.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // metadata's folder appears once seqwrite has finished
		for ctx.Err() == nil {
			if m, _ := filepath.Glob(filepath.Join(dir, "nastune-bench-*.d")); len(m) > 0 {
				time.Sleep(100 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out, errs, code := runBench(ctx, nil, "bench", "share", url, "--tcp", "off", "--size", "16M", "--tests", "seqwrite,metadata", "--files", "100000")
	if code != 130 || !strings.Contains(out, "seqwrite") || strings.Contains(out, "metadata  ") || !strings.Contains(out, "interrupted") || !strings.Contains(errs, "1 of 2 tests finished") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("left behind after Ctrl-C: %d entries, e.g. %v", len(es), es[0].Name())
	}
}
