//go:build linux

package render

// The audit report as HTML: Linux-only, like the audit (internal/audit
// reads the machine nastune runs on); the client builds for macOS and
// Windows render only bench results (html.go).

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"sync"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/rule"
)

var auditTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("audit").Funcs(template.FuncMap{"md": md, "target": target, "human": HumanSize}).Parse(`
<div class="counts">
<span class="pill sev-crit">{{.Crit}} crit</span><span class="pill sev-warn">{{.Warn}} warn</span><span class="pill sev-info">{{.Info}} info</span>
<span class="pill">{{len .R.NotCollected}} not collected</span>
</div>
{{if .R.Findings}}
<div class="controls" role="search">
<label><input type="checkbox" data-filter-sev value="crit" checked> crit</label>
<label><input type="checkbox" data-filter-sev value="warn" checked> warn</label>
<label><input type="checkbox" data-filter-sev value="info" checked> info</label>
<label>family <select id="fam"><option value="">all</option>{{range .Families}}<option>{{.}}</option>{{end}}</select></label>
<label>sort <select id="sort"><option value="severity">severity</option><option value="family">family</option><option value="id">rule</option><option value="subject">subject</option></select></label>
<input type="search" id="q" placeholder="filter text" aria-label="filter text">
<span class="meta"><span id="shown">{{len .R.Findings}}</span> shown</span>
<button type="button" id="expand-all">expand all</button> <button type="button" id="collapse-all">collapse all</button>
</div>
<section id="findings">
{{range .R.Findings}}<details class="finding" data-severity="{{.Severity}}" data-family="{{.Family}}" data-id="{{.ID}}" data-subject="{{.Subject}}" data-rank="{{printf "%d" .Severity}}">
<summary><b class="sev-{{.Severity}}">{{.Severity}}</b> <span>{{md .Title}}</span> <span class="id">{{.ID}}</span> <span class="fam">{{.Family}}</span> <code>{{.Subject}}</code></summary>
<div class="ev">{{range .Evidence}}<div><code>{{.Source}}</code>: <code>{{.Value}}</code></div>{{end}}</div>
<p>{{md .Why}}</p>
{{with .Recommendation}}<p class="rec">→ {{.Kind}} {{target .Target}}{{if .Value}} to <code>{{.Value}}</code>{{with human .Target .Value}} ({{.}}){{end}}{{end}}{{if .Current}} (now <code>{{.Current}}</code>{{with human .Target .Current}}, {{.}}{{end}}){{end}}{{if .Basis}}<br><span class="meta">computed from: {{md .Basis}}</span>{{end}}</p>{{end}}
{{if .Refs}}<div class="refs">{{range .Refs}}<div><a href="{{.}}" rel="noreferrer">{{.}}</a></div>{{end}}</div>{{end}}
</details>
{{end}}</section>
{{else}}<p>No findings: nothing to change on the evidence collected.</p>{{end}}
{{if .R.NotCollected}}<h2>Not collected</h2>
<div class="wrap"><table><thead><tr><th>source</th><th>reason</th></tr></thead><tbody>
{{range .R.NotCollected}}<tr><td><code>{{.Source}}</code></td><td>{{md .Reason}}</td></tr>{{end}}
</tbody></table></div>{{end}}
`))
})

// HTMLAudit writes an audit report as a self-contained page.
func HTMLAudit(w io.Writer, r *audit.Report, o HTMLOptions) error {
	d := struct {
		R                *audit.Report
		Crit, Warn, Info int
		Families         []string
	}{R: r}
	fam := map[string]bool{}
	for _, f := range r.Findings {
		switch f.Severity {
		case rule.Crit:
			d.Crit++
		case rule.Warn:
			d.Warn++
		default:
			d.Info++
		}
		fam[f.Family] = true
	}
	for f := range fam {
		d.Families = append(d.Families, f)
	}
	sort.Strings(d.Families)
	body, err := execHTML(auditTmpl(), d)
	if err != nil {
		return err
	}
	verdict, err := htmlSummary(r)
	if err != nil {
		return err
	}
	body = verdict + body
	h := r.Host
	sub := fmt.Sprintf("kernel %s · %s · %d CPU · %s RAM", orUnknown(h.Kernel), orUnknown(h.Arch), h.CPUs, memString(h.MemBytes))
	return writePage(w, "nastune audit: "+orUnknown(h.Hostname), sub, body, o)
}
