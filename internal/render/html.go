package render

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/htmlpage"
	"github.com/nastune/nastune/internal/units"
)

// HTML output: one self-contained file per report, in the page shell of
// internal/htmlpage. The small filter/sort script is this package's own:
// the page works without it (everything is shown, unsorted).

//go:embed assets/script.js
var htmlJS string

// HTMLOptions are what a page needs beyond its data.
type HTMLOptions struct {
	Now     time.Time
	Version string
}

func writePage(w io.Writer, title, sub string, body template.HTML, o HTMLOptions) error {
	return htmlpage.Write(w, htmlpage.Page{Title: title, Sub: sub, Body: body, JS: template.JS(htmlJS), //nolint:gosec // our own script
		Footer: "nastune " + o.Version + " · " + o.Now.UTC().Format("2006-01-02 15:04 UTC")})
}

func execHTML(t *template.Template, v any) (template.HTML, error) {
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil //nolint:gosec // produced by html/template, escaped
}

// md renders the one piece of markdown rule texts use, `code`, as <code>;
// everything else is escaped text.
func md(s string) template.HTML {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unpaired backtick stays a backtick
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(p))
		}
	}
	return template.HTML(b.String()) //nolint:gosec // every part escaped above
}

// target is a recommendation's target: a path or key as code, or, when it
// is a sentence with `code` in it (manual steps), that sentence.
func target(s string) template.HTML {
	if strings.Contains(s, "`") {
		return md(s)
	}
	return "<code>" + template.HTML(template.HTMLEscapeString(s)) + "</code>" //nolint:gosec // escaped
}

// table is a generic HTML table built from a slice of structs.
type table struct {
	Title   string
	Columns []string
	Rows    [][]cell
	Notes   []string
}

type cell struct {
	Text string
	Sort string // sort key (numbers raw)
	Num  bool
}

var tablesTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("tables").Parse(`
{{range .Notes}}<p class="meta">{{.}}</p>{{end}}
{{range .Tables}}<h2>{{.Title}}</h2>
{{if .Rows}}<div class="wrap"><table><thead><tr>{{range .Columns}}<th class="sortable">{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}} data-v="{{.Sort}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{else}}<p class="meta">none</p>{{end}}
{{range .Notes}}<p class="meta">{{.}}</p>{{end}}
{{end}}`))
})

// HTMLTables writes a struct of row slices (an inventory) as one page of
// sortable tables: each slice field is a table whose columns are the
// element's JSON fields; scalar fields become notes.
func HTMLTables(w io.Writer, title, sub string, v any, o HTMLOptions) error {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return fmt.Errorf("html tables: %T is not a struct", v)
	}
	d := struct {
		Notes  []string
		Tables []table
	}{}
	if gs, ok := inventoryGrids(v); ok {
		for _, g := range gs {
			t := table{Title: g.Title, Columns: g.Header, Notes: g.Notes}
			for _, r := range g.Rows {
				for len(r) < len(g.Header) {
					r = append(r, cell{Text: "–"})
				}
				t.Rows = append(t.Rows, r)
			}
			d.Tables = append(d.Tables, t)
		}
		body, err := execHTML(tablesTmpl(), d)
		if err != nil {
			return err
		}
		return writePage(w, title, sub, body, o)
	}
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		fv := rv.Field(i)
		if fv.Kind() == reflect.Slice && elemStruct(fv.Type().Elem()) {
			d.Tables = append(d.Tables, sliceTable(strings.ReplaceAll(name, "_", " "), fv))
			continue
		}
		if !fv.IsZero() {
			d.Notes = append(d.Notes, strings.ReplaceAll(name, "_", " ")+": "+cellOf(fv).Text)
		}
	}
	body, err := execHTML(tablesTmpl(), d)
	if err != nil {
		return err
	}
	return writePage(w, title, sub, body, o)
}

func elemStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	if n, _, _ := strings.Cut(tag, ","); n != "" {
		return n
	}
	return f.Name
}

