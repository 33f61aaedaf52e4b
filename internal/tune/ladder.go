package tune

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/knobs"
)

// A ladder (Knob.Ladder) is a knob whose values are rungs: numbers where
// more costs more (memory, latency, a queue in the path) and the gain
// flattens. The block knobs (read_ahead_kb, nr_requests,
// stripe_cache_size) and the socket buffer maxima of tune --net are two
// configurations of the one ladder below: they differ only in their data
// (the rungs, Field, ExtendTo, Tests), never in the loop.
//
// The rungs are tried smallest first, each applied from the knob's own
// value, measured, judged (judge: the knob's tests, their noise band) and
// reverted. A rung gains when it beats, beyond the noise band (median
// more than the band, slowest run above the fastest: the ranges do not
// overlap), both the knob's own value and the last rung below it that
// gained: a rung whose range overlaps that one's gained only within the
// noise, however high its median, and is never kept. Gains that add up
// count: each rung is compared with the last one that gained, not with
// its neighbour. The value kept is the last rung that gained (pickRung),
// applied again for the knobs after it and the final run. Two rungs in a
// row above the knob's own value that do not gain are the plateau: the
// larger rungs are not tried (one rung measured during a load spike does
// not end the ladder). Once the rungs are tried, and while the plateau is
// not reached, the ladder goes on doubling, from the larger of the last
// rung and the knob's own value, up to Knob.ExtendTo (what the memory
// allows). A rung the kernel refuses above the knob's own value
// ends the ladder (the larger ones would be refused too); one below it is
// skipped.

// ladderFlat is how many rungs in a row above the knob's own value that
// do not gain make the plateau.
const ladderFlat = 2

// rung is one measured value of a ladder: its number and its judged
// measurement.
type rung struct {
	value int64
	stat  Stat
}

// pickRung walks rs, in ascending order, from ref (the knob's own value
// measured, whose number is own): a rung gains when it beats both ref
// and the last rung that gained before it beyond the noise band thr
// (beyond). keep is the index of the last rung that gained (-1: none);
// flat counts the rungs above own since then that did not gain (the
// plateau when it reaches ladderFlat).
func pickRung(rs []rung, own int64, ref Stat, thr float64) (keep, flat int) {
	keep = -1
	for i, r := range rs {
		below := ref
		if keep >= 0 {
			below = rs[keep].stat
		}
		switch {
		case beyond(r.stat, ref, thr) && beyond(r.stat, below, thr):
			keep, flat = i, 0
		case r.value > own:
			flat++
		}
	}
	return keep, flat
}

// rungOf is the number of a ladder value (its Field; -1 when it is not a
// number).
func rungOf(k Knob, v string) int64 {
	if f, ok := knobs.Field(v, k.Field); ok {
		return f
	}
	return -1
}

// rungValue is the value of a ladder's rung n: the knob's own value with
// its Field set to n.
func rungValue(k Knob, n int64) string {
	if k.Field > 0 {
		return knobs.WithField(k.Current, k.Field, n)
	}
	return strconv.FormatInt(n, 10)
}

