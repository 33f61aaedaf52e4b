package tune

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// st is a Stat of three runs: lo, median, hi.
func st(lo, med, hi float64) Stat {
	return Stat{Median: med, Values: []float64{lo, med, hi}}
}

// pickRung keeps the last rung that gained: beyond the noise band
// (median and range) over the knob's own value and over the last rung
// below it that gained. Rungs in ascending order, as runLadder measures
// them; own is the knob's own value (8 unless said).
func TestPickRung(t *testing.T) {
	ref := st(90, 100, 110) // the knob's own value
	cases := []struct {
		name string
		rs   []rung
		own  int64
		thr  float64
		keep int64 // the value kept, 0: none
		flat int   // rungs above own without a gain since the kept one
	}{
		// The failing case of the earlier rule (the highest median beyond
		// the knob's own value was the best, and the smallest value it
		// did not beat beyond the band was kept): 512's median is 25%
		// above 128's, but its range overlaps 128's (165 ≤ 170), so it
		// gained only within the noise; the best, 1024, beats 512 by
		// 5% only, and 512 was kept. 1024 beats 128 clearly: 1024.
		{"a rung within the noise of the one below is no gain", []rung{{128, st(150, 160, 170)}, {512, st(165, 200, 260)}, {1024, st(180, 210, 250)}}, 8, 0.2, 1024, 0},
		{"nothing beyond the reference", []rung{{128, st(95, 104, 115)}, {512, st(80, 98, 120)}}, 8, 0.2, 0, 2},
		{"one value pays", []rung{{128, st(95, 104, 115)}, {512, st(150, 160, 170)}}, 8, 0.2, 512, 0},
		// 512 beats 128; 1024 and 4096 do not beat 512: the plateau.
		{"the smallest on the plateau", []rung{{128, st(150, 160, 170)}, {512, st(280, 300, 330)}, {1024, st(300, 320, 340)}, {4096, st(280, 310, 345)}}, 8, 0.2, 512, 2},
		{"the largest beats the smaller ones", []rung{{128, st(150, 160, 170)}, {512, st(250, 260, 270)}, {4096, st(700, 739, 760)}}, 8, 0.2, 4096, 0},
		// A wide band: 413 and 739 cannot be told apart; the smaller value.
		{"a wide band keeps the smaller value", []rung{{1024, st(300, 413, 500)}, {4096, st(450, 739, 800)}}, 8, 0.74, 1024, 1},
		// A smaller value not beyond the reference is never kept.
		{"smaller but not beyond the reference", []rung{{128, st(90, 120, 160)}, {1024, st(140, 150, 160)}}, 8, 0.2, 1024, 0},
		// Gains that add up count: 512 is within the band of 128, 1024
		// beats 128 (the last that gained), not only its neighbour.
		{"steps smaller than the band add up", []rung{{128, st(150, 160, 170)}, {512, st(175, 185, 195)}, {1024, st(210, 215, 220)}}, 8, 0.2, 1024, 0},
		// A rung measured during a load spike: one flat rung, the next
		// gains over the last that gained.
		{"a spike does not end the ladder", []rung{{128, st(150, 160, 170)}, {512, st(130, 140, 150)}, {1024, st(300, 310, 320)}, {4096, st(300, 315, 330)}}, 8, 0.2, 1024, 1},
		// Rungs at or below the knob's own value (2560) are measured but
		// are not on the way up: they do not count toward the plateau.
		{"rungs below the own value do not make the plateau", []rung{{128, st(40, 50, 60)}, {512, st(70, 80, 90)}, {1024, st(95, 100, 105)}, {4096, st(150, 160, 170)}}, 2560, 0.2, 4096, 0},
		{"a smaller value that is faster", []rung{{128, st(40, 50, 60)}, {1024, st(150, 160, 170)}, {4096, st(150, 165, 180)}}, 2560, 0.2, 1024, 1},
		{"empty", nil, 8, 0.05, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, flat := pickRung(c.rs, c.own, ref, c.thr)
			got := int64(0)
			if k >= 0 {
				got = c.rs[k].value
			}
			if got != c.keep || flat != c.flat {
				t.Errorf("keep %d (flat %d), want %d (flat %d)", got, flat, c.keep, c.flat)
			}
		})
	}
}

