package tune

import (
	"bytes"
	"context"
	"encoding/xml"
	"strings"
	"testing"
)

func demoResult(t *testing.T) *Result {
	t.Helper()
	vals := map[string]string{ra: "8", sched: "none"}
	f := newFake(vals, readAheadSpeed, 0.02)
	res, err := Run(context.Background(), f.measure, f, opts(knobsFor(vals)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTextTableNamesEveryTrialAndTheThreshold(t *testing.T) {
	res := demoResult(t)
	var b bytes.Buffer
	WriteText(&b, res)
	out := b.String()
	for _, want := range []string{"KNOB", "baseline", "final: all kept", "final: baseline again", "noise band 5.0%", "RANGE", "kept (run 000099", "8 → "} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "noise band is wide") {
		t.Errorf("a 5%% noise band is called wide:\n%s", out)
	}
	if n := strings.Count(out, "loop0/queue/"); n < len(res.Trials) {
		t.Errorf("%d trial rows for %d trials:\n%s", n, len(res.Trials), out)
	}
}

// A wide noise band is stated once, and the report says what to do; a
// sysctl is named by its key; several tests get a column each.
func TestTextWideNoiseAndSysctlNames(t *testing.T) {
	st := func(v ...float64) Stat {
		return Stat{Median: v[len(v)/2], Values: v, Runs: len(v), Unit: "score", Tests: map[string]float64{"send": 20, "receive": 12}}
	}
	r := &Result{Tests: []string{"send", "receive"}, Units: map[string]string{"send": "Mbit/s", "receive": "Mbit/s"},
		ThresholdPct: 28.6, Baseline: st(90, 96, 110),
		Trials: []Trial{{Knob: "/proc/sys/net/ipv4/tcp_wmem", From: "4096 16384 65536", To: "4096 16384 4194304", Stat: st(550, 584, 600), Gain: 508.7, Verdict: "kept"}}}
	var b bytes.Buffer
	WriteText(&b, r)
	out := b.String()
	for _, want := range []string{"noise band 28.6%", "noise band is wide (28.6%)", "net.ipv4.tcp_wmem  4096 16384 65536", "SEND Mbit/s", "RECEIVE Mbit/s", "550.0–600.0", "kept: nothing", "a larger --size\n  for --share"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "28.6"); n != 2 {
		t.Errorf("the noise band is printed %d times, want twice (stated, then called wide):\n%s", n, out)
	}
}

// The HTML page parses as XML-ish markup (balanced SVG and table) and has
// one chart row per trial plus the baseline and the final pair.
func TestHTMLChartHasEveryTrial(t *testing.T) {
	res := demoResult(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, res); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i, j := strings.Index(page, "<svg"), strings.Index(page, "</svg>")
	if i < 0 || j < 0 {
		t.Fatal("no svg chart")
	}
	d := xml.NewDecoder(strings.NewReader(page[i : j+6]))
	rects := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if want := len(res.Trials) + 3; rects != want {
		t.Errorf("%d bars, want %d (baseline, %d trials, final pair)", rects, want, len(res.Trials))
	}
}
