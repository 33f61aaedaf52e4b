package tune

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// An ordered knob (Knob.Ordered: read_ahead_kb, nr_requests,
// stripe_cache_size) is a number where more costs more (memory, latency)
// and the gain flattens: its values are not climbed step by step, where
// each step would have to beat the one before by the noise band (a ladder
// of steps each smaller than the band never gets past its first rung,
// however large the gains add up). Every value is measured against the
// value the knob had (the reference: the baseline, or the best after the
// knobs before it); of those beyond the reference, the best is the one
// with the highest median, and the value kept is the smallest one the best
// does not beat beyond the noise band. While the largest value tried is
// the best and beats the next smaller one beyond the noise band, the
// ladder goes on by doubling up to Knob.ExtendTo (what the memory allows),
// and stops at the first value the kernel refuses.

// rung is one measured value of an ordered knob.
type rung struct {
	value int
	stat  Stat
}

// pickRung returns the index in rs of the value to keep and of the best
// value (-1, -1 when none is beyond ref): the best is the highest median
// among the values beyond ref, the kept one the smallest value beyond ref
// that the best does not beat beyond the noise band thr.
func pickRung(rs []rung, ref Stat, thr float64) (keep, best int) {
	best = -1
	for i, r := range rs {
		if beyond(r.stat, ref, thr) && (best < 0 || r.stat.Median > rs[best].stat.Median) {
			best = i
		}
	}
	if best < 0 {
		return -1, -1
	}
	keep = best
	for i, r := range rs {
		if r.value < rs[keep].value && beyond(r.stat, ref, thr) && !beyond(rs[best].stat, r.stat, thr) {
			keep = i
		}
	}
	return keep, best
}

// nextRung is the value to try above the ladder (0: none): twice the
// largest value measured, when that value is above the knob's own (cur),
// has the highest median of all (ref, at cur, included), beats the next
// smaller value measured (or ref, when cur is the next smaller) beyond
// the noise band, and twice it is at most limit.
func nextRung(rs []rung, cur int, ref Stat, thr float64, limit int) int {
	top := -1
	for i, r := range rs {
		if top < 0 || r.value > rs[top].value {
			top = i
		}
	}
	if top < 0 || rs[top].value <= cur || limit <= 0 || rs[top].value*2 > limit {
		return 0
	}
	t := rs[top]
	if t.stat.Median < ref.Median {
		return 0
	}
	below, belowV := ref, cur
	for _, r := range rs {
		if r.value < t.value && r.value > belowV {
			below, belowV = r.stat, r.value
		}
		if r.stat.Median > t.stat.Median {
			return 0
		}
	}
	if !beyond(t.stat, below, thr) {
		return 0
	}
	return t.value * 2
}

// ladderState is what the ladder of one knob shares with Run.
type ladderState struct {
	ctx   context.Context
	m     Measurer
	a     Applier
	o     Options
	res   *Result
	stack *[]live
	ref   map[string]float64 // the baseline's medians (score)
	thr   float64
	// budgetLeft says whether one more trial and the final run fit.
	budgetLeft func() bool
}

