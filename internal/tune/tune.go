// Package tune tunes by measurement: it changes one knob at a time on the
// data path of a file, measures the workload with internal/bench, and
// keeps a change only when the gain is beyond the noise of the
// measurement. Everything it keeps is persisted as one journaled run
// (internal/apply) that `nastune undo RUN` reverts entirely.
//
// The loop (Run):
//
//  1. Baseline: at least MinRuns measurements, more (up to MaxRuns) while
//     the spread is wider than WideSpread, within the budget. The noise
//     band is the baseline's relative spread, (max-min)/median; the
//     threshold a trial must beat is max(MinGain, noise band).
//  2. Trials, per knob: each candidate value is applied runtime-only as
//     its own journaled run (apply.Trial), measured TrialRuns times and
//     judged: by the score, or, for a knob that names the tests it can
//     change (Knob.Tests), by those alone against their own band from the
//     baseline. A value beats a reference when its median gains more than
//     the threshold and its slowest run beats the reference's fastest (the
//     min-max ranges do not overlap). The values of a knob are either
//     alternatives (a scheduler, a Samba option: each compared with the
//     best so far, kept while it beats it, else reverted at once with
//     apply.Undo and the value read back), or the rungs of a ladder
//     (Knob.Ladder: read-ahead, queue depth, stripe cache, the socket
//     buffer maxima of tune --net), tried smallest first from the knob's
//     own value and reverted, the last rung that beats both the knob's
//     own value and the last rung below it that did is kept, and two in a
//     row that do not are the plateau (ladder.go).
//  3. Final: everything kept is measured together and the baseline
//     measured again (everything reverted) in the order kept, baseline,
//     kept (half the kept runs on each side), so both see the same load on
//     the box and a load that drifts through them favours neither; when
//     the total does not beat that fresh baseline by the same rule, the
//     last keep is dropped and the rest measured again.
//  4. Persist: the trial runs are reverted and the kept values applied
//     again as one run, runtime value and persistent line (udev rule for
//     block attributes) together.
//
// A signal (the caller cancels ctx) stops the measurement; every live
// trial is reverted before Run returns. A tune killed outright leaves its
// trials as complete journal runs: `nastune undo` reverts them, and the
// next root start of nastune does it first once no tune holds the tune
// lock (FinishOrphans, apply.TuneLock; never a pid).
package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Sample is one measurement: test name → value in the test's unit.
type Sample map[string]float64

// Measurer runs the chosen tests once.
type Measurer func(ctx context.Context) (Sample, error)

// Applier makes and reverts the trial changes, and persists the result.
type Applier interface {
	// Trial sets path to value as a journaled runtime-only run.
	Trial(path, value string) (runID string, err error)
	// Revert undoes a trial run and returns the value read back.
	Revert(runID string) (readBack string, err error)
	// Persist applies the kept values (runtime and persistent) as one
	// run; "" when there is nothing to persist.
	Persist(kept []Kept) (runID string, err error)
}

// Reader is an Applier that can also read a knob's live value. Run reads
// each knob again before its trials: keeping one knob can change another
// (a scheduler switch resets nr_requests to the new scheduler's default),
// and a trial starts from, and reverts to, the value the knob has then.
type Reader interface {
	Read(path string) (string, error)
}

// Options of a tune run.
type Options struct {
	Tests  []string
	Units  map[string]string // test → unit (units.MBsUnit or IOPS)
	Knobs  []Knob
	Budget time.Duration
	// MinRuns/MaxRuns bound the baseline; TrialRuns measures each trial
	// and the final run.
	MinRuns, MaxRuns, TrialRuns int
	// WideSpread: the baseline gets more runs while its spread is wider.
	WideSpread float64
	// MinGain is the smallest gain ever kept (a fraction).
	MinGain float64
	// Log, when set, is told what happens as it happens.
	Log func(format string, args ...any)
	Now func() time.Time
}

