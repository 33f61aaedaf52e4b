// Package audit ties the read side together: probe a root into facts, run
// the rules, and return a Report, the one value every renderer takes.
//
// An audit never writes: it reads through a hostfs.Root, which has no write
// methods, and rules are pure functions.
package audit

import (
	"context"
	"time"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// Schema names the JSON layout of Report; see docs/json.md.
const Schema = "nastune/audit/v1"

// Report is the result of one audit.
type Report struct {
	Schema string      `json:"schema"`
	Host   HostSummary `json:"host"`
	// Captured says where and when the facts were read; nil when the
	// caller did not say (tests).
	Captured *Capture `json:"captured,omitempty"`
	// Summary is the verdict, computed from the findings and facts by
	// Summarize; (*Report).Summarize refreshes it after filtering.
	Summary      Summary              `json:"summary"`
	Findings     []rule.Finding       `json:"findings"`
	NotCollected []facts.NotCollected `json:"not_collected"`
	// ExpiredRuns are runs applied with `apply --confirm` whose deadline
	// passed unconfirmed and that nothing is reverting (a live audit
	// reads them from nastune's journal; audit itself never reverts).
	ExpiredRuns []ExpiredRun `json:"expired_runs,omitempty"`
	Facts       *facts.Host  `json:"-"`
}

// ExpiredRun is one run applied with --confirm, past its deadline, still
// applied, with no watchdog: Fix is the command that reverts it.
type ExpiredRun struct {
	ID       string    `json:"id"`
	Deadline time.Time `json:"deadline"`
	Message  string    `json:"message"`
	Fix      string    `json:"fix"`
}

// Capture is where the facts came from and when they were read.
type Capture struct {
	// Source is "live" (this machine), "snapshot" (audit --from) or
	// "tree" (audit --root).
	Source string `json:"source"`
	// At is when the facts were read: now for a live run, the snapshot's
	// creation time; absent when unknown (a captured tree does not say).
	At *time.Time `json:"at,omitempty"`
}

// HostSummary is the header of a report.
type HostSummary struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
	MemBytes uint64 `json:"mem_bytes"`
}

// Options are the user's assumptions for the rules.
type Options struct {
	RTT time.Duration // 0: LAN default
}

// Run audits root.
func Run(ctx context.Context, root *hostfs.Root, opts Options) *Report {
	h := probe.Collect(ctx, root)
	return FromFacts(h, opts)
}

// FromFacts runs the rules on already collected facts.
func FromFacts(h *facts.Host, opts Options) *Report {
	nc := h.NotCollected
	if nc == nil {
		nc = []facts.NotCollected{}
	}
	r := &Report{
		Schema: Schema,
		Host: HostSummary{
			Hostname: h.Hostname, Kernel: h.Kernel.Release, Arch: h.Arch,
			CPUs: h.CPU.Count, MemBytes: h.Memory.TotalBytes,
		},
		Findings:     rules.Run(rule.Input{Host: h, RTT: opts.RTT}),
		NotCollected: nc,
		Facts:        h,
	}
	r.Summarize()
	return r
}

// Summarize orders the findings worst first and recomputes the Summary
// from them: call it after changing Findings or ExpiredRuns.
func (r *Report) Summarize() {
	SortBySeverity(r.Findings)
	r.Summary = Summarize(r.Findings, r.Facts, r.ExpiredRuns)
}

// Worst returns the highest severity among the findings and false when
// there are none.
func (r *Report) Worst() (rule.Severity, bool) {
	if len(r.Findings) == 0 {
		return 0, false
	}
	w := rule.Info
	for _, f := range r.Findings {
		w = max(w, f.Severity)
	}
	return w, true
}
