//go:build linux

package render

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/fleet"
	"github.com/nastune/nastune/internal/rule"
)

// FleetText prints the hosts × families matrix (findings per family, the
// worst severity as a letter: C, W, I) and the most common findings.
func FleetText(w io.Writer, r *fleet.Report, top int) error {
	fmt.Fprintf(w, "nastune report: %d hosts, %d families\n", len(r.Hosts), len(r.Families))
	fmt.Fprintf(w, "cells: findings per family and the worst severity (C crit, W warn, I info)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "HOST\tCRIT\tWARN\tINFO")
	for _, f := range r.Families {
		fmt.Fprint(tw, "\t"+Cell(strings.ToUpper(f)))
	}
	fmt.Fprintln(tw)
	for _, h := range r.Hosts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d", Cell(h.Name), h.Crit, h.Warn, h.Info)
		for _, f := range r.Families {
			fmt.Fprint(tw, "\t"+matrixCell(h, f))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if crit := criticalFindings(r); len(crit) > 0 {
		err := fleetSection(w, "critical findings", "HOST\tRULE\tSUBJECT\tTITLE", func(tw io.Writer) {
			for _, c := range crit {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", Cell(c.Host), Cell(c.ID), Cell(dash(c.Subject)), Cell(c.Title))
			}
		})
		if err != nil {
			return err
		}
	}
	if rows := commonByRule(r); len(rows) > 0 {
		err := fleetSection(w, "most common findings (one row per rule, the most severe first)", "HOSTS\tSEVERITY\tRULE\tTITLE", func(tw io.Writer) {
			for i, c := range rows {
				if top > 0 && i >= top {
					fmt.Fprintf(tw, "…\t\t%d more\t\n", len(rows)-top)
					break
				}
				fmt.Fprintf(tw, "%d/%d\t%s\t%s\t%s\n", c.Count, len(r.Hosts), c.SeverityText(), Cell(c.ID), Cell(c.Title))
			}
		})
		if err != nil {
			return err
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nnot read: %s: %s", CleanLine(e.Source), CleanLine(e.Error))
	}
	if len(r.Errors) > 0 {
		fmt.Fprintln(w)
	}
	return nil
}

// fleetSection writes a titled table after a blank line: the header, then
// the rows rows writes (tab-separated), aligned.
func fleetSection(w io.Writer, title, header string, rows func(tw io.Writer)) error {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	rows(tw)
	return tw.Flush()
}

// commonRow is one rule across the fleet: fleet.Report lists a rule once
// per severity it was found at; the pages show it once, at its worst, with
// the hosts of every severity.
type commonRow struct {
	ID, Title, Family string
	Severity          rule.Severity
	Count             int
	HostList          []string
	BySeverity        map[rule.Severity]int
}

// SeverityText is the worst severity, and the split when hosts differ:
// "crit (1 crit, 2 warn)".
func (c commonRow) SeverityText() string {
	if len(c.BySeverity) < 2 {
		return c.Severity.String()
	}
	var parts []string
	for _, s := range []rule.Severity{rule.Crit, rule.Warn, rule.Info} {
		if n := c.BySeverity[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return fmt.Sprintf("%s (%s)", c.Severity, strings.Join(parts, ", "))
}

// commonByRule merges fleet.Report.Common by rule ID: the most severe
// first, then the most widespread, then by ID.
func commonByRule(r *fleet.Report) []commonRow {
	idx := map[string]int{}
	var rows []commonRow
	for _, c := range r.Common {
		i, ok := idx[c.ID]
		if !ok {
			i = len(rows)
			idx[c.ID] = i
			rows = append(rows, commonRow{ID: c.ID, Title: c.Title, Family: c.Family, Severity: c.Severity, BySeverity: map[rule.Severity]int{}})
		}
		row := &rows[i]
		if c.Severity > row.Severity {
			row.Severity = c.Severity
		}
		row.BySeverity[c.Severity] += c.Count
		for _, h := range c.HostList {
			if !slices.Contains(row.HostList, h) {
				row.HostList = append(row.HostList, h)
			}
		}
		row.Count = len(row.HostList)
	}
	slices.SortStableFunc(rows, func(a, b commonRow) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.Count, a.Count), strings.Compare(a.ID, b.ID))
	})
	return rows
}

// critFinding is one critical finding on one host.
type critFinding struct {
	Host, ID, Subject, Title string
}

// criticalFindings lists every critical finding of the fleet, host by host
// (hosts are already most critical first).
func criticalFindings(r *fleet.Report) []critFinding {
	var out []critFinding
	for _, h := range r.Hosts {
		for _, f := range h.Findings {
			if f.Severity == rule.Crit {
				out = append(out, critFinding{Host: h.Name, ID: f.ID, Subject: f.Subject, Title: f.Title})
			}
		}
	}
	return out
}

func matrixCell(h fleet.Host, fam string) string {
	n := h.Families[fam]
	if n == 0 {
		return "·"
	}
	return fmt.Sprintf("%d%s", n, strings.ToUpper(h.Worst[fam].String()[:1]))
}

var fleetTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("fleet").Funcs(template.FuncMap{
		"md":    md,
		"worst": func(h fleet.Host, f string) string { return h.Worst[f].String() },
		"count": func(h fleet.Host, f string) int { return h.Families[f] },
	}).Parse(`
<div class="counts"><span class="pill">{{len .R.Hosts}} hosts</span>{{if .R.Errors}}<span class="pill sev-crit">{{len .R.Errors}} inputs not read</span>{{end}}</div>
{{if .Crit}}<h2 class="sev-crit">Critical findings</h2>
<div class="wrap"><table id="critical"><thead><tr><th class="sortable">host</th><th class="sortable">rule</th><th>subject</th><th>title</th></tr></thead><tbody>
{{range .Crit}}<tr class="crit-row"><td><a href="#host-{{.Host}}">{{.Host}}</a></td><td class="id">{{.ID}}</td><td><code>{{.Subject}}</code></td><td>{{md .Title}}</td></tr>
{{end}}</tbody></table></div>{{end}}
<h2>Hosts × families</h2>
<p class="meta">Findings per family; the colour is the worst severity. Click a header to sort.</p>
<div class="wrap"><table class="matrix"><thead><tr><th class="sortable">host</th><th class="sortable">crit</th><th class="sortable">warn</th><th class="sortable">info</th>{{range .R.Families}}<th class="sortable">{{.}}</th>{{end}}</tr></thead><tbody>
{{range $h := .R.Hosts}}<tr><td><a href="#host-{{$h.Name}}">{{$h.Name}}</a></td><td class="num">{{$h.Crit}}</td><td class="num">{{$h.Warn}}</td><td class="num">{{$h.Info}}</td>{{range $.R.Families}}{{$n := count $h .}}<td class="cell {{if $n}}sev-{{worst $h .}}{{else}}cell-0{{end}}" data-v="{{$n}}">{{if $n}}{{$n}}{{else}}·{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
<h2>Most common findings</h2>
<p class="meta">One row per rule, at the most severe level any host has it; the most severe first.</p>
<div class="wrap"><table id="common"><thead><tr><th class="sortable">hosts</th><th class="sortable">severity</th><th class="sortable">rule</th><th class="sortable">family</th><th>title</th><th>which hosts</th></tr></thead><tbody>
{{range .Common}}<tr{{if eq .Severity.String "crit"}} class="crit-row"{{end}} data-rule="{{.ID}}"><td class="num" data-v="{{.Count}}">{{.Count}}/{{len $.R.Hosts}}</td><td class="sev-{{.Severity}}" data-v="{{printf "%d" .Severity}}">{{.SeverityText}}</td><td class="id">{{.ID}}</td><td>{{.Family}}</td><td>{{md .Title}}</td><td><details><summary>{{len .HostList}}</summary>{{range .HostList}}{{.}} {{end}}</details></td></tr>
{{end}}</tbody></table></div>
<h2>Hosts</h2>
{{range .R.Hosts}}<details id="host-{{.Name}}"><summary><b>{{.Name}}</b> <span class="meta">{{.Kernel}} · {{.Arch}} · {{.Crit}} crit, {{.Warn}} warn, {{.Info}} info{{if .NotCollected}} · {{.NotCollected}} not collected{{end}}</span></summary>
{{range .Findings}}<div class="finding-line"><b class="sev-{{.Severity}}">{{.Severity}}</b> <span class="id">{{.ID}}</span> <code>{{.Subject}}</code> {{md .Title}}{{with .Recommendation}} <span class="meta">→ {{.Target}}{{if .Value}} = {{.Value}}{{end}}</span>{{end}}</div>{{end}}
</details>
{{end}}
{{if .R.Errors}}<h2>Inputs not read</h2><ul>{{range .R.Errors}}<li><code>{{.Source}}</code>: {{.Error}}</li>{{end}}</ul>{{end}}
`))
})

// HTMLFleet writes the fleet view as one self-contained page.
func HTMLFleet(w io.Writer, r *fleet.Report, o HTMLOptions) error {
	body, err := execHTML(fleetTmpl(), struct {
		R      *fleet.Report
		Common []commonRow
		Crit   []critFinding
	}{r, commonByRule(r), criticalFindings(r)})
	if err != nil {
		return err
	}
	return writePage(w, "nastune fleet report", fmt.Sprintf("%d hosts", len(r.Hosts)), body, o)
}
