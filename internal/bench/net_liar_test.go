package bench

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// liarServer is a fake bench server: it answers the control hello with
// hello (lines, each ending in \n), drains any data connection, and after
// DONE answers fin.
func liarServer(t *testing.T, hello, fin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if strings.HasPrefix(line, dataMagic) {
					_, _ = io.Copy(io.Discard, br)
					return
				}
				if _, err := io.WriteString(c, hello); err != nil {
					return
				}
				if line, _ = br.ReadString('\n'); line == "DONE\n" {
					_, _ = io.WriteString(c, fin)
				}
			}(c)
		}
	}()
	return l.Addr().String()
}

// A server that claims to have read more than the client wrote does not
// make the sending stream faster than it was.
func TestNetServerClaimsMoreBytes(t *testing.T) {
	addr := liarServer(t, `{"ok":true,"id":"x"}`+"\n", `{"bytes":1152921504606846976}`+"\n")
	r, err := RunNet(context.Background(), NetOptions{Server: addr, Streams: 1, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Bytes <= 0 || r.Bytes >= 1<<60 {
		t.Errorf("bytes %d: the server's claim of 2^60 bytes was taken", r.Bytes)
	}
	addr = liarServer(t, `{"ok":true,"id":"x"}`+"\n", `{"bytes":-5}`+"\n")
	if r, err = RunNet(context.Background(), NetOptions{Server: addr, Streams: 1, Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	if r.Bytes != 0 || r.BitsPerSecond != 0 {
		t.Errorf("a negative count gave %d bytes, %v bit/s", r.Bytes, r.BitsPerSecond)
	}
}

// A server that keeps the client waiting with queue positions that do not
// move forward is refused, not waited for forever.
func TestNetServerEndlessWait(t *testing.T) {
	for _, hello := range []string{
		strings.Repeat(`{"wait":1}`+"\n", 50),
		`{"wait":3}` + "\n" + `{"wait":4}` + "\n",
		`{"wait":-1}` + "\n" + `{"wait":-1}` + "\n",
	} {
		addr := liarServer(t, hello, "")
		waits := 0
		_, err := RunNet(context.Background(), NetOptions{Server: addr, Streams: 1, Duration: time.Second, OnWait: func(int) { waits++ }})
		if err == nil || !strings.Contains(err.Error(), "queue position") {
			t.Errorf("%q: err %v, want a refused queue position", hello, err)
		}
		if waits > 1 {
			t.Errorf("%q: waited %d times", hello, waits)
		}
	}
}
