package audit

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// MaxActions is how many actions a Summary names at most: the few that
// protect or gain the most, not a second copy of the findings.
const MaxActions = 3

// Summary is the verdict printed first: is the data safe, which layer
// limits throughput, and what to do first. Summarize computes it; the
// renderers only print it.
type Summary struct {
	// Safety is "at risk" (a crit finding or an expired trial change),
	// "ok" (SMART read and no risk found) or "unknown" (no disk reported
	// its health: nothing was said to be failing, nothing was shown not
	// to be).
	Safety string `json:"safety"`
	// Risks are one line per crit finding: "md0: md array is degraded".
	Risks []string `json:"risks"`
	// Health says how many disks reported their health.
	Health string `json:"health"`
	// Limit is the narrowest layer for file service, from the ceiling
	// model and any bench result; nil when no storage path was modelled.
	Limit *Limit `json:"limit,omitempty"`
	// Actions are at most MaxActions things to do, the most protective
	// first; [] when there is nothing to do.
	Actions []Action `json:"actions"`
	// Counts are the findings per severity.
	Counts Counts `json:"counts"`
}

// Counts are the findings per severity.
type Counts struct {
	Crit int `json:"crit"`
	Warn int `json:"warn"`
	Info int `json:"info"`
}

// Limit names the layer that caps file service.
type Limit struct {
	// Path is the path that caps it (an array, a disk, an interface).
	Path string `json:"path"`
	// Kind is the capping path's kind: array, pool, disk or network.
	Kind string `json:"kind"`
	// MBs is its modelled ceiling in MB/s (10^6 bytes per second).
	MBs float64 `json:"ceiling_mb_s"`
	// Bottleneck is the link inside it that sets the ceiling.
	Bottleneck string `json:"bottleneck"`
	// Other is the faster side (storage when the network limits, and
	// the reverse); empty when only one side was modelled.
	Other    string  `json:"other,omitempty"`
	OtherMBs float64 `json:"other_mb_s,omitempty"`
	// MeasuredMBs is the best saved bench result of the fastest storage
	// path, MeasuredPath (Path when the disks limit, else Other); 0: none.
	MeasuredMBs  float64 `json:"measured_mb_s,omitempty"`
	MeasuredPath string  `json:"measured_path,omitempty"`
	// AboveMBs is the fastest read a saved bench result measured on
	// MeasuredPath above its ceiling (ceiling.CacheFactor): a cache was
	// measured, or the model is wrong (bus-bench-vs-ceiling); 0: none.
	AboveMBs float64 `json:"measured_above_ceiling_mb_s,omitempty"`
	// Move is what would raise the ceiling.
	Move string `json:"move,omitempty"`
	// Guess: the bottleneck's speed is the model's guess, not knowable
	// from this machine (a virtual disk's host storage, ceiling.Link.Guess).
	Guess bool `json:"guess,omitempty"`
}

// Action is one thing to do: the rule it answers, how many findings of
// that rule it covers, and the command (or, for advice, the rule's own
// recommendation) that does it.
type Action struct {
	Rule     string        `json:"rule,omitempty"`
	Severity rule.Severity `json:"severity"`
	// Subjects are the findings' subjects the action covers.
	Subjects []string `json:"subjects"`
	// What says what it protects or gains, in words.
	What string `json:"what"`
	// Command does it: `nastune plan --only RULE` for settable
	// recommendations, the finding's own command for advice.
	Command string `json:"command"`
}

// Summarize computes the verdict from the findings, the facts they were
// computed from and the expired confirm runs. It is a pure function.
func Summarize(findings []rule.Finding, h *facts.Host, expired []ExpiredRun) Summary {
	s := Summary{Risks: []string{}, Actions: []Action{}}
	for _, f := range findings {
		switch f.Severity {
		case rule.Crit:
			s.Counts.Crit++
			s.Risks = append(s.Risks, f.Subject+": "+f.Title)
		case rule.Warn:
			s.Counts.Warn++
		default:
			s.Counts.Info++
		}
	}
	for _, r := range expired {
		s.Risks = append(s.Risks, "run "+r.ID+" "+r.Message)
	}
	reported, disks, why := healthReported(h)
	switch {
	case disks == 0:
		s.Health = "no whole disks found"
	case reported == 0:
		s.Health = fmt.Sprintf("none of %s reported SMART health", plural(disks, "disk", "disks"))
	default:
		s.Health = fmt.Sprintf("%d of %s reported SMART health", reported, plural(disks, "disk", "disks"))
	}
	if why != "" {
		s.Health += " (" + why + ")"
	}
	switch {
	case len(s.Risks) > 0:
		s.Safety = "at risk"
	case reported == 0:
		// No disk's SMART was read (none found, or none answered): the
		// data's safety is not known, whatever else the audit found.
		s.Safety = "unknown"
	default:
		s.Safety = "ok"
	}
	if h != nil {
		s.Limit = limitOf(ceiling.Paths(h), h.Bench)
	}
	s.Actions = actions(findings, expired)
	return s
}

