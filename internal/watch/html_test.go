package watch

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

func htmlResult() *Result {
	var ss []Sample
	for i := range 20 {
		f := float64(i)
		ss = append(ss, Sample{T: f + 1, Interval: 1,
			CPU:     CPUSample{BusyPct: 40 + f, Cores: []CoreShare{{CPU: 0, BusyPct: 99}, {CPU: 1, BusyPct: f}}},
			PSI:     PSISample{Available: true, CPUSomePct: 5, IOSomePct: f},
			Threads: []ThreadSample{{PID: 900, TID: 901, Comm: "smbd<x>", ProcessComm: "smbd", CPUPct: 97}},
			Disks:   []DiskSample{{Name: "sda", UtilPct: 30 + 2*f}},
			NICs:    []NICSample{{Name: "eth0", TxBps: 900e6 + f*1e6, SpeedBps: 1e9}}})
	}
	return &Result{IntervalS: 1, Samples: ss, Bottlenecks: Bottlenecks(ss)}
}

func TestHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlResult()); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{"<!doctype html>", `content="default-src 'none'`, "@media print", "<polyline", "smbd&lt;x&gt;", "eth0", "Disk utilization"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "smbd<x>"} {
		if strings.Contains(h, bad) {
			t.Errorf("page contains %q (must be self-contained and escaped)", bad)
		}
	}
	// The real browser renders it: the charts are in the DOM and a
	// screenshot at laptop width is drawn.
	browser := testutil.Chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "watch.html")
	os.WriteFile(page, b.Bytes(), 0o644)
	shot := filepath.Join(dir, "watch.png")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile")}
	cmd := exec.Command(browser, append(args, "--dump-dom", "file://"+page)...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatal("chromium did not finish in 90 s")
	}
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if n := strings.Count(string(out), "<polyline"); n < 5 {
		t.Errorf("%d polylines in the rendered DOM, want the charts", n)
	}
	if err := exec.Command(browser, append(args, "--screenshot="+shot, "--window-size=1000,1400", "--hide-scrollbars", "file://"+page)...).Run(); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("WATCH_KEEP_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(keep, data, 0o644)
	}
}
