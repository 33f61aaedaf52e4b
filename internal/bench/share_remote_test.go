package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/test/smblab"
)

// A share request is refused before anything runs: wrong token, share
// tests not enabled, a URL naming another host than the one asking, an
// unknown test, sizes out of range.
func TestShareRequestRefusals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := func(enabled bool, token string) string {
		s := &Server{Addr: "127.0.0.1:0", Token: token}
		if enabled {
			s.SharePassword = func(ShareURL) (string, error) { return "", errors.New("must not be asked") }
		}
		if err := s.Listen(); err != nil {
			t.Fatal(err)
		}
		go s.Serve(ctx)
		return s.Address()
	}
	on, off, open := start(true, "tok"), start(false, "tok"), start(true, "")
	ok := ShareRequest{Token: "tok", URL: "smb://127.0.0.1/share", Tests: []string{"seqread"}, Size: 8 << 20, Seconds: 10}
	for _, c := range []struct {
		name   string
		addr   string
		modify func(*ShareRequest)
		want   string
	}{
		{"wrong token", on, func(r *ShareRequest) { r.Token = "nope" }, "bad token"},
		{"not enabled", off, func(*ShareRequest) {}, "does not run share tests"},
		{"a server without a token", open, func(r *ShareRequest) { r.Token = "" }, "need a token on both ends"},
		{"another host", on, func(r *ShareRequest) { r.URL = "smb://192.0.2.7/share" }, "only against the address that asks (127.0.0.1)"},
		{"a name, not the address", on, func(r *ShareRequest) { r.URL = "smb://localhost/share" }, "only against the address that asks"},
		{"unknown test", on, func(r *ShareRequest) { r.Tests = []string{"seqread", "rm -rf"} }, `unknown share test "rm -rf"`},
		{"too big", on, func(r *ShareRequest) { r.Size = 64 << 30 }, "size 1 MiB"},
		{"an SMB port any user of the NAS can serve", on, func(r *ShareRequest) { r.URL = "smb://127.0.0.1:8445/share" }, "below 1024"},
		{"a password in the URL", on, func(r *ShareRequest) { r.URL = "smb://u:pw@127.0.0.1/share" }, "share URL"},
	} {
		r := ok
		c.modify(&r)
		_, err := RunShareOn(ctx, c.addr, "", r)
		if !errors.Is(err, ErrShareRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.want)
		}
	}
	// The request carries no password field at all.
	b, _ := json.Marshal(ok)
	if strings.Contains(strings.ToLower(string(b)), "password") {
		t.Errorf("request %s", b)
	}
}

// shareClientHelper is the helper mode "shareclient": a bench net server
// that runs share tests on request with the password from its own
// environment.
func shareClientHelper() int {
	return serveHelper(&Server{Addr: os.Getenv("NASTUNE_NET_ADDR"), Token: os.Getenv("NASTUNE_NET_TOKEN"),
		SharePassword: func(ShareURL) (string, error) { return os.Getenv("NASTUNE_SMB_PASSWORD"), nil }})
}

// shareRequestHelper is the helper mode "sharereq": the NAS side asks the
// client to run seqread,seqwrite on its share and prints the result.
func shareRequestHelper() int {
	r := ShareRequest{Token: os.Getenv("NASTUNE_NET_TOKEN"), URL: os.Getenv("NASTUNE_SHARE_URL"), Tests: []string{"seqwrite", "seqread"}, Size: 16 << 20, Seconds: 60}
	res, err := RunShareOn(context.Background(), os.Getenv("NASTUNE_NET_ADDR"), "", r)
	return printHelper(res, err)
}

// The NAS (smbd's namespace) asks a client running the bench server (the
// other namespace) to run share tests on its share: the client measures
// with its own password; the request holds none.
func TestShareRequestSmbd(t *testing.T) {
	l := smblab.Start(t, "q", "")
	startServerHelper(t, l.Cli, "shareclient", "NASTUNE_NET_ADDR=10.231.0.2:5201", "NASTUNE_NET_TOKEN=tok", "NASTUNE_SMB_PASSWORD="+smblab.Password)
	ask := func(url, token string) (string, error) {
		req := exec.Command("ip", "netns", "exec", l.Srv, os.Args[0], "-test.run=^$")
		req.Env = append(os.Environ(), helperEnv+"=sharereq", "NASTUNE_NET_ADDR=10.231.0.2:5201", "NASTUNE_NET_TOKEN="+token, "NASTUNE_SHARE_URL="+url)
		req.Env = slicesDeleteEnv(req.Env, "NASTUNE_SMB_PASSWORD")
		out, err := req.CombinedOutput()
		return string(out), err
	}
	done := time.Now()
	out, err := ask("smb://nobody@"+l.Addr+"/share", "tok")
	if err != nil {
		t.Fatalf("share request: %v\n%s", err, out)
	}
	var res ShareResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkShareTests(t, &res, 16<<20, "seqwrite", "seqread")
	t.Logf("share tests run by the client on request in %s: %s", time.Since(done).Round(time.Millisecond), out)
	if out, err := ask("smb://nobody@"+l.Addr+"/share", "wrong"); err == nil || !strings.Contains(out, "bad token") {
		t.Errorf("a wrong token: %v %s", err, out)
	}
}

// slicesDeleteEnv drops name from an environment.
func slicesDeleteEnv(env []string, name string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return out
}

// ShareRequestTimeout follows the request: its time limit per test, the
// test file written once at 1 MB/s, a minute to log in.
func TestShareRequestTimeout(t *testing.T) {
	for _, c := range []struct {
		r    ShareRequest
		want time.Duration
	}{
		{ShareRequest{Tests: []string{"seqread"}, Size: 8e6, Seconds: 10}, time.Minute + 18*time.Second},
		{ShareRequest{Tests: []string{"seqread", "seqwrite"}, Size: 256e6, Seconds: 3}, time.Minute + 2*259*time.Second},
		{ShareRequest{Size: 1e6, Seconds: 1}, time.Minute + 2*time.Second}, // no tests named: counted as one
	} {
		if got := ShareRequestTimeout(c.r); got != c.want {
			t.Errorf("%+v: %v, want %v", c.r, got, c.want)
		}
	}
}

// A client that takes the request and never answers (hung, or a dead
// host whose connection stays open) does not hang tune: RunShareOn gives
// up at the timeout and says so.
func TestShareRequestDeadClient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }() // reads, never replies
		}
	}()
	r := ShareRequest{Token: "tok", URL: "smb://127.0.0.1/share", Tests: []string{"seqread"}, Size: 8 << 20, Seconds: 10}
	done := make(chan error, 1)
	go func() {
		_, err := runShareOn(context.Background(), l.Addr().String(), "", r, 300*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no result within") || !strings.Contains(err.Error(), l.Addr().String()) {
			t.Errorf("a silent client: %v, want an error naming it and the timeout", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("RunShareOn still waits for a silent client after a minute")
	}
}