// runLadder tries the values of an ordered knob that is at from, whose
// measurement is best (the reference). Each value is applied, measured
// and reverted; the value chosen (pickRung) is applied again and left live
// for the knobs after it and the final run. It returns the index of the
// kept trial in res.Trials (-1: none) and whether the budget ran out.
func runLadder(s ladderState, k Knob, from string, best Stat) (kept int, outOfBudget bool, err error) {
	cur, _ := strconv.Atoi(from)
	var rs []rung
	var idx []int // res.Trials index of each rung
	values := slices.Clone(k.Values)
	tried := map[string]bool{}
	for i := 0; i < len(values); i++ {
		v := values[i]
		if v == from || tried[v] {
			continue
		}
		tried[v] = true
		if !s.budgetLeft() {
			outOfBudget = true
			break
		}
		if err := s.ctx.Err(); err != nil {
			return -1, false, ErrInterrupted
		}
		t := Trial{Knob: k.Path, From: from, To: v}
		id, terr := s.a.Trial(k.Path, v)
		if terr != nil {
			if s.ctx.Err() != nil {
				return -1, false, ErrInterrupted
			}
			t.Verdict, t.Why, t.Error = "reverted", "the kernel refused the value", terr.Error()
			s.res.Trials = append(s.res.Trials, t)
			s.o.Log("%s %s → %s: refused (%v)", k.Path, from, v, terr)
			continue
		}
		t.RunID = id
		s.res.Trials = append(s.res.Trials, t)
		n := len(s.res.Trials) - 1
		*s.stack = append(*s.stack, live{trial: n, runID: id, knob: k.Path})
		ss, err := measureN(s.ctx, s.m, s.o.TrialRuns)
		if err != nil {
			return -1, false, err
		}
		tp := &s.res.Trials[n]
		tp.Stat = stat(ss, s.ref, s.o)
		tp.Gain = round(gain(tp.Median, best.Median) * 100)
		rb, rerr := s.a.Revert(id)
		*s.stack = (*s.stack)[:len(*s.stack)-1]
		tp.ReadBack = rb
		if rerr != nil {
			return -1, false, fmt.Errorf("reverting %s: %w", k.Path, rerr)
		}
		if rb != from {
			return -1, false, fmt.Errorf("reverted %s but it reads %q, not %q", k.Path, rb, from)
		}
		tp.Verdict = "reverted"
		s.o.Log("%s %s → %s: %.1f %s (%+.1f%%), read back %s", k.Path, from, v, tp.Median, tp.Unit, tp.Gain, rb)
		val, err := strconv.Atoi(v)
		if err != nil {
			continue // not a number: measured, never kept
		}
		rs = append(rs, rung{value: val, stat: tp.Stat})
		idx = append(idx, n)
		if i == len(values)-1 {
			if next := nextRung(rs, cur, best, s.thr, k.ExtendTo); next > 0 {
				values = append(values, strconv.Itoa(next))
				s.o.Log("%s: %s is the best so far and beats the value below it beyond the noise band: trying %d", k.Path, v, next)
			}
		}
	}
	keep, top := pickRung(rs, best, s.thr)
	pct := s.res.ThresholdPct
	for i, r := range rs {
		tp := &s.res.Trials[idx[i]]
		switch {
		case !beyond(r.stat, best, s.thr) && tp.Gain > pct:
			tp.Why = fmt.Sprintf("%+.1f%% over %s, but its slowest run is not above the fastest at %s (%.1f ≤ %.1f)", tp.Gain, from, from, minOf(tp.Values), maxOf(best.Values))
		case !beyond(r.stat, best, s.thr):
			tp.Why = fmt.Sprintf("%+.1f%% over %s ≤ %.1f%% threshold", tp.Gain, from, pct)
		case i == keep && keep == top:
			tp.Why = fmt.Sprintf("+%.1f%% over %s > %.1f%% threshold, slowest run above its fastest; the best value of this knob", tp.Gain, from, pct)
		case i == keep:
			tp.Why = fmt.Sprintf("+%.1f%% over %s > %.1f%% threshold, slowest run above its fastest; the smallest value within the noise band of the best (%s: %.1f %s)",
				tp.Gain, from, pct, s.res.Trials[idx[top]].To, rs[top].stat.Median, rs[top].stat.Unit)
		case r.value > rs[keep].value:
			tp.Why = fmt.Sprintf("+%.1f%% over %s, but the smaller %s is within the noise band of it (%.1f %s): the smaller value is kept",
				tp.Gain, from, s.res.Trials[idx[keep]].To, rs[keep].stat.Median, rs[keep].stat.Unit)
		default:
			tp.Why = fmt.Sprintf("+%.1f%% over %s, but %s gains beyond the noise band over it", tp.Gain, from, s.res.Trials[idx[keep]].To)
		}
	}
	if keep < 0 {
		return -1, outOfBudget, nil
	}
	// Apply the chosen value again, live for the knobs after it and the
	// final run.
	n := idx[keep]
	tp := &s.res.Trials[n]
	id, err := s.a.Trial(k.Path, tp.To)
	if err != nil {
		if s.ctx.Err() != nil {
			return -1, false, ErrInterrupted
		}
		return -1, false, fmt.Errorf("applying %s = %s again after its trials: %w", k.Path, tp.To, err)
	}
	tp.Verdict, tp.RunID, tp.ReadBack = "kept", id, ""
	*s.stack = append(*s.stack, live{trial: n, runID: id, knob: k.Path})
	s.o.Log("%s %s → %s: %.1f %s (%+.1f%%): kept", k.Path, from, tp.To, tp.Median, tp.Unit, tp.Gain)
	return n, outOfBudget, nil
}

// trialBudget says whether a trial of cost and the final run still fit.
func trialBudget(spent func() time.Duration, cost, budget time.Duration) func() bool {
	return func() bool { return spent()+2*cost <= budget }
}
