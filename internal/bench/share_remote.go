package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"
)

// Share tests on request: `tune --share URL --client HOST` on the NAS asks
// a client running `bench net -s` to run bench share against the NAS's
// share, so the network between them counts. The request is its own
// message (first line "NASTUNE-SHARE " + JSON), apart from the test and
// attribution headers, with the same token rules as a test, and only on a
// server that has a token (else anyone who reaches it could make it log in
// with its SMB password to a server of their own). The client runs
// only share tests, only against the address the request came from, with
// its own password (Server.SharePassword: its --password-file or
// $NASTUNE_SMB_PASSWORD); no password crosses the protocol.

const shareMagic = "NASTUNE-SHARE "

// ShareRequest asks a bench server to run share tests.
type ShareRequest struct {
	V     int    `json:"v"`
	Token string `json:"token,omitempty"`
	// URL is the share, without a password (ParseShareURL refuses one);
	// its host must be the address the request comes from.
	URL     string   `json:"url"`
	Tests   []string `json:"tests"`
	Size    int64    `json:"size"`
	Seconds int      `json:"seconds"` // limit per test
}

// Limits of a share request.
const (
	maxShareSize    = 4 << 30
	maxShareSeconds = 600
	maxShareReply   = 1 << 20
)

type shareReply struct {
	Error  string       `json:"error,omitempty"`
	Wait   int          `json:"wait,omitempty"`
	Result *ShareResult `json:"result,omitempty"`
}

func sendShare(c net.Conn, r shareReply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// shareSession serves one share request (line is its JSON).
func (s *Server) shareSession(ctx context.Context, t *tracked, line string) {
	c := t.c
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	refuse := func(why string) { _ = sendShare(c, shareReply{Error: why}) }
	var r ShareRequest
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		refuse("bad share request")
		return
	}
	if r.V != protoVersion {
		refuse(fmt.Sprintf("protocol version %d, want %d: use the same nastune version on both ends", r.V, protoVersion))
		return
	}
	if s.Token == "" {
		// Without a token anyone who reaches the server could make it log
		// in with its SMB password to a server of their own.
		refuse("share tests need a token on both ends (" + "NASTUNE_BENCH_TOKEN)")
		s.log("refused share tests for " + t.peer + ": the server has no token")
		return
	}
	if !s.authorize(ctx, c, t.peer, r.Token, refuse) {
		return
	}
	if s.SharePassword == nil {
		refuse("this bench server does not run share tests")
		s.log("refused share tests for " + t.peer + ": not enabled here")
		return
	}
	u, err := ParseShareURL(r.URL)
	if err != nil {
		refuse("share URL: " + err.Error())
		return
	}
	if ip := net.ParseIP(u.Host); ip == nil || !ip.Equal(net.ParseIP(t.peer)) {
		refuse(fmt.Sprintf("share tests run only against the address that asks (%s), not %q", t.peer, u.Host))
		s.log(fmt.Sprintf("refused share tests for %s: the URL names another host", t.peer))
		return
	}
	if u.Scheme == "smb" && u.Port >= 1024 {
		// Any user of the asking machine can listen on a high port of its
		// address: an SMB server of theirs there would get this client's
		// NTLM response (its password, crackable offline, or relayed).
		// Only root serves below 1024.
		refuse(fmt.Sprintf("share tests over SMB run only against a port below 1024 of the asking address (one only root serves), not %d", u.Port))
		s.log(fmt.Sprintf("refused share tests for %s: SMB port %d", t.peer, u.Port))
		return
	}
	for _, name := range r.Tests {
		if !slices.Contains(ShareTests, name) {
			refuse(fmt.Sprintf("unknown share test %q", name))
			return
		}
	}
	if len(r.Tests) == 0 || r.Size < 1<<20 || r.Size > maxShareSize || r.Seconds < 1 || r.Seconds > maxShareSeconds {
		refuse(fmt.Sprintf("tests, size 1 MiB-%d MiB and seconds 1-%d", maxShareSize>>20, maxShareSeconds))
		return
	}
	s.hello(t)
	gone := watchGone(c)
	if !s.waitTurn(ctx, c, t.peer, gone, func(wait int, refusal string) error { return sendShare(c, shareReply{Wait: wait, Error: refusal}) }) {
		return
	}
	defer s.nextTurn()
	pw, err := s.SharePassword(u)
	if err != nil {
		refuse("the client has no SMB password: " + err.Error())
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-gone:
			cancel()
		case <-rctx.Done():
		}
	}()
	s.log(fmt.Sprintf("share tests for %s: %s on %s", t.peer, strings.Join(r.Tests, ","), u))
	res, err := RunShare(rctx, ShareOptions{URL: u, Password: pw, Tests: r.Tests, Size: r.Size, Time: time.Duration(r.Seconds) * time.Second})
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	if err != nil {
		refuse(err.Error())
		return
	}
	_ = sendShare(c, shareReply{Result: res})
}