func TestReadAheadExtendKB(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		ram  uint64
		want int
	}{
		{0, 0},                   // unknown memory: no extension
		{128 * mib, 512},         // the audit's cap (and RAM ÷ 256)
		{256 * mib, 1024},        // the audit's cap
		{512 * mib, 2048},        // RAM ÷ 256
		{1 << 30, 4096},          // RAM ÷ 256
		{3 << 30, 8192},          // 12 MiB, down to a power of two
		{24 << 30, 65536},        // 96 MiB, down to a power of two
		{1 << 40, 64 << 10},      // the ceiling
		{600 * 1024, 2},          // a toy: RAM ÷ 256 = 2 KiB (Knobs drops an extension below the ladder)
		{1000 * mib, 2048},       // 3.9 MiB: 2048
		{160 * mib, 512},         // the cap's edge
		{160*mib + 4096, 512},    // 640 KiB ÷ … but RAM ÷ 256 = 640: 512
		{320*mib + 4096, 1024},   // no cap above 320 MiB: RAM ÷ 256 = 1280: 1024
		{2*mib*1024 - 1, 4096},   // just under 2 GiB
		{2 * mib * 1024, 8192},   // 2 GiB: 8 MiB
		{16 * mib * 1024, 65536}, // 64 MiB
	}
	for _, c := range cases {
		if got := ReadAheadExtendKB(c.ram); got != c.want {
			t.Errorf("RAM %d: %d KiB, want %d", c.ram, got, c.want)
		}
	}
}

// Knobs offers the extension where the memory allows it, not on a small
// box, and not without knowing the memory.
func TestReadAheadExtensionByMemory(t *testing.T) {
	sys := sysTree(t)
	for _, c := range []struct {
		h    *facts.Host
		want int
	}{
		{&facts.Host{Memory: facts.Memory{TotalBytes: 128 << 20}}, 0},
		{&facts.Host{Memory: facts.Memory{TotalBytes: 1 << 30}}, 0}, // 4096 is the ladder's top
		{&facts.Host{Memory: facts.Memory{TotalBytes: 4 << 30}}, 16384},
		{nil, 0},
	} {
		k := Knobs(sys, []Device{{Name: "sda", Kind: "disk", PageCache: true}}, c.h)
		if len(k) == 0 || k[0].Attr != "read_ahead_kb" || !k[0].Ladder || k[0].ExtendTo != int64(c.want) {
			t.Errorf("%+v: %+v, want extend_to %d", c.h, k, c.want)
		}
	}
}

// raCurve is a device whose sequential reads gain with read-ahead up to
// flat KiB, by about +40% per doubling (each step of the ladder smaller
// than a wide noise band, the total large), then stay flat.
func raCurve(flat float64) func(map[string]string) float64 {
	return func(v map[string]string) float64 {
		kb, _ := strconv.ParseFloat(v[ra], 64)
		return 50 * math.Pow(1.4, math.Log2(min(kb, flat)/8))
	}
}

func orderedRA(vals map[string]string, extendTo int64) []Knob {
	return []Knob{{Path: ra, Attr: "read_ahead_kb", Current: vals[ra], Values: without([]string{"128", "512", "1024", "4096"}, vals[ra]), Ladder: true, ExtendTo: extendTo}}
}

func TestOrderedKnob(t *testing.T) {
	cases := []struct {
		name     string
		flat     float64
		noise    float64
		extendTo int64
		want     []string // acceptable kept values
		trials   string   // the values tried, in order
	}{
		// Gains go on past the ladder: doubling until they flatten (two
		// doublings in a row without a gain: the plateau).
		{"extends while gains continue", 16384, 0.02, 65536, []string{"16384"}, "128,512,1024,4096,8192,16384,32768,65536"},
		// The memory bound stops the extension.
		{"bounded by memory", 16384, 0.02, 8192, []string{"8192"}, "128,512,1024,4096,8192"},
		{"no extension without a bound", 16384, 0.02, 0, []string{"4096"}, "128,512,1024,4096"},
		// Flat from 1024: the last value that gained; 4096 and 8192
		// (the first doubling) are the plateau.
		{"flat from 1024", 1024, 0.02, 65536, []string{"1024"}, "128,512,1024,4096,8192"},
		// A wide band (±12% noise, about 24%): each ×4 step of the
		// ladder (+96%) is beyond it; flat from 4096, so 8192 and 16384
		// are tried too.
		{"wide band", 4096, 0.12, 65536, []string{"4096"}, "128,512,1024,4096,8192,16384"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vals := map[string]string{ra: "8"}
			f := newFake(vals, raCurve(c.flat), c.noise)
			res, err := Run(context.Background(), f.measure, f, opts(orderedRA(vals, c.extendTo)))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.live) != 0 {
				t.Errorf("trial runs left live: %v", f.live)
			}
			var tried []string
			kept := 0
			for _, tr := range res.Trials {
				tried = append(tried, tr.To)
				if tr.From != "8" {
					t.Errorf("trial %s from %s: every value of an ordered knob is tried from the knob's own value", tr.To, tr.From)
				}
				if tr.Why == "" {
					t.Errorf("trial %s has no why", tr.To)
				}
				if tr.Verdict == "kept" {
					kept++
				} else if tr.ReadBack != "8" {
					t.Errorf("trial %s reverted to %q", tr.To, tr.ReadBack)
				}
			}
			if got := strings.Join(tried, ","); got != c.trials {
				t.Errorf("tried %s, want %s", got, c.trials)
			}
			if len(res.Kept) != 1 || kept != 1 || !contains(c.want, res.Kept[0].To) {
				t.Fatalf("kept %+v (%d trials kept), want one of %v\n%s", res.Kept, kept, c.want, whys(res))
			}
			if f.vals[ra] != res.Kept[0].To {
				t.Errorf("read-ahead is %s after the run, want the kept %s", f.vals[ra], res.Kept[0].To)
			}
		})
	}
}

