package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
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

// A hostile bench server's numbers: NaN, infinities, negative and
// impossible values are rejected with the field named, never judged or
// printed; a report within range passes.
func TestPeerNumbersChecked(t *testing.T) {
	good := func() AttribReport {
		return AttribReport{OK: true, Test: "seqread", Samples: 20, Seconds: 10, SamplingCPUPct: 1.2,
			Serving: []wire.ThreadSample{{PID: 900, TID: 901, Comm: "nfsd", CPUPct: 100.4, WaitPct: 3}},
			Bottlenecks: []wire.Bottleneck{
				{Kind: "cpu", Subject: "all CPUs", Utilization: 0.95, Rate: 1.9, Limit: 2},
				{Kind: "disk", Subject: "dm-0", Utilization: 0.97, Rate: 37e6, QueueDepth: 2.2, AwaitMS: 25.9},
				{Kind: "disk", Subject: "sda", Utilization: 1.1, Limit: 40e6},
				{Kind: "cpu", Subject: "nfsd threads", Utilization: 0.96, Rate: 16, Limit: 17}},
			Cgroups:  []wire.CgroupSample{{Path: "/sys/fs/cgroup/smb", CPUQuotaCores: 0.5, CPUUsedCores: 0.5, ThrottledPct: 80, IO: []wire.CgroupIO{{Device: "sda", LimitRBps: 41 << 20}}}},
			Settings: map[string]string{"nfsd threads": "8"}}
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		edit  func(r *AttribReport)
		field string // "" = accepted
	}{
		{"a plausible report", func(r *AttribReport) {}, ""},
		{"busy above 100%", func(r *AttribReport) { r.Bottlenecks[1].Utilization = 1.7 }, "bottlenecks[1].utilization"},
		{"busy NaN", func(r *AttribReport) { r.Bottlenecks[1].Utilization = nan }, "bottlenecks[1].utilization"},
		{"negative busy", func(r *AttribReport) { r.Bottlenecks[1].Utilization = -0.5 }, "bottlenecks[1].utilization"},
		{"a share of its limit beyond twice it", func(r *AttribReport) { r.Bottlenecks[2].Utilization = 50 }, "bottlenecks[2].utilization"},
		{"a thread on 3 cores", func(r *AttribReport) { r.Serving[0].CPUPct = 300 }, "serving[0].cpu_pct"},
		{"negative wait", func(r *AttribReport) { r.Serving[0].WaitPct = -1 }, "serving[0].runqueue_wait_pct"},
		{"sampling CPU above the server's cores", func(r *AttribReport) { r.SamplingCPUPct = 250 }, "sampling_cpu_pct"},
		{"sampling CPU infinite", func(r *AttribReport) { r.SamplingCPUPct = inf }, "sampling_cpu_pct"},
		{"more cores than any server", func(r *AttribReport) { r.Bottlenecks[0].Limit = 1e9 }, "the server's cores"},
		{"a rate of minus infinity", func(r *AttribReport) { r.Bottlenecks[1].Rate = math.Inf(-1) }, "bottlenecks[1].rate"},
		{"queue depth NaN", func(r *AttribReport) { r.Bottlenecks[1].QueueDepth = nan }, "bottlenecks[1].queue_depth"},
		{"queue depth absurd", func(r *AttribReport) { r.Bottlenecks[1].QueueDepth = 1e12 }, "bottlenecks[1].queue_depth"},
		{"negative latency", func(r *AttribReport) { r.Bottlenecks[1].AwaitMS = -3 }, "bottlenecks[1].await_ms"},
		{"a cgroup using more than the cores", func(r *AttribReport) { r.Cgroups[0].CPUUsedCores = 64 }, "cgroups[0].cpu_used_cores"},
		{"throttled above 100%", func(r *AttribReport) { r.Cgroups[0].ThrottledPct = 101 }, "cgroups[0].throttled_periods_pct"},
		{"a negative I/O limit", func(r *AttribReport) { r.Cgroups[0].IO[0].LimitRBps = -1 }, "cgroups[0].io[0].limit_read_bytes_per_s"},
		{"negative samples", func(r *AttribReport) { r.Samples = -4 }, "samples"},
		{"negative seconds", func(r *AttribReport) { r.Seconds = -1 }, "seconds"},
		{"a thread count that is no number", func(r *AttribReport) { r.Settings["nfsd threads"] = "1e9" }, `settings["nfsd threads"]`},
		{"more nfsd threads than the kernel allows", func(r *AttribReport) { r.Settings["nfsd threads"] = "100000" }, `settings["nfsd threads"]`},
	} {
		r := good()
		tc.edit(&r)
		err := checkPeerReport(&r)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: rejected: %v", tc.name, err)
		case tc.field != "" && (err == nil || !strings.Contains(err.Error(), tc.field)):
			t.Errorf("%s: %v, want the field %s named", tc.name, err, tc.field)
		case err != nil && strings.ContainsAny(err.Error(), "\n\r"):
			t.Errorf("%s: the message is not one line: %q", tc.name, err)
		}
	}
}

// The receiving end: a report with a hostile number is not kept (no
// verdict uses it), the session ends, and the run says why.
func TestAttribReportWithHostileNumbersRejected(t *testing.T) {
	rep := AttribReport{OK: true, Test: "seqread", Samples: 20, Seconds: 10,
		Bottlenecks: []wire.Bottleneck{{Kind: "disk", Subject: "sda", Utilization: 7, Why: "busy"}}}
	addr := hostilePeer(t, AttribReport{OK: true}, rep)
	a, err := dialAttrib(context.Background(), addr, "")
	if err != nil {
		t.Fatal(err)
	}
	r := &shareRun{attr: a}
	r.attrEnd("seqread", TestResult{Name: "seqread", MiBPerS: 40})
	if r.attr != nil || !strings.Contains(r.attrErr, "rejected") || !strings.Contains(r.attrErr, "bottlenecks[0].utilization") {
		t.Errorf("session %v, reason %q", r.attr, r.attrErr)
	}
	if v := r.views["seqread"]; len(v) != 1 || v[0].view.Samples != 0 || len(v[0].view.Bottlenecks) != 0 {
		t.Errorf("the hostile report was kept: %+v", v)
	}
	// A whole result from tune --share --client: the same checks.
	res := &ShareResult{Kind: "share", Tests: []TestResult{{Name: "seqread", MiBPerS: -5}}}
	addr = hostilePeer(t, shareReply{Result: res})
	_, err = RunShareOn(context.Background(), addr, "", ShareRequest{URL: "smb://127.0.0.1/s", Tests: []string{"seqread"}, Size: 1 << 20, Seconds: 1})
	if err == nil || !strings.Contains(err.Error(), "tests[0].mib_per_s") {
		t.Errorf("a negative rate from the client: %v", err)
	}
}