// ErrShareRefused is a client's refusal of a share request.
var ErrShareRefused = errors.New("the client refused")

// RunShareOn asks the bench server at client (HOST[:PORT]) to run the
// share tests of r and returns its result. local, when set, is the address
// to connect from (the client runs tests only against the address that
// asks: the URL's host). A client that sends no result within
// ShareRequestTimeout(r) (dead, cut off, hung) is an error naming it.
func RunShareOn(ctx context.Context, client, local string, r ShareRequest) (*ShareResult, error) {
	return runShareOn(ctx, client, local, r, ShareRequestTimeout(r))
}

// shareSetup is what a share run may take besides its tests: connecting,
// logging in, creating and removing the test files.
const shareSetup = time.Minute

// shareFloorBPS is the slowest link a share request allows for: the test
// file is written once, untimed, before a read test (1 MB/s).
const shareFloorBPS = 1e6

// ShareRequestTimeout is how long RunShareOn waits for the result of r:
// per test its time limit and its file written once at 1 MB/s (the
// untimed preparation of a read test), plus a minute to connect and log
// in. While the client queues the request behind others, each one ahead
// gets the same again (a bench net test takes at most MaxSeconds).
func ShareRequestTimeout(r ShareRequest) time.Duration {
	per := time.Duration(r.Seconds)*time.Second + time.Duration(float64(r.Size)/shareFloorBPS*float64(time.Second))
	return shareSetup + time.Duration(max(len(r.Tests), 1))*per
}

func runShareOn(ctx context.Context, client, local string, r ShareRequest, timeout time.Duration) (*ShareResult, error) {
	r.V = protoVersion
	d := net.Dialer{Timeout: 10 * time.Second}
	if ip := net.ParseIP(local); ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	c, err := d.DialContext(ctx, "tcp", WithPort(client))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	limit := timeout
	_ = c.SetDeadline(start.Add(limit))
	if _, err := c.Write(append([]byte(shareMagic), append(b, '\n')...)); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(io.LimitReader(c, maxShareReply), 64<<10)
	lastWait := 0
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if ctx.Err() != nil {
				return nil, ErrInterrupted
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, fmt.Errorf("share tests on %s: no result within %s (the tests' time limit of %d s each and %d MiB written at 1 MB/s at worst, plus a minute to log in): is the client alive, and `nastune bench net -s` still running there?",
					client, limit.Round(time.Second), r.Seconds, r.Size>>20)
			}
			return nil, fmt.Errorf("share tests on %s: %w", client, err)
		}
		var rep shareReply
		if err := json.Unmarshal(line, &rep); err != nil {
			return nil, fmt.Errorf("share tests on %s: bad reply: %w", client, err)
		}
		cleanPeer(&rep)
		switch {
		case rep.Error != "":
			return nil, fmt.Errorf("%w: %s", ErrShareRefused, rep.Error)
		case rep.Result != nil:
			if err := checkPeerShareResult(rep.Result); err != nil {
				return nil, fmt.Errorf("share tests on %s: the result was rejected: %w", client, err)
			}
			return rep.Result, nil
		case rep.Wait > 0 && lastWait == 0:
			// Queued behind others: each ahead may take as long as this
			// request (bounded once, by the first position, as RunNet).
			lastWait = rep.Wait
			limit = timeout + time.Duration(min(rep.Wait, maxQueue))*max(timeout, (MaxSeconds+5)*time.Second)
			_ = c.SetDeadline(start.Add(limit))
		}
	}
}
