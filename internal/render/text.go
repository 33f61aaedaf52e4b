//go:build linux

package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/rule"
)

// ANSI styles; plain strings keep the binary small (no terminal library).
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiRed   = "\x1b[1;31m"
	ansiYell  = "\x1b[33m"
	ansiCyan  = "\x1b[36m"
)

type styler bool

func (s styler) on(code, text string) string {
	if !s {
		return text
	}
	return code + text + ansiReset
}

func (s styler) sev(v rule.Severity) string {
	label := strings.ToUpper(v.String())
	switch v {
	case rule.Crit:
		return s.on(ansiRed, label)
	case rule.Warn:
		return s.on(ansiYell, label)
	}
	return s.on(ansiCyan, label)
}

// Text writes the audit for a person: a header, the verdict (summary.go),
// findings worst first and grouped by family within a severity, with
// their evidence and recommendation, and a count line. Every value from
// the report passes CleanLine (no control character, no forged line), so
// with colours on the text goes to RawWriter(w): the only escape sequences
// in it are the styles written here.
func Text(w io.Writer, r *audit.Report, o Options) error {
	if o.Color {
		w = RawWriter(w)
	}
	bw := bufio.NewWriter(w)
	st := styler(o.Color)
	c := CleanLine
	h := r.Host
	fmt.Fprintf(bw, "%s %s · kernel %s · %s · %d CPU · %s RAM\n",
		st.on(ansiBold, "nastune audit:"), c(orUnknown(h.Hostname)), c(orUnknown(h.Kernel)), c(orUnknown(h.Arch)),
		h.CPUs, memString(h.MemBytes))
	for _, r := range r.ExpiredRuns {
		fmt.Fprintf(bw, "%s run %s %s; %s\n", st.on(ansiBold, "nastune journal:"), r.ID, r.Message, r.Fix)
	}
	textSummary(bw, st, r)
	family := ""
	for _, f := range r.Findings {
		if f.Family != family {
			family = f.Family
			fmt.Fprintf(bw, "\n%s\n", st.on(ansiBold, c(family)))
		}
		fmt.Fprintf(bw, "  %s  %s  %s: %s\n", padSev(st, f.Severity), c(f.ID), c(f.Subject), c(f.Title))
		for _, e := range f.Evidence {
			fmt.Fprintf(bw, "        %s %s\n", st.on(ansiDim, c(e.Source)+":"), c(e.Value))
		}
		if o.Verbose {
			fmt.Fprintf(bw, "        %s %s\n", st.on(ansiDim, "why:"), c(f.Why))
		}
		if rec := f.Recommendation; rec != nil {
			fmt.Fprintf(bw, "        → %s\n", c(recommendation(rec)))
			if o.Verbose && rec.Basis != "" {
				fmt.Fprintf(bw, "          %s %s\n", st.on(ansiDim, "computed from:"), c(rec.Basis))
			}
		}
		if o.Verbose {
			for _, ref := range f.Refs {
				fmt.Fprintf(bw, "        %s %s\n", st.on(ansiDim, "ref:"), c(ref))
			}
		}
	}
	if o.Verbose && len(r.NotCollected) > 0 {
		fmt.Fprintf(bw, "\n%s\n", st.on(ansiBold, "not collected"))
		for _, n := range r.NotCollected {
			fmt.Fprintf(bw, "  %s: %s\n", c(n.Source), c(n.Reason))
		}
	}
	fmt.Fprintf(bw, "\n%s\n", summary(st, r, o.Verbose))
	return bw.Flush()
}

func padSev(st styler, v rule.Severity) string {
	return st.sev(v) + strings.Repeat(" ", 4-len(v.String()))
}

func recommendation(r *rule.Recommendation) string {
	switch r.Kind {
	case rule.KindAdvice:
		return r.Target
	case rule.KindSysctl:
		return fmt.Sprintf("set %s = %s", r.Target, valueNow(r))
	case rule.KindERC:
		return fmt.Sprintf("set SCT ERC of %s to %s with smartctl -l scterc (nastune apply; a udev rule repeats it at boot)", r.Target, valueNow(r))
	}
	return fmt.Sprintf("set %s to %s", r.Target, valueNow(r))
}

// valueNow is "V (now C)", with human sizes for size settings:
// "524288 (512 KiB; now 212992, 208 KiB)".
func valueNow(r *rule.Recommendation) string {
	var in []string
	if h := HumanSize(r.Target, r.Value); h != "" {
		in = append(in, h)
	}
	if r.Current != "" {
		now := "now " + r.Current
		if h := HumanSize(r.Target, r.Current); h != "" {
			now += ", " + h
		}
		in = append(in, now)
	}
	if len(in) == 0 {
		return r.Value
	}
	return r.Value + " (" + strings.Join(in, "; ") + ")"
}

func summary(st styler, r *audit.Report, verbose bool) string {
	var n [3]int
	for _, f := range r.Findings {
		n[f.Severity]++
	}
	s := fmt.Sprintf("%s: %s crit, %s warn, %s info", countWords(len(r.Findings), "finding", "findings"),
		st.on(ansiRed, fmt.Sprint(n[rule.Crit])), st.on(ansiYell, fmt.Sprint(n[rule.Warn])), st.on(ansiCyan, fmt.Sprint(n[rule.Info])))
	if len(r.Findings) == 0 {
		s = "no findings: nothing to change on the evidence collected"
	}
	if k := len(r.NotCollected); k > 0 {
		s += "; " + countWords(k, "source", "sources") + " not collected"
		if !verbose {
			s += " (--verbose lists them)"
		}
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

func memString(b uint64) string {
	if b == 0 {
		return "(unknown)"
	}
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}