func (o *Options) defaults() {
	if o.MinRuns < 3 {
		o.MinRuns = 3
	}
	if o.MaxRuns < o.MinRuns {
		o.MaxRuns = max(o.MinRuns, 7)
	}
	if o.TrialRuns < 3 {
		o.TrialRuns = 3
	}
	if o.WideSpread <= 0 {
		o.WideSpread = 0.10
	}
	if o.MinGain <= 0 {
		o.MinGain = 0.05
	}
	if o.Budget <= 0 {
		o.Budget = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
}

// Stat is a set of measurements of the score.
type Stat struct {
	Median float64 `json:"median"`
	// Spread is max-min, in Unit; SpreadPct is it relative to the median.
	Spread    float64            `json:"spread"`
	SpreadPct float64            `json:"spread_pct"`
	Unit      string             `json:"unit"`
	Runs      int                `json:"runs"`
	Values    []float64          `json:"values"`
	Tests     map[string]float64 `json:"tests,omitempty"` // median per test (several tests)
}

// Trial is one candidate tried.
type Trial struct {
	Knob string `json:"knob"` // the path written
	From string `json:"from"`
	To   string `json:"to"`
	Stat
	// Gain is the median's change against the best before it (for a
	// ladder: the knob's own value), in percent (of JudgedBy's
	// tests when set, else of the score).
	Gain float64 `json:"gain"`
	// JudgedBy names the tests the verdict was taken on when the knob
	// changes only those (Knob.Tests); empty: the score.
	JudgedBy []string `json:"judged_by,omitempty"`
	Verdict  string   `json:"verdict"` // kept, reverted
	// Why explains the verdict; ReadBack is the value after a revert.
	Why      string `json:"why"`
	RunID    string `json:"trial_run,omitempty"`
	ReadBack string `json:"read_back,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Kept is a value tune keeps: the knob's original value and the new one.
type Kept struct {
	Knob string `json:"knob"`
	From string `json:"from"`
	To   string `json:"to"`
	// Persisted says how it survives a reboot ("" while not persisted).
	Persisted string `json:"persisted,omitempty"`
}

// Result is the answer of a tune run.
type Result struct {
	RunID string            `json:"run_id"` // the persisted run ("" when nothing was kept)
	Tests []string          `json:"tests"`
	Units map[string]string `json:"units,omitempty"`
	// ThresholdPct is the noise band: the baseline's range ÷ median, at
	// least MinGain; a trial must gain more.
	ThresholdPct float64 `json:"threshold_pct"`
	// BandByTest is each test's own noise band, in percent, when a knob
	// is judged by some tests alone (Knob.Tests).
	BandByTest map[string]float64 `json:"noise_band_by_test_pct,omitempty"`
	Baseline   Stat               `json:"baseline"`
	Trials     []Trial            `json:"trials"`
	Final      *Stat              `json:"final,omitempty"`
	// FinalBaseline is the baseline measured again between Final's two
	// halves (everything reverted); FinalGain is Final's median against it, in
	// percent.
	FinalBaseline *Stat    `json:"final_baseline,omitempty"`
	FinalGain     float64  `json:"final_gain"`
	Kept          []Kept   `json:"kept"`
	Knobs         []Knob   `json:"knobs"`
	Notes         []string `json:"notes,omitempty"`
	Interrupted   bool     `json:"interrupted,omitempty"`
}

// ErrInterrupted: a signal stopped the run; every trial was reverted.
var ErrInterrupted = errors.New("interrupted: every trial value was reverted")

type live struct {
	trial int // index in Result.Trials
	runID string
	knob  string
}

// Run tunes: baseline, trials, final run, persist. On error or a cancelled
// ctx every live trial is reverted before it returns.
func Run(ctx context.Context, m Measurer, a Applier, o Options) (res *Result, err error) {
	o.defaults()
	start := o.Now()
	res = &Result{Tests: o.Tests, Units: o.Units, Knobs: o.Knobs, Trials: []Trial{}, Kept: []Kept{}}
	var stack []live // trial runs live now, in order
	defer func() {
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			res.Interrupted = true
		}
		if _, rerr := revertTrials(a, &stack); rerr != nil {
			err = fmt.Errorf("%w; reverting the trials also failed: %v (finish with: nastune undo)", err, rerr)
		}
		for i := range res.Trials {
			if res.Trials[i].Verdict == "kept" {
				res.Trials[i].Verdict, res.Trials[i].Why = "reverted", "stopped: "+err.Error()
			}
		}
		res.Kept = []Kept{}
		res.RunID = ""
	}()
	spent := func() time.Duration { return o.Now().Sub(start) }

	// Baseline.
	var base []Sample
	var perSample time.Duration
	for {
		t0 := o.Now()
		s, err := measure(ctx, m)
		if err != nil {
			return res, err
		}
		perSample = o.Now().Sub(t0)
		base = append(base, s)
		st := stat(base, nil, o)
		if len(base) >= o.MaxRuns || len(base) >= o.MinRuns && (st.SpreadPct/100 <= o.WideSpread || spent() > o.Budget/4) {
			break
		}
	}
	ref := medians(base, o.Tests)
	res.Baseline = stat(base, ref, o)
	thr := max(o.MinGain, res.Baseline.SpreadPct/100)
	res.ThresholdPct = round(thr * 100)
	o.Log("baseline %.1f %s (%d runs, range %s): noise band %.1f%%; a trial is kept when it gains more",
		res.Baseline.Median, res.Baseline.Unit, res.Baseline.Runs, rangeOf(res.Baseline), res.ThresholdPct)
	bestSS := base
	if o.judgesApart() {
		res.BandByTest = map[string]float64{}
		for _, t := range o.Tests {
			res.BandByTest[t] = round(max(o.MinGain, statOn(base, []string{t}, ref, o).SpreadPct/100) * 100)
		}
	}
	trialCost := time.Duration(o.TrialRuns) * perSample

	// Trials, per knob: a ladder (ladder.go), or alternatives each kept
	// when it beats the best before it.
	current := map[string]string{}
	orig := map[string]string{}
	for _, k := range o.Knobs {
		current[k.Path], orig[k.Path] = k.Current, k.Current
	}
	s := &session{ctx: ctx, m: m, a: a, o: o, res: res, stack: &stack, ref: ref, base: base, thr: thr,
		// One more trial (TrialRuns runs) and the final run (kept and the
		// baseline again: 2 × TrialRuns runs).
		budgetLeft: func() bool { return spent()+3*trialCost <= o.Budget }}
	outOfBudget := false
	rd, _ := a.(Reader)
	for _, k := range o.Knobs {
		if rd != nil {
			if v, err := rd.Read(k.Path); err == nil && v != "" && v != current[k.Path] {
				o.Log("%s reads %s now, not %s: its trials start from %s", k.Path, v, current[k.Path], v)
				current[k.Path] = v
			}
		}
		if k.Ladder {
			n, ss, oob, err := s.runLadder(k, current[k.Path], bestSS)
			if err != nil {
				return res, err
			}
			if n >= 0 {
				bestSS, current[k.Path] = ss, res.Trials[n].To
			}
			outOfBudget = oob
		} else {
			var err error
			if outOfBudget, err = s.alternatives(k, current, &bestSS); err != nil {
				return res, err
			}
		}
		if outOfBudget {
			res.Notes = append(res.Notes, fmt.Sprintf("budget %s reached after %s: the remaining candidates were not tried", o.Budget, spent().Round(time.Second)))
			break
		}
	}

	// Final run of everything kept and the baseline again (everything
	// reverted) in the order kept, baseline, kept (ABA: the first half of
	// the kept runs, all baseline runs, the other half, the kept values
	// applied again for it), so both see the same load on the box, and a
	// load that rises or falls steadily through them moves both alike
	// instead of favouring whichever ran first. While the total does not
	// beat that fresh baseline beyond the noise band, the last keep is
	// dropped and the rest measured again.
	keeps := slices.Clone(stack)
	for len(keeps) > 0 {
		fs, err := measureN(ctx, m, (o.TrialRuns+1)/2)
		if err != nil {
			return res, err
		}
		o.Log("final: everything kept reverted for the baseline again (%d runs)", o.TrialRuns)
		rbs, err := revertKept(a, &stack, keeps, res.Trials)
		if err != nil {
			return res, err
		}
		bs, err := measureN(ctx, m, o.TrialRuns)
		if err != nil {
			return res, err
		}
		if n := o.TrialRuns / 2; n > 0 {
			o.Log("final: everything kept applied again for its last %d run(s), then reverted", n)
			if err := reapply(ctx, a, keeps, res.Trials, &stack); err != nil {
				return res, err
			}
			more, err := measureN(ctx, m, n)
			if err != nil {
				return res, err
			}
			fs = append(fs, more...)
			if rbs, err = revertKept(a, &stack, keeps, res.Trials); err != nil {
				return res, err
			}
		}
		f, b := stat(fs, ref, o), stat(bs, ref, o)
		res.Final, res.FinalBaseline = &f, &b
		res.FinalGain = round(gain(f.Median, b.Median) * 100)
		if beyond(f, b, thr) {
			o.Log("final: %.1f %s, baseline again %.1f %s (%+.1f%%): holds", f.Median, f.Unit, b.Median, b.Unit, res.FinalGain)
			if n := plateauNote(res.Trials, f, thr); n != "" {
				res.Notes = append(res.Notes, n)
				o.Log("%s", n)
			}
			break
		}
		last := keeps[len(keeps)-1]
		keeps = keeps[:len(keeps)-1]
		tp := &res.Trials[last.trial]
		tp.Verdict, tp.ReadBack = "reverted", rbs[last.runID]
		tp.Why = fmt.Sprintf("kept at first, but everything kept together measured %.1f %s against %.1f %s for the baseline measured again between its halves (%+.1f%%): the total did not hold",
			f.Median, f.Unit, b.Median, b.Unit, res.FinalGain)
		o.Log("final: %.1f %s against %.1f %s does not hold: dropping %s = %s", f.Median, f.Unit, b.Median, b.Unit, tp.Knob, tp.To)
		res.Final, res.FinalBaseline = nil, nil
		if err := reapply(ctx, a, keeps, res.Trials, &stack); err != nil {
			return res, err
		}
	}
	if len(keeps) == 0 {
		res.Notes = append(res.Notes, "nothing paid beyond the noise band: nothing kept, nothing persisted")
		return res, nil
	}

	// Persist: everything is reverted (the fresh baseline); apply the kept
	// values as one run. The value each knob keeps is that of its newest
	// keep.
	last := map[string]string{}
	for _, l := range keeps {
		last[l.knob] = res.Trials[l.trial].To
	}
	var kept []Kept
	for _, k := range o.Knobs {
		if v, ok := last[k.Path]; ok {
			kept = append(kept, Kept{Knob: k.Path, From: orig[k.Path], To: v})
		}
	}
	id, err := a.Persist(kept)
	if err != nil {
		return res, fmt.Errorf("persisting what was kept: %w (every trial was reverted; nothing is left changed)", err)
	}
	res.RunID, res.Kept = id, kept
	return res, nil
}

// session is what the trials of one Run share.
type session struct {
	ctx   context.Context
	m     Measurer
	a     Applier
	o     Options
	res   *Result
	stack *[]live
	ref   map[string]float64 // the baseline's medians (score)
	base  []Sample           // the baseline's samples (the noise bands)
	thr   float64
	// budgetLeft says whether one more trial and the final run fit.
	budgetLeft func() bool
}

// judge is how a knob's trials are measured: the tests (all, or the
// knob's own, Knob.Tests: by names them) and their noise band.
type judge struct {
	s     *session
	tests []string
	by    []string
	thr   float64
}

func (s *session) judge(k Knob) judge {
	if judgedApart(k, s.o) {
		return judge{s: s, tests: k.Tests, by: k.Tests, thr: max(s.o.MinGain, statOn(s.base, k.Tests, s.ref, s.o).SpreadPct/100)}
	}
	return judge{s: s, tests: s.o.Tests, thr: s.thr}
}

// prefix begins the why of a verdict taken on some tests alone.
func (j judge) prefix() string {
	if len(j.by) == 0 {
		return ""
	}
	return "judged by " + strings.Join(j.by, ", ") + ": "
}

// stat is the measurement ss as the judge sees it.
func (j judge) stat(ss []Sample) Stat { return statOn(ss, j.tests, j.s.ref, j.s.o) }

// try applies v to k (at from) as a trial run, records the trial and
// measures it: the index of the trial in res.Trials and its samples; -1
// when the kernel refused the value (recorded, reverted).
func (s *session) try(k Knob, from, v string) (int, []Sample, error) {
	if err := s.ctx.Err(); err != nil {
		return -1, nil, ErrInterrupted
	}
	t := Trial{Knob: k.Path, From: from, To: v}
	id, terr := s.a.Trial(k.Path, v)
	if terr != nil {
		if s.ctx.Err() != nil {
			return -1, nil, ErrInterrupted
		}
		t.Verdict, t.Why, t.Error = "reverted", "the kernel refused the value", terr.Error()
		s.res.Trials = append(s.res.Trials, t)
		s.o.Log("%s %s → %s: refused (%v)", k.Path, from, v, terr)
		return -1, nil, nil
	}
	t.RunID = id
	s.res.Trials = append(s.res.Trials, t)
	n := len(s.res.Trials) - 1
	*s.stack = append(*s.stack, live{trial: n, runID: id, knob: k.Path})
	ss, err := measureN(s.ctx, s.m, s.o.TrialRuns)
	if err != nil {
		return -1, nil, err
	}
	s.res.Trials[n].Stat = stat(ss, s.ref, s.o)
	return n, ss, nil
}

// revert reverts trial n, the newest live one, and checks the value reads
// as before it.
func (s *session) revert(n int) error {
	tp := &s.res.Trials[n]
	rb, err := s.a.Revert(tp.RunID)
	*s.stack = (*s.stack)[:len(*s.stack)-1]
	tp.ReadBack, tp.Verdict = rb, "reverted"
	if err != nil {
		return fmt.Errorf("reverting %s: %w", tp.Knob, err)
	}
	if rb != tp.From {
		return fmt.Errorf("reverted %s but it reads %q, not %q", tp.Knob, rb, tp.From)
	}
	return nil
}

// alternatives tries the values of a knob that is not a ladder (a
// scheduler, a Samba option, nfsd's threads), each against the best so
// far (*bestSS); one that beats it beyond the noise band is kept, live,
// and the next is tried from it. It reports whether the budget ran out.
func (s *session) alternatives(k Knob, current map[string]string, bestSS *[]Sample) (bool, error) {
	j := s.judge(k)
	pct := round(j.thr * 100)
	for _, v := range k.Values {
		if v == current[k.Path] {
			continue // already the value (another knob's keep set it)
		}
		if !s.budgetLeft() {
			return true, nil
		}
		n, ss, err := s.try(k, current[k.Path], v)
		if err != nil {
			return false, err
		}
		if n < 0 {
			continue // refused
		}
		tp := &s.res.Trials[n]
		jt, jb := j.stat(ss), j.stat(*bestSS)
		tp.JudgedBy = j.by
		tp.Gain = round(gain(jt.Median, jb.Median) * 100)
		judged := j.prefix()
		if beyond(jt, jb, j.thr) {
			tp.Verdict = "kept"
			tp.Why = fmt.Sprintf("%s+%.1f%% > %.1f%% threshold, slowest run above the best's fastest", judged, tp.Gain, pct)
			for _, l := range (*s.stack)[:len(*s.stack)-1] {
				if l.knob == k.Path {
					s.res.Trials[l.trial].Why += "; then " + v + " gained more"
				}
			}
			*bestSS, current[k.Path] = ss, v
			s.o.Log("%s %s → %s: %.1f %s (%+.1f%%%s): kept", k.Path, tp.From, v, tp.Median, tp.Unit, tp.Gain, judgedText(tp.JudgedBy))
			continue
		}
		tp.Why = fmt.Sprintf("%s%+.1f%% ≤ %.1f%% threshold", judged, tp.Gain, pct)
		if tp.Gain > pct {
			tp.Why = fmt.Sprintf("%s%+.1f%%, but its slowest run is not above the best's fastest (%.1f ≤ %.1f)", judged, tp.Gain, minOf(jt.Values), maxOf(jb.Values))
		}
		if err := s.revert(n); err != nil {
			return false, err
		}
		s.o.Log("%s %s → %s: %.1f %s (%+.1f%%%s): reverted, reads %s again", k.Path, tp.From, v, tp.Median, tp.Unit, tp.Gain, judgedText(tp.JudgedBy), tp.ReadBack)
	}
	return false, nil
}

// plateauNote checks the kept values measured again (final, the final
// run) against the best trial: within the noise band (thr) of its median
// they hold the plateau, and it returns ""; else a note naming both. A
// ladder keeps the smallest value that reaches the plateau, so a larger
// one may have measured a little more, within the band, and was left.
func plateauNote(trials []Trial, final Stat, thr float64) string {
	best := -1
	for i, t := range trials {
		if t.Error == "" && t.Runs > 0 && (best < 0 || t.Median > trials[best].Median) {
			best = i
		}
	}
	if best < 0 || gain(trials[best].Median, final.Median) <= thr {
		return ""
	}
	t := trials[best]
	return fmt.Sprintf("the kept values measured %.1f %s in the final run, %.1f%% below the best trial (%s = %s: %.1f %s), beyond the %.1f%% noise band: the box or the path changed during the tune, or the trial was lucky; run tune again when both are quiet, or with a longer measurement",
		final.Median, final.Unit, gain(t.Median, final.Median)*100, t.Knob, t.To, t.Median, t.Unit, thr*100)
}

func measureN(ctx context.Context, m Measurer, n int) ([]Sample, error) {
	var ss []Sample
	for i := 0; i < n; i++ {
		s, err := measure(ctx, m)
		if err != nil {
			return nil, err
		}
		ss = append(ss, s)
	}
	return ss, nil
}

// reapply applies the kept values again as trial runs for the final run
// (each keep gets its new run ID) and pushes them on the live stack. A
// Trial that fails once ctx is cancelled is the interruption (the signal
// also reached the smbd restart it waited on): ErrInterrupted.
func reapply(ctx context.Context, a Applier, keeps []live, trials []Trial, stack *[]live) error {
	for i := range keeps {
		id, err := a.Trial(keeps[i].knob, trials[keeps[i].trial].To)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("applying %s again for the final run: %w", keeps[i].knob, err)
		}
		keeps[i].runID = id
		*stack = append(*stack, keeps[i])
	}
	return nil
}

// revertKept reverts the live trial runs of the final run (revertTrials)
// and checks that each keep reads as before its trial, as a trial
// reverted during the trials is checked (session.revert): the baseline
// again must be measured on the system as it was, and a value that does
// not come back is not left unsaid. It returns the values read back by
// run ID.
func revertKept(a Applier, stack *[]live, keeps []live, trials []Trial) (map[string]string, error) {
	rbs, err := revertTrials(a, stack)
	if err != nil {
		return rbs, err
	}
	for i := len(keeps) - 1; i >= 0; i-- {
		t := trials[keeps[i].trial]
		if rb, ok := rbs[keeps[i].runID]; ok && rb != t.From {
			return rbs, fmt.Errorf("reverted %s for the final run's baseline but it reads %q, not %q", t.Knob, rb, t.From)
		}
	}
	return rbs, nil
}

// revertTrials reverts the live trial runs, newest first, and returns the
// value read back after each (by run ID).
func revertTrials(a Applier, stack *[]live) (map[string]string, error) {
	rbs := map[string]string{}
	var errs []error
	for i := len(*stack) - 1; i >= 0; i-- {
		l := (*stack)[i]
		rb, err := a.Revert(l.runID)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (run %s): %w", l.knob, l.runID, err))
			continue
		}
		rbs[l.runID] = rb
	}
	*stack = nil
	return rbs, errors.Join(errs...)
}

// beyond says whether s beats ref beyond the noise band: its median gains
// more than thr and its slowest run is faster than ref's fastest (the two
// min-max ranges do not overlap).
func beyond(s, ref Stat, thr float64) bool {
	return gain(s.Median, ref.Median) > thr && minOf(s.Values) > maxOf(ref.Values)
}

func measure(ctx context.Context, m Measurer) (Sample, error) {
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	s, err := m(ctx)
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	return s, err
}

// score reduces a sample to one number: the test's value when there is one
// test, else 100 × the geometric mean of each test against its baseline
// median (ref).
func score(s Sample, tests []string, ref map[string]float64) float64 {
	if len(tests) == 1 {
		return s[tests[0]]
	}
	sum := 0.0
	for _, t := range tests {
		r := 1.0
		switch {
		case ref == nil || ref[t] <= 0:
		case s[t] > 0:
			r = s[t] / ref[t]
		default:
			// Nothing moved (a stalled stream, a failed test): the
			// worst result, not the baseline's. Counted as 1 in a
			// billion, a gain elsewhere cannot outweigh it.
			r = 1e-9
		}
		sum += math.Log(r)
	}
	return 100 * math.Exp(sum/float64(len(tests)))
}

func medians(ss []Sample, tests []string) map[string]float64 {
	out := map[string]float64{}
	for _, t := range tests {
		var v []float64
		for _, s := range ss {
			v = append(v, s[t])
		}
		out[t] = median(v)
	}
	return out
}

func stat(ss []Sample, ref map[string]float64, o Options) Stat {
	return statOn(ss, o.Tests, ref, o)
}

// judgedApart says whether k's trials are judged by its own tests: it
// names some of the run's tests, not all.
func judgedApart(k Knob, o Options) bool {
	if len(k.Tests) == 0 || len(k.Tests) >= len(o.Tests) {
		return false
	}
	for _, t := range k.Tests {
		if !slices.Contains(o.Tests, t) {
			return false
		}
	}
	return true
}

// judgedText is " send" for a verdict judged by send alone ("" by the
// score), for the log line after the gain.
func judgedText(tests []string) string {
	if len(tests) == 0 {
		return ""
	}
	return " " + strings.Join(tests, ",")
}

func (o Options) judgesApart() bool {
	return slices.ContainsFunc(o.Knobs, func(k Knob) bool { return judgedApart(k, o) })
}

// statOn is stat over some of the tests (one test: its value, in its
// unit).
func statOn(ss []Sample, tests []string, ref map[string]float64, o Options) Stat {
	var v []float64
	r := ref
	if r == nil {
		r = medians(ss, tests)
	}
	for _, s := range ss {
		v = append(v, score(s, tests, r))
	}
	st := Stat{Median: round(median(v)), Runs: len(v), Values: roundAll(v), Unit: "score"}
	if len(tests) == 1 {
		st.Unit = o.Units[tests[0]]
	} else {
		st.Tests = map[string]float64{}
		for t, m := range medians(ss, tests) {
			st.Tests[t] = round(m)
		}
	}
	lo, hi := slices.Min(v), slices.Max(v)
	st.Spread = round(hi - lo)
	if m := median(v); m > 0 {
		st.SpreadPct = round((hi - lo) / m * 100)
	}
	return st
}

// median is the lower median with an even count: the cautious side.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func gain(v, ref float64) float64 {
	if ref <= 0 {
		if v > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return v/ref - 1
}

func round(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	return math.Round(f*10) / 10
}

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round(x)
	}
	return out
}
