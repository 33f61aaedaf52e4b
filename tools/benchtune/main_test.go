package main

import (
	"strings"
	"testing"
)

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		r            row
		ratio, verdi string
	}{
		{row{base: 100, tune: 190, hand: 200, tuneLabel: "kept 512 KiB"}, "0.90", "ok"},
		{row{base: 100, tune: 150, hand: 200, tuneLabel: "kept 128 KiB"}, "0.50", "below"},
		{row{base: 100, tune: 102, hand: 104, tuneLabel: "kept nothing"}, "-", "ok (nothing pays, nothing kept)"},
		{row{base: 100, tune: 101, hand: 99, tuneLabel: "kept 8 KiB"}, "-", "below (kept a value where none pays)"},
		{row{base: 10, tune: 80, hand: 60, tuneLabel: "kept x"}, "1.40", "ok"},
	} {
		q, v := c.r.verdict()
		if q != c.ratio || v != c.verdi {
			t.Errorf("%+v: %s %s, want %s %s", c.r, q, v, c.ratio, c.verdi)
		}
	}
}

func TestParseRender(t *testing.T) {
	rows, err := parse(strings.NewReader("d1\tMB/s (dd)\t8 KiB\t136\tkept 512 KiB\t600\t1024 KiB\t678\n\n"))
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	got := render(rows)
	want := "| demo | baseline             | tune kept → result | best hand value → result | tune gain ÷ hand gain | goal  | verdict |\n" +
		"|------|----------------------|--------------------|--------------------------|-----------------------|-------|---------|\n" +
		"| d1   | 8 KiB: 136 MB/s (dd) | kept 512 KiB → 600 | 1024 KiB → 678           | 0.86                  | ≥ 0.9 | below   |\n"
	if got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"a\tb\n", "d\tu\tb\tx\tt\t1\th\t2\n"} {
		if _, err := parse(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: err %v, want one naming line 1", bad, err)
		}
	}
}

func TestSplice(t *testing.T) {
	doc := "a\n" + beginMarker + "\nold\n" + endMarker + "\nb\n"
	got, err := splice([]byte(doc), "| x |\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n" + beginMarker + "\n\n    | x |\n\n" + endMarker + "\nb\n"; string(got) != want {
		t.Errorf("%q, want %q", got, want)
	}
	// Splicing again gives the same file.
	again, _ := splice(got, "| x |\n")
	if string(again) != string(got) {
		t.Errorf("not idempotent: %q", again)
	}
	if _, err := splice([]byte("no markers"), "x"); err == nil {
		t.Error("no error without markers")
	}
}