// A ladder where nothing pays keeps nothing and leaves the value; its
// first two rungs are the plateau.
func TestOrderedKnobNothingPays(t *testing.T) {
	vals := map[string]string{ra: "128"}
	f := newFake(vals, func(map[string]string) float64 { return 500 }, 0.05)
	res, err := Run(context.Background(), f.measure, f, opts(orderedRA(vals, 65536)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 0 || len(f.persist) != 0 || f.vals[ra] != "128" || len(f.live) != 0 {
		t.Errorf("kept %+v, read-ahead %s, live %v", res.Kept, f.vals[ra], f.live)
	}
	if len(res.Trials) != 2 || !strings.Contains(res.Trials[1].Why, "the plateau (2 rungs in a row without a gain): the larger 4096 not tried") {
		t.Errorf("%d trials, want 512 and 1024, which are the plateau (no 4096, no extension without a gain)\n%s", len(res.Trials), whys(res))
	}
}

// A value the kernel refuses ends the extension.
func TestOrderedKnobRefusedExtension(t *testing.T) {
	vals := map[string]string{ra: "8"}
	f := newFake(vals, raCurve(65536), 0.02)
	f.refuse[ra+"=16384"] = true
	res, err := Run(context.Background(), f.measure, f, opts(orderedRA(vals, 65536)))
	if err != nil {
		t.Fatal(err)
	}
	last := res.Trials[len(res.Trials)-1]
	if last.To != "16384" || last.Error == "" {
		t.Errorf("last trial %+v, want 16384 refused", last)
	}
	if len(res.Kept) != 1 || res.Kept[0].To != "8192" {
		t.Errorf("kept %+v, want 8192", res.Kept)
	}
}

func contains(v []string, x string) bool {
	for _, s := range v {
		if s == x {
			return true
		}
	}
	return false
}

func whys(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "band %.1f%%\n", r.ThresholdPct)
	for _, t := range r.Trials {
		fmt.Fprintf(&b, "  %s → %s: %.1f (%v) %s: %s\n", t.From, t.To, t.Median, t.Values, t.Verdict, t.Why)
	}
	return b.String()
}

// The report says how an ordered knob is judged, only when there is one.
func TestReportSaysHowOrderedKnobsAreJudged(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		vals := map[string]string{ra: "8"}
		k := orderedRA(vals, 0)
		k[0].Ladder = ordered
		f := newFake(vals, raCurve(1024), 0.02)
		res, err := Run(context.Background(), f.measure, f, opts(k))
		if err != nil {
			t.Fatal(err)
		}
		var text, page bytes.Buffer
		WriteText(&text, res)
		if err := WriteHTML(&page, res); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"text": text.String(), "html": page.String()} {
			if got := strings.Contains(out, "the smallest that"); got != ordered {
				t.Errorf("ordered %v: %s says how ordered knobs are judged: %v\n%s", ordered, name, got, out)
			}
		}
	}
}

// A knob whose own value is above every rung of the ladder (read-ahead at
// 8192 KiB, rungs up to 4096) has no rung above it yet: the plateau is not
// reached, so the ladder doubles from the own value up to ExtendTo, as
// `tune --list` says it will ("then doubles up to 65536"). It stopped
// after the rungs below, never trying a larger value.
func TestLadderExtendsAboveTheOwnValue(t *testing.T) {
	vals := map[string]string{ra: "8192"}
	f := newFake(vals, raCurve(65536), 0.02)
	res, err := Run(context.Background(), f.measure, f, opts(orderedRA(vals, 65536)))
	if err != nil {
		t.Fatal(err)
	}
	var tried []string
	for _, tr := range res.Trials {
		tried = append(tried, tr.To)
	}
	if got, want := strings.Join(tried, ","), "128,512,1024,4096,16384,32768,65536"; got != want {
		t.Errorf("tried %s, want %s\n%s", got, want, whys(res))
	}
	if len(res.Kept) != 1 || res.Kept[0].To != "65536" || f.vals[ra] != "65536" {
		t.Errorf("kept %+v (read-ahead %s), want 65536\n%s", res.Kept, f.vals[ra], whys(res))
	}
}
