package main

import (
	"strings"
	"testing"
)

// one is a value read the same in every round.
func one(v float64) stat { return stat{v, v, v} }

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		name         string
		r            row
		ratio, verdi string
	}{
		{"tune reaches 0.9", row{base: one(100), tune: one(190), hand: one(200), tuneLabel: "kept 512 KiB"}, "0.90", "ok"},
		{"tune short, ranges apart", row{base: one(100), tune: one(150), hand: one(200), tuneLabel: "kept 128 KiB"}, "0.50", "below"},
		{"hand within 5%", row{base: one(100), tune: one(102), hand: one(104), tuneLabel: "kept nothing"}, "-", "ok (nothing pays, nothing kept)"},
		{"kept where none pays", row{base: one(100), tune: one(101), hand: one(99), tuneLabel: "kept 8 KiB"}, "-", "below (kept a value where none pays)"},
		{"tune above hand", row{base: one(10), tune: one(80), hand: one(60), tuneLabel: "kept x"}, "1.40", "ok"},
		// make bench's demo 2 (randread4k-qd1, O_DIRECT): a stall under
		// load in the final rounds put 128 KiB's median at 0.9 and
		// 1024 KiB's at 37.9; one round of 128 read 41, above 1024's
		// slowest: the hand value does not beat the baseline, nothing
		// pays. (The old verdict: hand gain 40×, ratio 0.00, below.)
		{"demo 2: a stall, hand's slowest not above baseline's fastest",
			row{base: stat{0.9, 0.8, 41.2}, tune: stat{0.9, 0.8, 41.2}, hand: stat{37.9, 1.1, 46.0}, tuneLabel: "kept nothing"}, "-", "ok (nothing pays, nothing kept)"},
		// The --share row: tune kept socket options = TCP_NODELAY
		// (Samba's default, the same as removing the line), 40.7
		// against removed 44.9: ratio 0.90 (0.896), within each
		// other's rounds. (The old verdict: below.)
		{"share: tune and hand overlap",
			row{base: stat{4.7, 4.5, 4.9}, tune: stat{40.7, 38.2, 45.3}, hand: stat{44.9, 41.0, 47.1}, tuneLabel: "socket options = TCP_NODELAY"}, "0.90", "ok (as good as the hand value within noise)"},
		// Clearly below: the hand value pays, tune's fastest round is
		// below the hand value's slowest.
		{"clear below", row{base: stat{100, 95, 105}, tune: stat{150, 140, 160}, hand: stat{300, 280, 320}, tuneLabel: "kept 128 KiB"}, "0.25", "below"},
		// The hand value's median gains beyond 5% and its rounds are
		// above the baseline's, but not beyond the baseline's own noise
		// band (range 60 on 100: 60%): nothing pays.
		// No hand value pays, but tune's does by the same rule.
		{"tune pays, no hand value does", row{base: stat{100, 95, 105}, tune: stat{200, 180, 220}, hand: stat{120, 100, 130}, tuneLabel: "kept 512 KiB"}, "-", "ok (tune's value pays, no hand value does)"},
		{"hand within the baseline's band", row{base: stat{100, 50, 110}, tune: one(100), hand: stat{150, 120, 160}, tuneLabel: "kept nothing"}, "-", "ok (nothing pays, nothing kept)"},
	} {
		q, v := c.r.verdict()
		if q != c.ratio || v != c.verdi {
			t.Errorf("%s: %+v: %s %s, want %s %s", c.name, c.r, q, v, c.ratio, c.verdi)
		}
	}
}

func TestParseRender(t *testing.T) {
	rows, err := parse(strings.NewReader("d1\tMB/s (dd)\t8 KiB\t136\t130\t140\tkept 512 KiB\t600\t590\t610\t1024 KiB\t678\t678\t678\n\n"))
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	got := render(rows)
	want := "| demo | baseline                       | tune kept → result           | best hand value → result | tune gain ÷ hand gain | goal  | verdict |\n" +
		"|------|--------------------------------|------------------------------|--------------------------|-----------------------|-------|---------|\n" +
		"| d1   | 8 KiB: 136 (130–140) MB/s (dd) | kept 512 KiB → 600 (590–610) | 1024 KiB → 678           | 0.86                  | ≥ 0.9 | below   |\n"
	if got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{
		"a\tb\n",
		"d\tu\tb\tx\t1\t2\tt\t1\t1\t1\th\t2\t2\t2\n", // not a number
		"d\tu\tb\t1\tt\t1\th\t2\n",                   // the old 8-field row
		"d\tu\tb\t5\t1\t2\tt\t1\t1\t1\th\t2\t2\t2\n", // median above max
	} {
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
