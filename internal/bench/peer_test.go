package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/watch/wire"
)

// hostilePeer listens on loopback and answers every line it reads with the
// next of replies (one JSON line each).
func hostilePeer(t *testing.T, replies ...any) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		rd := bufio.NewReader(c)
		for _, r := range replies {
			if _, err := rd.ReadString('\n'); err != nil {
				return
			}
			b, _ := json.Marshal(r)
			c.Write(append(b, '\n'))
		}
		rd.ReadString('\n')
	}()
	return ln.Addr().String()
}

const forged = "smbd\nseqread: network (10.0.0.1): the share moves 100% of what raw TCP moves\r"

// everyString calls f with every string reachable from v.
func everyString(v reflect.Value, f func(string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			everyString(v.Elem(), f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			everyString(v.Field(i), f)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			everyString(v.Index(i), f)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			everyString(it.Key(), f)
			everyString(it.Value(), f)
		}
	case reflect.String:
		f(v.String())
	}
}

func checkOneLine(t *testing.T, what string, v any) {
	t.Helper()
	n := 0
	everyString(reflect.ValueOf(v), func(s string) {
		n++
		if strings.ContainsAny(s, "\n\r") || len(s) > maxPeerString+len("…") {
			t.Errorf("%s: a peer's string reaches nastune with a line break or unbounded (%d bytes): %.80q", what, len(s), s)
		}
	})
	if n == 0 {
		t.Fatalf("%s: no strings to check", what)
	}
}

// A hostile bench server's attribution report: its strings cannot forge
// a line of nastune's output (a verdict, a note) nor flood it.
func TestAttribReportFromPeerIsOneLine(t *testing.T) {
	long := strings.Repeat("é", 100000)
	rep := AttribReport{OK: true, Test: "seqread", Samples: 20, Seconds: 10, SharePath: forged, Devices: []string{forged},
		Notes: []string{forged, long}, Settings: map[string]string{forged: forged}}
	rep.Serving = append(rep.Serving, wire.ThreadSample{Comm: forged, ProcessComm: forged})
	addr := hostilePeer(t, AttribReport{OK: true}, AttribReport{OK: true, Error: forged}, rep)
	a, err := dialAttrib(context.Background(), addr, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := a.begin(attribMsg{Begin: "seqread"})
	if err != nil {
		t.Fatal(err)
	}
	checkOneLine(t, "begin's reply", &b)
	got, err := a.end()
	if err != nil {
		t.Fatal(err)
	}
	checkOneLine(t, "the report", &got)
	if got.Notes[0] != `smbd\x0aseqread: network (10.0.0.1): the share moves 100% of what raw TCP moves\x0d` {
		t.Errorf("the note is not shown as one line: %q", got.Notes[0])
	}
	if len(got.Settings) != 1 {
		t.Errorf("settings %q", got.Settings)
	}
}

// A hostile client's answer to tune --share --client: the same.
func TestShareResultFromPeerIsOneLine(t *testing.T) {
	res := &ShareResult{Kind: "share", URL: forged, ShareInfo: ShareInfo{Protocol: "smb", Dialect: forged, Notes: []string{forged}},
		Tests: []TestResult{{Name: forged}}, Limit: []ShareLimit{{Test: "seqread", Layer: forged, Why: forged, Evidence: []string{forged}}},
		Server: map[string]*ShareServerView{forged: {AttribReport: AttribReport{Notes: []string{forged}}}}, Attribution: forged}
	addr := hostilePeer(t, shareReply{Result: res})
	got, err := RunShareOn(context.Background(), addr, "", ShareRequest{URL: "smb://127.0.0.1/s", Tests: []string{"seqread"}, Size: 1 << 20, Seconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkOneLine(t, "the share result", got)
	addr = hostilePeer(t, shareReply{Error: forged})
	_, err = RunShareOn(context.Background(), addr, "", ShareRequest{URL: "smb://127.0.0.1/s", Tests: []string{"seqread"}, Size: 1 << 20, Seconds: 1})
	if err == nil || strings.ContainsAny(err.Error(), "\n\r") {
		t.Errorf("the refusal: %q", err)
	}
}
