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

func TestPickRung(t *testing.T) {
	ref := st(90, 100, 110) // the knob's own value
	cases := []struct {
		name       string
		rs         []rung
		thr        float64
		keep, best int // values, 0: none
	}{
		{"nothing beyond the reference", []rung{{128, st(95, 104, 115)}, {512, st(80, 98, 120)}}, 0.2, 0, 0},
		{"one value pays", []rung{{128, st(95, 104, 115)}, {512, st(150, 160, 170)}}, 0.2, 512, 512},
		// 1024 is the best, 512 within its noise band: the smaller one.
		{"smallest within the band of the best", []rung{{128, st(150, 160, 170)}, {512, st(280, 300, 330)}, {1024, st(300, 320, 340)}, {4096, st(280, 310, 345)}}, 0.2, 512, 1024},
		// The best beats 512 beyond the band (median and ranges): 4096.
		{"the best beats the smaller ones", []rung{{128, st(150, 160, 170)}, {512, st(250, 260, 270)}, {4096, st(700, 739, 760)}}, 0.2, 4096, 4096},
		// A wide band: 413 and 739 cannot be told apart; the smaller value.
		{"a wide band keeps the smaller value", []rung{{1024, st(300, 413, 500)}, {4096, st(450, 739, 800)}}, 0.74, 1024, 4096},
		// A smaller value not beyond the reference is never kept, even
		// within the band of the best.
		{"smaller but not beyond the reference", []rung{{128, st(90, 120, 160)}, {1024, st(140, 150, 160)}}, 0.2, 1024, 1024},
		// The order of the trials does not matter (an extension is
		// measured last, the current value may sit in the middle).
		{"order of trials", []rung{{4096, st(300, 320, 340)}, {128, st(150, 160, 170)}, {1024, st(290, 310, 330)}}, 0.2, 1024, 4096},
		{"empty", nil, 0.05, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, b := pickRung(c.rs, ref, c.thr)
			val := func(i int) int {
				if i < 0 {
					return 0
				}
				return c.rs[i].value
			}
			if val(k) != c.keep || val(b) != c.best {
				t.Errorf("keep %d best %d, want keep %d best %d", val(k), val(b), c.keep, c.best)
			}
		})
	}
}

func TestNextRung(t *testing.T) {
	ref := st(90, 100, 110)
	ladder := func(top Stat) []rung {
		return []rung{{128, st(150, 160, 170)}, {512, st(250, 260, 270)}, {1024, st(300, 320, 340)}, {4096, top}}
	}
	cases := []struct {
		name  string
		rs    []rung
		cur   int
		thr   float64
		limit int
		want  int
	}{
		{"the top gains beyond the band over the one below", ladder(st(500, 520, 540)), 8, 0.2, 65536, 8192},
		{"the top within the band of the one below", ladder(st(310, 340, 360)), 8, 0.2, 65536, 0},
		{"the top is not the best", ladder(st(280, 300, 320)), 8, 0.05, 65536, 0},
		{"ranges overlap", ladder(st(330, 520, 540)), 8, 0.2, 65536, 0},
		{"the memory bound", ladder(st(500, 520, 540)), 8, 0.2, 4096, 0},
		{"no bound: no extension", ladder(st(500, 520, 540)), 8, 0.2, 0, 0},
		{"the bound allows exactly the doubling", ladder(st(500, 520, 540)), 8, 0.2, 8192, 8192},
		// Extended once already: 8192 beats 4096 beyond the band.
		{"again", append(ladder(st(500, 520, 540)), rung{8192, st(700, 720, 740)}), 8, 0.2, 65536, 16384},
		// The knob's own value (ref) is the next smaller one.
		{"the reference is the one below", []rung{{128, st(50, 60, 70)}, {4096, st(150, 160, 170)}}, 2560, 0.2, 65536, 8192},
		{"the reference beats the top", []rung{{128, st(50, 60, 70)}, {4096, st(80, 95, 105)}}, 2560, 0.05, 65536, 0},
		{"the top is below the knob's value", []rung{{128, st(150, 160, 170)}}, 2560, 0.2, 65536, 0},
		{"nothing measured", nil, 8, 0.2, 65536, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := nextRung(c.rs, c.cur, ref, c.thr, c.limit); got != c.want {
				t.Errorf("next %d, want %d", got, c.want)
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
		if len(k) == 0 || k[0].Attr != "read_ahead_kb" || !k[0].Ordered || k[0].ExtendTo != c.want {
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

func orderedRA(vals map[string]string, extendTo int) []Knob {
	return []Knob{{Path: ra, Attr: "read_ahead_kb", Current: vals[ra], Values: without([]string{"128", "512", "1024", "4096"}, vals[ra]), Ordered: true, ExtendTo: extendTo}}
}

func TestOrderedKnob(t *testing.T) {
	cases := []struct {
		name     string
		flat     float64
		noise    float64
		extendTo int
		want     []string // acceptable kept values
		trials   string   // the values tried, in order
	}{
		// Gains go on past the ladder: doubling until they flatten.
		{"extends while gains continue", 16384, 0.02, 65536, []string{"16384"}, "128,512,1024,4096,8192,16384,32768"},
		// The memory bound stops the extension.
		{"bounded by memory", 16384, 0.02, 8192, []string{"8192"}, "128,512,1024,4096,8192"},
		{"no extension without a bound", 16384, 0.02, 0, []string{"4096"}, "128,512,1024,4096"},
		// Flat from 1024: the smallest value within the band of the
		// best; nothing beyond the ladder.
		{"flat from 1024", 1024, 0.02, 65536, []string{"1024"}, "128,512,1024,4096"},
		// A wide band (±12% noise, about 24%): each ×4 step of the
		// ladder (+96%) is beyond it, so 8192 is tried too; flat there.
		{"wide band", 4096, 0.12, 65536, []string{"4096"}, "128,512,1024,4096,8192"},
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

// An ordered knob where nothing pays keeps nothing and leaves the value.
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
	if len(res.Trials) != 3 {
		t.Errorf("%d trials, want the 3 of the ladder (no extension without a gain)", len(res.Trials))
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
		k[0].Ordered = ordered
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