// healthReported counts whole disks and those whose health is known (the
// level health.Assess gives inventory and the health rules), and
// says why the others have none: the probe's reason per disk (needs root,
// smartctl not installed, a paravirtual disk, not in a captured tree),
// the disks named after each reason.
func healthReported(h *facts.Host) (reported, disks int, why string) {
	if h == nil {
		return 0, 0, ""
	}
	var reasons []string
	names := map[string][]string{}
	for _, d := range h.Block {
		if d.Kind != "disk" {
			continue
		}
		disks++
		// The level inventory and the health rules read: a disk counts as
		// reported when its state is known, whatever its protocol.
		if health.Assess(h, d).Level != health.Unknown {
			reported++
			continue
		}
		r := "not read"
		switch {
		case d.Health != nil && d.Health.NotCollected != "":
			r = d.Health.NotCollected
		case d.Health != nil && d.Health.SMART != nil && d.Health.SMART.Standby:
			r = "in standby, not woken to read SMART"
		}
		if names[r] == nil {
			reasons = append(reasons, r)
		}
		names[r] = append(names[r], d.Name)
	}
	parts := make([]string, 0, len(reasons))
	for _, r := range reasons {
		ns := names[r]
		if len(ns) == 1 && strings.Contains(r, "("+ns[0]+")") {
			parts = append(parts, r) // "paravirtual disk (vda): …" names it
			continue
		}
		parts = append(parts, diskList(ns)+": "+r)
	}
	return reported, disks, strings.Join(parts, "; ")
}

// diskList is "sda" or "sda, sdb, sdc, sdd, … (12 disks)".
func diskList(ns []string) string {
	if len(ns) <= 4 {
		return strings.Join(ns, ", ")
	}
	return strings.Join(ns[:4], ", ") + ", … (" + plural(len(ns), "disk", "disks") + ")"
}

// limitOf names the slower of the fastest storage path and the fastest
// network path: what a client reading a share waits for.
func limitOf(paths []ceiling.Path, bench []facts.BenchMeasure) *Limit {
	net, store := ceiling.Fastest(paths)
	var lim, other *ceiling.Path
	switch {
	case store == nil:
		return nil
	case net == nil || store.CeilingMBs <= net.CeilingMBs:
		lim, other = store, net
	default:
		lim, other = net, store
	}
	l := &Limit{Path: lim.Name, Kind: lim.Kind, MBs: round1(lim.CeilingMBs), Bottleneck: lim.Bottleneck, Move: lim.Move}
	for _, k := range lim.Links {
		l.Guess = l.Guess || (k.Name == lim.Bottleneck && k.Guess)
	}
	if other != nil {
		l.Other, l.OtherMBs = other.Name, round1(other.CeilingMBs)
	}
	// A read faster than the path's ceiling measured a cache (or the
	// model is wrong): it is named as such, never as the path's speed.
	m, ok, above := ceiling.BestRead(bench, *store)
	if ok {
		l.MeasuredMBs, l.MeasuredPath = round1(m.MBs), store.Name
	}
	if above > 0 {
		l.AboveMBs, l.MeasuredPath = round1(above), store.Name
	}
	return l
}

// round1 rounds a throughput to 0.1 MB/s: the model is no finer.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// actions picks at most MaxActions things to do: an expired trial change
// first (it is still applied, unconfirmed), then one action per rule with
// a crit or warn finding, crit first, in the findings' order. Info
// findings are worth knowing, not doing first.
func actions(findings []rule.Finding, expired []ExpiredRun) []Action {
	out := []Action{}
	if len(expired) > 0 {
		var ids []string
		for _, r := range expired {
			ids = append(ids, r.ID)
		}
		out = append(out, Action{Severity: rule.Crit, Subjects: ids,
			What:    "revert " + plural(len(ids), "change run", "change runs") + " applied with --confirm and never confirmed",
			Command: "nastune undo --expired"})
	}
	type group struct {
		first int
		a     Action
	}
	byRule := map[string]*group{}
	var groups []*group
	for i, f := range findings {
		if f.Severity == rule.Info || f.Recommendation == nil {
			continue
		}
		// Advice names its own steps per subject: one action per subject
		// of a family (a failing disk's findings share one replacement).
		key := f.ID
		if f.Recommendation.Kind == rule.KindAdvice {
			key = f.Family + "\x00" + f.Subject
		}
		g := byRule[key]
		if g == nil {
			g = &group{first: i, a: Action{Rule: f.ID, Severity: f.Severity}}
			byRule[key] = g
			groups = append(groups, g)
		}
		g.a.Severity = max(g.a.Severity, f.Severity)
		if !slices.Contains(g.a.Subjects, f.Subject) {
			g.a.Subjects = append(g.a.Subjects, f.Subject)
		}
		if f.Recommendation.Kind == rule.KindAdvice {
			if g.a.Command == "" { // the first (worst) finding's steps
				g.a.What = f.Subject + ": " + f.Title
				g.a.Command = f.Recommendation.Target
			}
		} else {
			g.a.Command = "nastune plan --only " + f.ID
		}
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].a.Severity != groups[j].a.Severity {
			return groups[i].a.Severity > groups[j].a.Severity
		}
		return groups[i].first < groups[j].first
	})
	for _, g := range groups {
		if len(out) == MaxActions {
			break
		}
		a := g.a
		if a.What == "" {
			a.What = findings[g.first].Title + " (" + subjects(a.Subjects) + ")"
		}
		out = append(out, a)
	}
	return out
}

// SortBySeverity orders findings worst first, keeping their order (family,
// rule id, subject) within a severity.
func SortBySeverity(fs []rule.Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity > fs[j].Severity })
}

// subjects is "sda" or "3 subjects: sda, sdb, sdc" (at most four named).
func subjects(ss []string) string {
	if len(ss) == 1 {
		return ss[0]
	}
	named := ss
	if len(named) > 4 {
		named = append(append([]string{}, ss[:4]...), "…")
	}
	return fmt.Sprintf("%d subjects: %s", len(ss), strings.Join(named, ", "))
}

// plural is "1 disk" or "3 disks".
func plural(n int, one, many string) string { return units.Count(n, one, many) }
