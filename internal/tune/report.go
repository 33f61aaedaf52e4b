package tune

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/htmlpage"
)

// WriteText prints the result: the noise band once, then a table with
// every trial's value, median, range (slowest–fastest run) and verdict,
// the final run and what was kept. With several tests the score is
// compared and each test's median shown beside it.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "\nnoise band %.1f%%: the baseline's range (fastest − slowest run) ÷ median over %d runs, at least 5%%.\n", r.ThresholdPct, r.Baseline.Runs)
	fmt.Fprintf(w, "A trial is kept when its median gains more than the noise band over the best before it and its\n")
	fmt.Fprintf(w, "slowest run beats the best's fastest; the final run must beat the baseline measured again\n")
	fmt.Fprintf(w, "between its halves (kept, baseline, kept) by the same rule.\n")
	if ladders(r.Knobs) {
		fmt.Fprintf(w, "A ladder (read-ahead, queue depth, stripe cache, a buffer maximum) is tried smallest first, each\n")
		fmt.Fprintf(w, "value against the knob's own (GAIN); a value gains when it beats, by the rule above, the knob's own\n")
		fmt.Fprintf(w, "and the last value below it that gained. The last that gained is kept: the smallest that reaches\n")
		fmt.Fprintf(w, "the plateau (two values in a row that do not gain; the larger ones are not tried).\n")
	}
	if len(r.Tests) > 1 {
		fmt.Fprintf(w, "score: 100 × the geometric mean of each test's result ÷ its baseline median (%s).\n", strings.Join(r.Tests, ", "))
	}
	if len(r.BandByTest) > 0 {
		var bands []string
		for _, t := range r.Tests {
			bands = append(bands, fmt.Sprintf("%s %.1f%%", t, r.BandByTest[t]))
		}
		fmt.Fprintf(w, "A knob that changes one test only is judged by that test alone, against that test's own noise band\n")
		fmt.Fprintf(w, "(%s); its GAIN names the test.\n", strings.Join(bands, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	unit := r.Baseline.Unit
	multi := len(r.Tests) > 1
	head := "\nKNOB\tFROM\tTO\t"
	if multi {
		for _, t := range r.Tests {
			head += strings.ToUpper(t) + " " + r.Units[t] + "\t"
		}
	}
	fmt.Fprintf(tw, "%sMEDIAN %s\tRANGE\tGAIN\tVERDICT\n", head, unit)
	per := func(s Stat) string {
		if !multi {
			return ""
		}
		out := ""
		for _, t := range r.Tests {
			out += fmt.Sprintf("%.1f\t", s.Tests[t])
		}
		return out
	}
	dash := ""
	if multi {
		dash = strings.Repeat("-\t", len(r.Tests))
	}
	fmt.Fprintf(tw, "baseline\t\t\t%s%.1f\t%s\t\t%d runs\n", per(r.Baseline), r.Baseline.Median, rangeOf(r.Baseline), r.Baseline.Runs)
	for _, t := range r.Trials {
		if t.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s-\t-\t-\trefused\n", shortKnob(t.Knob), t.From, t.To, dash)
			continue
		}
		g := fmt.Sprintf("%+.1f%%", t.Gain)
		if len(t.JudgedBy) > 0 {
			g += " " + strings.Join(t.JudgedBy, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%.1f\t%s\t%s\t%s\n", shortKnob(t.Knob), t.From, t.To, per(t.Stat), t.Median, rangeOf(t.Stat), g, t.Verdict)
	}
	if r.Final != nil && r.FinalBaseline != nil {
		fmt.Fprintf(tw, "final: all kept\t\t\t%s%.1f\t%s\t%+.1f%%\tholds\n", per(*r.Final), r.Final.Median, rangeOf(*r.Final), r.FinalGain)
		fmt.Fprintf(tw, "final: baseline again\t\t\t%s%.1f\t%s\t\t\n", per(*r.FinalBaseline), r.FinalBaseline.Median, rangeOf(*r.FinalBaseline))
	}
	tw.Flush()
	fmt.Fprintln(w)
	if r.ThresholdPct > WideNoisePct {
		fmt.Fprintf(w, "note: the noise band is wide (%.1f%%): a real gain smaller than it cannot be told from noise and is\n", r.ThresholdPct)
		fmt.Fprintf(w, "  reverted. To decide smaller gains, measure when the box and the path are quiet (other load, backups,\n")
		fmt.Fprintf(w, "  scrubs), and make each measurement longer (--sample for --file, --time for --net, a larger --size\n")
		fmt.Fprintf(w, "  for --share).\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Interrupted {
		fmt.Fprintln(w, "interrupted: every trial value was reverted; nothing kept")
	}
	if len(r.Kept) == 0 {
		if !r.Interrupted {
			fmt.Fprintln(w, "kept: nothing (the system is as before)")
		}
		return
	}
	fmt.Fprintf(w, "kept (run %s; undo with: nastune undo %s):\n", r.RunID, r.RunID)
	for _, k := range r.Kept {
		fmt.Fprintf(w, "  %s: %s → %s (%s)\n", shortKnob(k.Knob), k.From, k.To, k.Persisted)
	}
}

// WideNoisePct is the noise band above which the report says how to
// narrow it.
const WideNoisePct = 20

// rangeOf is a stat's slowest–fastest run.
func rangeOf(s Stat) string {
	return fmt.Sprintf("%.1f–%.1f", minOf(s.Values), maxOf(s.Values))
}

// htmlTmpl is parsed on first use: parsed at start-up it cost every
// nastune command (audit, version) 650 allocations. A sync.Once, not a
// sync.OnceValue variable, which is built by init code (see smbKnobs).
func htmlTmpl() *template.Template {
	htmlTmplOnce.Do(func() { htmlTmplV = parseHTMLTmpl() })
	return htmlTmplV
}

var (
	htmlTmplOnce sync.Once
	htmlTmplV    *template.Template
)

func parseHTMLTmpl() *template.Template {
	return template.Must(template.New("tune").Funcs(template.FuncMap{
		"bar": func(v, maxv float64) float64 {
			if maxv <= 0 {
				return 0
			}
			return v / maxv * 560
		},
		"lo":      func(s Stat) float64 { return minOf(s.Values) },
		"hi":      func(s Stat) float64 { return maxOf(s.Values) },
		"ladders": ladders,
	}).Parse(`<p>Tests: {{range $i, $t := .R.Tests}}{{if $i}}, {{end}}{{$t}}{{end}}. A trial is kept when its median gains more than
{{printf "%.1f" .R.ThresholdPct}}% over the best before it (the baseline's spread, at least 5%).{{if ladders .R.Knobs}}
A ladder (read-ahead, queue depth, stripe cache, a buffer maximum) is tried smallest first, each value against the knob's own;
a value gains when it beats the knob's own and the last value below it that gained. The last that gained is kept:
the smallest that reaches the plateau (two values in a row that do not gain; the larger ones are not tried).{{end}}</p>
<svg width="900" height="{{.Height}}" role="img" aria-label="median and spread of every trial">
{{range $i, $row := .Rows}}<g transform="translate(0,{{$row.Y}})">
<text x="0" y="14">{{$row.Label}}</text>
<rect x="320" y="2" height="16" width="{{bar $row.S.Median $.Max}}" fill="{{$row.Color}}"></rect>
<line x1="{{bar (lo $row.S) $.Max | printf "%.1f"}}" x2="{{bar (hi $row.S) $.Max | printf "%.1f"}}" y1="10" y2="10" stroke="#000" transform="translate(320,0)"></line>
<text x="{{$row.TX}}" y="14">{{printf "%.1f" $row.S.Median}} {{$.R.Baseline.Unit}}</text></g>
{{end}}</svg>
<table><tr><th>knob</th><th>from</th><th>to</th><th>median</th><th>spread</th><th>gain</th><th>verdict</th><th>why</th></tr>
<tr><td>baseline</td><td></td><td></td><td>{{printf "%.1f" .R.Baseline.Median}}</td><td>{{printf "%.1f" .R.Baseline.Spread}}</td><td></td><td>{{.R.Baseline.Runs}} runs</td><td></td></tr>
{{range .R.Trials}}<tr><td>{{.Knob}}</td><td>{{.From}}</td><td>{{.To}}</td><td>{{printf "%.1f" .Median}}</td><td>{{printf "%.1f" .Spread}}</td><td>{{printf "%+.1f" .Gain}}%</td><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.Why}}{{.Error}}</td></tr>
{{end}}</table>
{{if .R.Kept}}<p>Kept as run {{.R.RunID}} (<code>nastune undo {{.R.RunID}}</code> reverts it):</p><ul>
{{range .R.Kept}}<li><code>{{.Knob}}</code>: {{.From}} → {{.To}} ({{.Persisted}})</li>{{end}}</ul>
{{else}}<p>Nothing kept: the system is as before.</p>{{end}}
`))
}

// htmlCSS are the rules only the tune page uses, on top of the shell's.
const htmlCSS = `.kept{color:var(--ok)}.reverted{color:var(--crit)}svg text{font-size:11px}
`

type htmlRow struct {
	Label, Color string
	S            Stat
	Y, TX        float64
}

// WriteHTML writes a page in the shell of internal/htmlpage with a chart of every trial (median bar and
// min-max line) and the table.
func WriteHTML(w io.Writer, r *Result) error {
	rows := []htmlRow{{Label: "baseline", Color: "#888", S: r.Baseline}}
	for _, t := range r.Trials {
		if t.Error != "" {
			continue
		}
		c := "#c66"
		if t.Verdict == "kept" {
			c = "#6a6"
		}
		rows = append(rows, htmlRow{Label: shortKnob(t.Knob) + " " + t.From + "→" + t.To, Color: c, S: t.Stat})
	}
	if r.Final != nil && r.FinalBaseline != nil {
		rows = append(rows, htmlRow{Label: "final: all kept", Color: "#36c", S: *r.Final},
			htmlRow{Label: "final: baseline again", Color: "#888", S: *r.FinalBaseline})
	}
	mx := 0.0
	for _, row := range rows {
		mx = max(mx, maxOf(row.S.Values), row.S.Median)
	}
	for i := range rows {
		rows[i].Y = float64(i) * 24
		rows[i].TX = 320 + rows[i].S.Median/max(mx, 1)*560 + 6
		if rows[i].TX > 820 {
			rows[i].TX = 820
		}
	}
	var body strings.Builder
	if err := htmlTmpl().Execute(&body, map[string]any{"R": r, "Rows": rows, "Max": mx, "Height": len(rows)*24 + 4}); err != nil {
		return err
	}
	return htmlpage.Write(w, htmlpage.Page{Title: "nastune tune", Sub: fmt.Sprintf("%d trials; baseline median %.1f %s", len(r.Trials), r.Baseline.Median, r.Baseline.Unit),
		Body: template.HTML(body.String()), CSS: htmlCSS}) //nolint:gosec // produced by html/template, escaped
}

// shortKnob is how a knob is named in the report: a block attribute
// without /sys/block/, a sysctl by its dotted key.
func shortKnob(p string) string {
	if k, ok := strings.CutPrefix(p, "/proc/sys/"); ok {
		return strings.ReplaceAll(k, "/", ".")
	}
	return strings.TrimPrefix(p, "/sys/block/")
}

func minOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// ladders says whether any knob is a ladder (Knob.Ladder).
func ladders(ks []Knob) bool {
	for _, k := range ks {
		if k.Ladder {
			return true
		}
	}
	return false
}