func sliceTable(title string, s reflect.Value) table {
	t := table{Title: title}
	et := s.Type().Elem()
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	var idx []int
	for i := 0; i < et.NumField(); i++ {
		if n := jsonName(et.Field(i)); n != "" {
			t.Columns = append(t.Columns, strings.ReplaceAll(n, "_", " "))
			idx = append(idx, i)
		}
	}
	for r := 0; r < s.Len(); r++ {
		row := reflect.Indirect(s.Index(r))
		if !row.IsValid() {
			continue
		}
		cells := make([]cell, 0, len(idx))
		for _, i := range idx {
			cells = append(cells, cellOf(row.Field(i)))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// cellOf formats a value for a table cell: numbers right-aligned, nil as
// "–", nested values as compact JSON.
func cellOf(v reflect.Value) cell {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return cell{Text: "–"}
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return cell{Text: "–"}
		}
		return cell{Text: v.String(), Sort: v.String()}
	case reflect.Bool:
		s := fmt.Sprint(v.Bool())
		return cell{Text: s, Sort: s}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := fmt.Sprint(v.Int())
		return cell{Text: s, Sort: s, Num: true}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s := fmt.Sprint(v.Uint())
		return cell{Text: s, Sort: s, Num: true}
	case reflect.Float32, reflect.Float64:
		return cell{Text: fmt.Sprintf("%.4g", v.Float()), Sort: fmt.Sprint(v.Float()), Num: true}
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return cell{Text: "–"}
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String {
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = v.Index(i).String()
			}
			s := strings.Join(parts, ", ")
			return cell{Text: s, Sort: s}
		}
	}
	s := plainText(v)
	return cell{Text: s, Sort: s}
}

// plainText writes nested values as people read them, never as JSON:
// maps as "key: value, …" (booleans as the keys that are true), structs as
// "field value, …", slices joined by commas.
func plainText(v reflect.Value) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "–"
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		var parts []string
		for _, k := range keys {
			e := v.MapIndex(k)
			if e.Kind() == reflect.Bool {
				if e.Bool() {
					parts = append(parts, fmt.Sprint(k))
				}
				continue
			}
			parts = append(parts, fmt.Sprintf("%v: %s", k, plainText(e)))
		}
		return strings.Join(parts, ", ")
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			n := jsonName(f)
			if n == "" || v.Field(i).IsZero() {
				continue
			}
			parts = append(parts, strings.ReplaceAll(n, "_", " ")+" "+plainText(v.Field(i)))
		}
		return strings.Join(parts, ", ")
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = plainText(v.Index(i))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v.Interface())
}

var compareTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("compare").Funcs(template.FuncMap{"measure": measure}).Parse(`
<p class="meta">A change counts only beyond the noise: the ranges (lowest to highest) of repeated runs must not overlap; single runs give no noise estimate.
Random-I/O tests are shown in IOPS, sequential ones in MB/s (10^6 B/s); each test's bars have their own scale.</p>
{{range .Warnings}}<p class="meta"><b>warning:</b> {{.}}</p>
{{end}}
{{.Chart}}
<div class="wrap"><table><thead><tr><th class="sortable">test</th><th class="sortable">before</th><th class="sortable">after</th><th class="sortable">unit</th><th class="sortable">change %</th><th class="sortable">verdict</th><th>note</th></tr></thead><tbody>
{{range .Rows}}<tr data-test="{{.Test}}"><td>{{.Test}}</td><td class="num" data-v="{{.Before}}">{{measure .Before}}</td><td class="num" data-v="{{.After}}">{{measure .After}}</td><td>{{.Unit}}</td><td class="num" data-v="{{.Change}}">{{printf "%+.1f" .Change}}</td><td>{{if .Significant}}<b>{{.Verdict}}</b>{{else}}{{.Verdict}}{{end}}</td><td>{{.Note}}</td></tr>
{{end}}</tbody></table></div>`))
})

