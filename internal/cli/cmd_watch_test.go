package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestSecondsFlag(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"30", 30 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"30s", 30 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"0", 0, false},
		{"-1", 0, true},
		{"soon", 0, true},
	}
	for _, c := range cases {
		got, err := durationFlag("for", c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("durationFlag(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestWatchCommand(t *testing.T) {
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code := Main(context.Background(), []string{"watch", "--for", "0.6", "--interval", "0.3", "-o", "json"}, env)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		IntervalS   float64           `json:"interval_s"`
		Samples     []json.RawMessage `json:"samples"`
		Bottlenecks []json.RawMessage `json:"bottlenecks"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if res.IntervalS != 0.3 || len(res.Samples) != 2 || res.Bottlenecks == nil {
		t.Errorf("interval %v, %d samples, bottlenecks %v; want 0.3, 2, a list", res.IntervalS, len(res.Samples), res.Bottlenecks)
	}
	for _, bad := range [][]string{{"watch", "-o", "yaml"}, {"watch", "--for", "0.1"}, {"watch", "--interval", "0"}, {"watch", "extra"}} {
		errb.Reset()
		if code := Main(context.Background(), bad, env); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, ExitUsage)
		}
		if !strings.Contains(errb.String(), "hint:") && bad[1] != "extra" {
			t.Errorf("%v: no hint in %q", bad, errb.String())
		}
	}
	out.Reset()
	if code := Main(context.Background(), []string{"watch", "--for", "0.6", "--interval", "0.3", "-o", "html"}, env); code != ExitOK {
		t.Fatalf("html: exit %d", code)
	}
	if h := out.String(); !strings.HasPrefix(h, "<!doctype html>") || !strings.Contains(h, "<svg") || strings.Contains(h, "<script") {
		t.Errorf("html page not self-contained with charts:\n%.300s", h)
	}
}

// watch sets a soft memory limit for its own RSS goal, and leaves a
// GOMEMLIMIT the user set alone.
func TestWatchMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(math.MaxInt64)
	watchMemoryLimit(func(string) string { return "64MiB" })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limit changed to %d", got)
	}
	watchMemoryLimit(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 8<<20 {
		t.Errorf("memory limit %d, want 8 MiB", got)
	}
}

// The live screen on a terminal: on main the home-and-clear nastune
// writes itself went through the terminal filter and was printed as the
// text "\x1b[H\x1b[2J", so the screen scrolled instead of redrawing.
func TestWatchLiveScreenDraws(t *testing.T) {
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, IsTTY: true, Getenv: func(string) string { return "" }}
	if code := Main(context.Background(), []string{"watch", "--for", "0.6", "--interval", "0.3"}, env); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, "\x1b[H\x1b[2Jnastune watch  t=") {
		t.Errorf("the live screen does not start with home-and-clear:\n%q", s[:min(len(s), 80)])
	}
	if strings.Contains(s, `\x1b[H`) {
		t.Error("nastune's own screen control was escaped")
	}
}
