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
	for _, want := range []string{"KNOB", "baseline", "final: all kept", "final: baseline again", "threshold:", "kept (run 000099", "8 → "} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "/sys/block/loop0/queue/"); n < len(res.Trials) {
		t.Errorf("%d trial rows for %d trials:\n%s", n, len(res.Trials), out)
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