// runLadder tries the rungs of ladder k, which is at from; ref are the
// samples at from (the baseline, or with the knobs before it kept). It
// returns the index of the kept trial in res.Trials (-1: none) and its
// samples, and whether the budget ran out.
func (s *session) runLadder(k Knob, from string, ref []Sample) (kept int, keptSS []Sample, outOfBudget bool, err error) {
	j := s.judge(k)
	jref := j.stat(ref)
	own := rungOf(k, from)
	values := slices.Clone(k.Values)
	slices.SortStableFunc(values, func(a, b string) int { return cmp.Compare(rungOf(k, a), rungOf(k, b)) })
	var rs []rung
	var idx []int // res.Trials index of each rung
	var sss [][]Sample
	tried := map[string]bool{}
	keep, flat := -1, 0
	for i := 0; flat < ladderFlat; i++ {
		if i == len(values) {
			// The rungs are tried and the plateau is not reached: double
			// from the larger of the last rung and the knob's own value
			// (a knob above every rung has no rung above it yet).
			top := own
			if len(values) > 0 {
				top = max(top, rungOf(k, values[len(values)-1]))
			}
			if k.ExtendTo <= 0 || top <= 0 || 2*top > k.ExtendTo {
				break
			}
			values = append(values, rungValue(k, 2*top))
			s.o.Log("%s: the plateau is not reached: trying %d", k.Path, 2*top)
		}
		v := values[i]
		n := rungOf(k, v)
		if v == from || tried[v] || n < 0 {
			continue
		}
		tried[v] = true
		if !s.budgetLeft() {
			outOfBudget = true
			break
		}
		t, ss, err := s.try(k, from, v)
		if err != nil {
			return -1, nil, false, err
		}
		if t < 0 {
			if n > own {
				tp := &s.res.Trials[len(s.res.Trials)-1]
				tp.Why += "; a larger value is not tried"
				break
			}
			continue
		}
		if err := s.revert(t); err != nil {
			return -1, nil, false, err
		}
		tp := &s.res.Trials[t]
		js := j.stat(ss)
		tp.JudgedBy = j.by
		tp.Gain = round(gain(js.Median, jref.Median) * 100)
		s.o.Log("%s %s → %s: %.1f %s (%+.1f%%%s), read back %s", k.Path, from, v, tp.Median, tp.Unit, tp.Gain, judgedText(j.by), tp.ReadBack)
		rs, idx, sss = append(rs, rung{value: n, stat: js}), append(idx, t), append(sss, ss)
		keep, flat = pickRung(rs, own, jref, j.thr)
	}
	if flat >= ladderFlat && len(rs) > 0 {
		var rest []string
		for _, v := range values {
			if !tried[v] && rungOf(k, v) > rs[len(rs)-1].value {
				rest = append(rest, v)
			}
		}
		if len(rest) > 0 {
			tp := &s.res.Trials[idx[len(idx)-1]]
			tp.Why += fmt.Sprintf("; the plateau (%d rungs in a row without a gain): the larger %s not tried", flat, strings.Join(rest, ", "))
			s.o.Log("%s: the plateau; the larger values are not tried", k.Path)
		}
	}
	s.ladderWhys(k, from, rs, idx, keep, jref, j)
	if keep < 0 {
		return -1, nil, outOfBudget, nil
	}
	// Apply the kept value again, live for the knobs after it and the
	// final run.
	n := idx[keep]
	tp := &s.res.Trials[n]
	id, err := s.a.Trial(k.Path, tp.To)
	if err != nil {
		if s.ctx.Err() != nil {
			return -1, nil, false, ErrInterrupted
		}
		return -1, nil, false, fmt.Errorf("applying %s = %s again after its trials: %w", k.Path, tp.To, err)
	}
	tp.Verdict, tp.RunID, tp.ReadBack = "kept", id, ""
	*s.stack = append(*s.stack, live{trial: n, runID: id, knob: k.Path})
	s.o.Log("%s %s → %s: %.1f %s (%+.1f%%%s): kept", k.Path, from, tp.To, tp.Median, tp.Unit, tp.Gain, judgedText(tp.JudgedBy))
	return n, sss[keep], outOfBudget, nil
}

// ladderWhys says of each measured rung why it was kept or not.
func (s *session) ladderWhys(k Knob, from string, rs []rung, idx []int, keep int, ref Stat, j judge) {
	pct := round(j.thr * 100)
	last := -1 // the last rung that gained so far
	for i, r := range rs {
		tp := &s.res.Trials[idx[i]]
		g := fmt.Sprintf("%+.1f%% over %s", tp.Gain, from)
		below := ref
		if last >= 0 {
			below = rs[last].stat
		}
		var why string
		switch {
		case !beyond(r.stat, ref, j.thr) && tp.Gain > pct:
			why = fmt.Sprintf("%s, but its slowest run is not above the fastest at %s (%.1f ≤ %.1f)", g, from, minOf(r.stat.Values), maxOf(ref.Values))
		case !beyond(r.stat, ref, j.thr):
			why = fmt.Sprintf("%s ≤ %.1f%% noise band", g, pct)
		case !beyond(r.stat, below, j.thr):
			// Beyond the knob's own value, not beyond the rung below it
			// that gained: a gain within the noise.
			why = fmt.Sprintf("%s, but not beyond the noise band over %s (%.1f %s, range %s; this one %s): no gain over it",
				g, s.res.Trials[idx[last]].To, below.Median, below.Unit, rangeOf(below), rangeOf(r.stat))
		case i == keep:
			last = i
			why = fmt.Sprintf("+%.1f%% over %s > %.1f%% noise band, slowest run above its fastest and above the fastest of the rung below that gained: the last rung that gained, kept", tp.Gain, from, pct)
		default:
			last = i
			why = fmt.Sprintf("%s, a gain; but the larger %s gains beyond the noise band over it", g, s.res.Trials[idx[keep]].To)
		}
		tp.Why = j.prefix() + why + tp.Why // tp.Why: the plateau note, when there is one
	}
}
