//go:build linux

package render

import (
	"bufio"
	"io"
	"sort"
	"time"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/rule"
)

// PromOptions are what the exposition needs beyond the report.
type PromOptions struct {
	Now     time.Time // the audit's time
	Version string    // nastune's version
}

// Prom writes an audit report as Prometheus metrics.
func Prom(w io.Writer, r *audit.Report, o PromOptions) error {
	bw := bufio.NewWriter(w)
	p := promWriter{w: bw}
	p.family("nastune_info", "gauge", "The audited host and the nastune version (value 1).")
	p.sample("nastune_info", 1, "version", o.Version, "hostname", r.Host.Hostname, "kernel", r.Host.Kernel, "arch", r.Host.Arch)

	p.family("nastune_audit_timestamp_seconds", "gauge", "When the audit ran, in seconds since the Unix epoch.")
	p.sample("nastune_audit_timestamp_seconds", float64(o.Now.UnixMilli())/1000)

	// One series per (id, subject); a rule that reports the same subject
	// twice counts it, so no series is ever duplicated.
	type key struct{ id, family, sev, subject string }
	count := map[key]int{}
	bySev := map[rule.Severity]int{}
	for _, f := range r.Findings {
		count[key{f.ID, f.Family, f.Severity.String(), f.Subject}]++
		bySev[f.Severity]++
	}
	keys := make([]key, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.id != b.id {
			return a.id < b.id
		}
		return a.subject < b.subject
	})
	p.family("nastune_finding", "gauge", "A finding of the audit: rule id, family, severity and subject (value: how many, normally 1).")
	for _, k := range keys {
		p.sample("nastune_finding", float64(count[k]), "id", k.id, "family", k.family, "severity", k.sev, "subject", k.subject)
	}
	p.family("nastune_findings", "gauge", "Findings of the audit by severity.")
	for _, s := range []rule.Severity{rule.Info, rule.Warn, rule.Crit} {
		p.sample("nastune_findings", float64(bySev[s]), "severity", s.String())
	}
	promHealth(&p, r.Facts)
	p.family("nastune_not_collected", "gauge", "Sources the audit could not read (run as root, install the tool).")
	p.sample("nastune_not_collected", float64(len(r.NotCollected)))
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}