var blockSizeInName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^rand\w*?(\d+)k`) })

// CompareView is what people read in a bench comparison: random-I/O tests
// (randread4k-qd1 …) in IOPS, computed from MiB/s and the block size in
// the test's name (IOPS = bytes per second ÷ block size, exact for
// fixed-size blocks); other tests unchanged. The change in percent is the
// same in either unit.
func CompareView(rows []bench.Comparison) []bench.Comparison {
	out := make([]bench.Comparison, len(rows))
	for i, r := range rows {
		out[i] = r
		m := blockSizeInName().FindStringSubmatch(r.Test)
		if m == nil || r.Unit != units.MBsUnit {
			continue
		}
		kib, err := strconv.Atoi(m[1])
		if err != nil || kib <= 0 {
			continue
		}
		f := 1e6 / (float64(kib) * 1024) // MB/s → blocks of kib KiB per second
		out[i].Unit, out[i].Before, out[i].After = "IOPS", r.Before*f, r.After*f
		if strings.HasPrefix(r.Note, "spread ") {
			out[i].Note = r.Note + " " + units.MBsUnit
		}
	}
	return out
}

// measure writes a measurement with the precision it deserves: 12.3, 184, 25316.
func measure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// CompareText prints a bench comparison as a table, in the units of
// CompareView.
func CompareText(w io.Writer, rows []bench.Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TEST\tBEFORE\tAFTER\tCHANGE\tVERDICT\tNOTE")
	for _, r := range CompareView(rows) {
		fmt.Fprintf(tw, "%s\t%s %s\t%s %s\t%+.1f%%\t%s\t%s\n", r.Test, measure(r.Before), r.Unit, measure(r.After), r.Unit, r.Change, verdictOf(r), r.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range compareWarnings(rows) {
		if _, err := fmt.Fprintln(w, "warning: "+x); err != nil {
			return err
		}
	}
	return nil
}

// verdictOf is the row's verdict; rows made before verdicts existed get
// theirs from Significant and the sign of the change.
func verdictOf(r bench.Comparison) string {
	switch {
	case r.Verdict != "":
		return r.Verdict
	case r.Significant && r.Change > 0:
		return bench.VerdictBetter
	case r.Significant:
		return bench.VerdictWorse
	}
	return bench.VerdictNoise
}

// compareWarnings are the run-level warnings of a comparison (the same on
// every row).
func compareWarnings(rows []bench.Comparison) []string {
	if len(rows) == 0 {
		return nil
	}
	return rows[0].Warnings
}

// HTMLCompare writes a bench comparison with a before/after bar chart in
// inline SVG: one pair of bars per test, each test on its own scale (the
// larger of its two values is the full width), labelled with the values.
func HTMLCompare(w io.Writer, rows []bench.Comparison, before, after string, o HTMLOptions) error {
	view := CompareView(rows)
	for i := range view {
		view[i].Verdict = verdictOf(view[i])
	}
	body, err := execHTML(compareTmpl(), struct {
		Rows     []bench.Comparison
		Chart    template.HTML
		Warnings []string
	}{view, compareChart(view), compareWarnings(rows)})
	if err != nil {
		return err
	}
	return writePage(w, "nastune bench compare", before+" → "+after, body, o)
}

func compareChart(rows []bench.Comparison) template.HTML {
	if len(rows) == 0 {
		return ""
	}
	const rowH, barH, left, width = 48, 14, 150, 480
	var b strings.Builder
	h := len(rows)*rowH + 24
	fmt.Fprintf(&b, `<svg role="img" aria-label="before and after per test" viewBox="0 0 %d %d" width="100%%" preserveAspectRatio="xMinYMin meet">`, left+width+150, h)
	fmt.Fprintf(&b, `<rect class="bar-before" x="%d" y="4" width="12" height="10"/><text x="%d" y="13">before</text><rect class="bar-after" x="%d" y="4" width="12" height="10"/><text x="%d" y="13">after</text>`, left, left+16, left+80, left+96)
	for i, r := range rows {
		y := 24 + i*rowH
		scale := 0.0
		if m := math.Max(r.Before, r.After); m > 0 {
			scale = width / m
		}
		unit := template.HTMLEscapeString(r.Unit)
		fmt.Fprintf(&b, `<g class="test" data-test="%s">`, template.HTMLEscapeString(r.Test))
		fmt.Fprintf(&b, `<text x="0" y="%d">%s</text>`, y+barH+4, template.HTMLEscapeString(r.Test))
		fmt.Fprintf(&b, `<rect class="bar-before" x="%d" y="%d" width="%.1f" height="%d"><title>before %s %s</title></rect>`, left, y, r.Before*scale, barH, measure(r.Before), unit)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s %s</text>`, float64(left)+r.Before*scale+6, y+barH-3, measure(r.Before), unit)
		fmt.Fprintf(&b, `<rect class="bar-after" x="%d" y="%d" width="%.1f" height="%d"><title>after %s %s</title></rect>`, left, y+barH+2, r.After*scale, barH, measure(r.After), unit)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s %s (%+.1f%%)</text>`, float64(left)+r.After*scale+6, y+2*barH-1, measure(r.After), unit, r.Change)
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped names only
}
