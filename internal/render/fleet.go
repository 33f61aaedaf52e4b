package render

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/fleet"
)

// FleetText prints the hosts × families matrix (findings per family, the
// worst severity as a letter: C, W, I) and the most common findings.
func FleetText(w io.Writer, r *fleet.Report, top int) error {
	fmt.Fprintf(w, "nastune report: %d hosts, %d families\n", len(r.Hosts), len(r.Families))
	fmt.Fprintf(w, "cells: findings per family and the worst severity (C crit, W warn, I info)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "HOST\tCRIT\tWARN\tINFO")
	for _, f := range r.Families {
		fmt.Fprint(tw, "\t"+strings.ToUpper(f))
	}
	fmt.Fprintln(tw)
	for _, h := range r.Hosts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d", h.Name, h.Crit, h.Warn, h.Info)
		for _, f := range r.Families {
			fmt.Fprint(tw, "\t"+matrixCell(h, f))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Common) > 0 {
		fmt.Fprintf(w, "\nmost common findings\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "HOSTS\tSEVERITY\tRULE\tTITLE")
		for i, c := range r.Common {
			if top > 0 && i >= top {
				fmt.Fprintf(tw, "…\t\t%d more\t\n", len(r.Common)-top)
				break
			}
			fmt.Fprintf(tw, "%d/%d\t%s\t%s\t%s\n", c.Count, len(r.Hosts), c.Severity, c.ID, c.Title)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nnot read: %s: %s", e.Source, e.Error)
	}
	if len(r.Errors) > 0 {
		fmt.Fprintln(w)
	}
	return nil
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
		"worst": func(h fleet.Host, f string) string { return h.Worst[f].String() },
		"count": func(h fleet.Host, f string) int { return h.Families[f] },
	}).Parse(`
<div class="counts"><span class="pill">{{len .R.Hosts}} hosts</span>{{if .R.Errors}}<span class="pill sev-crit">{{len .R.Errors}} inputs not read</span>{{end}}</div>
<h2>Hosts × families</h2>
<p class="meta">Findings per family; the colour is the worst severity. Click a header to sort.</p>
<div class="wrap"><table class="matrix"><thead><tr><th class="sortable">host</th><th class="sortable">crit</th><th class="sortable">warn</th><th class="sortable">info</th>{{range .R.Families}}<th class="sortable">{{.}}</th>{{end}}</tr></thead><tbody>
{{range $h := .R.Hosts}}<tr><td><a href="#host-{{$h.Name}}">{{$h.Name}}</a></td><td class="num">{{$h.Crit}}</td><td class="num">{{$h.Warn}}</td><td class="num">{{$h.Info}}</td>{{range $.R.Families}}{{$n := count $h .}}<td class="cell {{if $n}}sev-{{worst $h .}}{{else}}cell-0{{end}}" data-v="{{$n}}">{{if $n}}{{$n}}{{else}}·{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
<h2>Most common findings</h2>
<div class="wrap"><table><thead><tr><th class="sortable">hosts</th><th class="sortable">severity</th><th class="sortable">rule</th><th class="sortable">family</th><th>title</th><th>which hosts</th></tr></thead><tbody>
{{range .R.Common}}<tr><td class="num" data-v="{{.Count}}">{{.Count}}/{{len $.R.Hosts}}</td><td class="sev-{{.Severity}}" data-v="{{printf "%d" .Severity}}">{{.Severity}}</td><td class="id">{{.ID}}</td><td>{{.Family}}</td><td>{{.Title}}</td><td><details><summary>{{len .HostList}}</summary>{{range .HostList}}{{.}} {{end}}</details></td></tr>
{{end}}</tbody></table></div>
<h2>Hosts</h2>
{{range .R.Hosts}}<details id="host-{{.Name}}"><summary><b>{{.Name}}</b> <span class="meta">{{.Kernel}} · {{.Arch}} · {{.Crit}} crit, {{.Warn}} warn, {{.Info}} info{{if .NotCollected}} · {{.NotCollected}} not collected{{end}}</span></summary>
{{range .Findings}}<div class="finding-line"><b class="sev-{{.Severity}}">{{.Severity}}</b> <span class="id">{{.ID}}</span> <code>{{.Subject}}</code> {{.Title}}{{with .Recommendation}} <span class="meta">→ {{.Target}}{{if .Value}} = {{.Value}}{{end}}</span>{{end}}</div>{{end}}
</details>
{{end}}
{{if .R.Errors}}<h2>Inputs not read</h2><ul>{{range .R.Errors}}<li><code>{{.Source}}</code>: {{.Error}}</li>{{end}}</ul>{{end}}
`))
})

// HTMLFleet writes the fleet view as one self-contained page.
func HTMLFleet(w io.Writer, r *fleet.Report, o HTMLOptions) error {
	body, err := execHTML(fleetTmpl(), struct{ R *fleet.Report }{r})
	if err != nil {
		return err
	}
	return writePage(w, "nastune fleet report", fmt.Sprintf("%d hosts", len(r.Hosts)), body, o)
}
