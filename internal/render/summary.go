//go:build linux

package render

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/units"
)

// The verdict block printed first in every audit: data safety, the
// limiting path, what to do first. audit.Summarize computes it; these
// functions only print it. Throughput is in MB/s (10^6 bytes per
// second), as in the ceiling model, bench and inventory.

// capturedLine says where and when the facts were read; "" when the
// report does not say (tests).
func capturedLine(c *audit.Capture) string {
	if c == nil {
		return ""
	}
	at := "time unknown (the tree does not say when it was captured)"
	if c.At != nil {
		at = c.At.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	switch c.Source {
	case "live":
		return "read from this machine at " + at
	case "snapshot":
		return "read from a snapshot taken at " + at
	}
	return "read from a captured tree, " + at
}

// safetyLine is the first verdict line.
func safetyLine(s audit.Summary) string {
	switch s.Safety {
	case "at risk":
		return fmt.Sprintf("AT RISK: %s", countWords(len(s.Risks), "risk", "risks"))
	case "unknown":
		return "no risk found, but disk health is unknown: " + s.Health
	}
	return "ok: no failing disk, degraded array or unsafe setting found; " + s.Health
}

// limitLine says which layer caps file service.
func limitLine(l *audit.Limit) string {
	if l == nil {
		return "no storage path was modelled (no disks or arrays found)"
	}
	what := "the disks"
	if l.Kind == "network" {
		what = "the network"
	}
	s := fmt.Sprintf("%s: %s caps file service at about %s (bottleneck %s)", what, l.Path, units.MBs(l.MBs), l.Bottleneck)
	if l.Guess {
		// ceiling models a virtual disk as one rotating disk: a guess, never
		// a claim about the host's storage.
		s = fmt.Sprintf("%s: %s is bounded by %s, whose speed is the host's storage, unseen from the guest (modelled as one rotating disk, about %s)", what, l.Path, l.Bottleneck, units.MBs(l.MBs))
	}
	if l.Other != "" {
		s += fmt.Sprintf("; %s carries about %s", l.Other, units.MBs(l.OtherMBs))
	}
	if l.MeasuredMBs > 0 {
		s += fmt.Sprintf("; bench measured %s on %s", units.MBs(l.MeasuredMBs), l.MeasuredPath)
	}
	if l.AboveMBs > 0 {
		s += fmt.Sprintf("; bench's %s on %s is above its ceiling: a cache was measured, or the model is wrong (bus-bench-vs-ceiling)", units.MBs(l.AboveMBs), l.MeasuredPath)
	}
	return s
}

// actionCommand is what the action line shows after the arrow.
func actionCommand(a audit.Action) string {
	if strings.HasPrefix(a.Command, "nastune ") {
		return "$ " + a.Command
	}
	return "→ " + a.Command
}

// textSummary writes the verdict block. Its text comes from findings and
// facts (subjects, recommendations, paths): every piece passes CleanLine,
// as in Text, since with colours on w is a RawWriter.
func textSummary(w io.Writer, st styler, r *audit.Report) {
	s := r.Summary
	c := CleanLine
	if line := capturedLine(r.Captured); line != "" {
		fmt.Fprintf(w, "%s\n", st.on(ansiDim, c(line)))
	}
	if s.Safety == "" {
		return // not computed: a report read from an older JSON
	}
	fmt.Fprintf(w, "\n%s\n", st.on(ansiBold, "verdict"))
	safety := c(safetyLine(s))
	if s.Safety == "at risk" {
		safety = st.on(ansiRed, safety)
	}
	fmt.Fprintf(w, "  data safety: %s\n", safety)
	for _, risk := range s.Risks {
		fmt.Fprintf(w, "    %s\n", c(risk))
	}
	fmt.Fprintf(w, "  limit: %s\n", c(limitLine(s.Limit)))
	if len(s.Actions) == 0 {
		fmt.Fprintf(w, "  do first: nothing; no crit or warn finding has a change to make\n")
		return
	}
	fmt.Fprintf(w, "  do first:\n")
	for i, a := range s.Actions {
		fmt.Fprintf(w, "    %d. %s %s\n", i+1, padSev(st, a.Severity), c(a.What))
		fmt.Fprintf(w, "          %s\n", c(actionCommand(a)))
	}
}

var summaryTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("summary").Funcs(template.FuncMap{
		"safety": safetyLine, "limit": limitLine, "captured": capturedLine, "isNastune": func(c string) bool { return strings.HasPrefix(c, "nastune ") },
	}).Parse(`<section class="verdict" id="verdict"><h2>Verdict</h2>
{{with captured .Captured}}<p class="meta">{{.}}</p>{{end}}
<p><b{{if eq .Summary.Safety "at risk"}} class="sev-crit"{{end}}>data safety:</b> {{safety .Summary}}</p>
{{if .Summary.Risks}}<ul>{{range .Summary.Risks}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p><b>limit:</b> {{limit .Summary.Limit}}</p>
{{if .Summary.Actions}}<p><b>do first:</b></p><ol>{{range .Summary.Actions}}<li><b class="sev-{{.Severity}}">{{.Severity}}</b> {{.What}}<br>{{if isNastune .Command}}<code>{{.Command}}</code>{{else}}→ {{.Command}}{{end}}</li>{{end}}</ol>
{{else}}<p><b>do first:</b> nothing; no crit or warn finding has a change to make</p>{{end}}
</section>
`))
})

// htmlSummary is the verdict block of the HTML audit.
func htmlSummary(r *audit.Report) (template.HTML, error) {
	if r.Summary.Safety == "" {
		return "", nil
	}
	return execHTML(summaryTmpl(), r)
}

// countWords is "1 risk" or "3 risks".
func countWords(n int, one, many string) string { return units.Count(n, one, many) }
