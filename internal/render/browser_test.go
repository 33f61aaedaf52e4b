package render_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/fleet"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/test/testutil"
)

// webDriver is test/testutil's WebDriver (chromedriver's W3C WebDriver
// HTTP API) with the calls these tests make: open a file, run script,
// click, switch to print media, resize, take screenshots.
type webDriver struct {
	*testutil.WebDriver
	t *testing.T
}

func newWebDriver(t *testing.T) *webDriver {
	t.Helper()
	return &webDriver{testutil.NewWebDriver(t, 1200, 900), t}
}

func (w *webDriver) open(file string) {
	w.t.Helper()
	w.Open("file://" + file)
}

// js runs script (a function body) in the page and decodes its return.
func (w *webDriver) js(out any, script string, args ...any) {
	w.t.Helper()
	w.JS(out, script, args...)
}

func (w *webDriver) click(css string) {
	w.t.Helper()
	w.Click(css)
}

func (w *webDriver) media(m string) {
	w.t.Helper()
	w.Media(m)
}

func (w *webDriver) size(width, height int) {
	w.t.Helper()
	w.Size(width, height)
}

// screenshot saves a PNG of the viewport and returns its width.
func (w *webDriver) screenshot(name string) int {
	w.t.Helper()
	data := w.Screenshot()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		w.t.Fatal(err)
	}
	if dir := os.Getenv("NASTUNE_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name+".png"), data, 0o644)
	}
	return img.Bounds().Dx()
}

func hostFacts(t *testing.T, name string) (*audit.Report, *hostfs.Root) {
	t.Helper()
	root, err := hostfs.Open(fixture.HostDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	h := probe.Collect(context.Background(), root)
	return audit.FromFacts(h, audit.Options{}), root
}

func writeHTML(t *testing.T, dir, name string, f func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each page as a user meets it in Chromium: the DOM after the script ran,
// the controls clicked, print media, and screenshots at desktop and phone
// width.
func TestPagesInBrowser(t *testing.T) {
	wd := newWebDriver(t)
	dir := t.TempDir()
	kw, _ := hostFacts(t, "kirkwood-nas")
	r6, r6root := hostFacts(t, "raid6-server")

	t.Run("audit", func(t *testing.T) {
		wd.t = t
		wd.size(1200, 900)
		wd.open(writeHTML(t, dir, "audit.html", func(b *bytes.Buffer) error { return render.HTMLAudit(b, kw, htmlOpts) }))
		var st struct {
			Total, Open int
			Code        int
			Ticks       int
		}
		count := `var d=document.querySelectorAll('details.finding');var o=0;d.forEach(function(x){if(x.open)o++});
			var c=document.querySelectorAll('details.finding p code, details.finding .rec code').length;
			var t=0;document.querySelectorAll('details.finding p').forEach(function(p){if(p.textContent.indexOf('` + "`" + `')>=0)t++});
			return {Total:d.length,Open:o,Code:c,Ticks:t};`
		wd.js(&st, count)
		if st.Total != len(kw.Findings) || st.Open != 0 {
			t.Fatalf("start: %+v, want %d closed findings", st, len(kw.Findings))
		}
		if st.Code == 0 || st.Ticks != 0 {
			t.Errorf("backticks: %d <code> in findings, %d paragraphs with a literal backtick", st.Code, st.Ticks)
		}
		wd.click("#expand-all")
		wd.js(&st, count)
		if st.Open != st.Total {
			t.Errorf("expand all: %d of %d open", st.Open, st.Total)
		}
		wd.screenshot("audit-expanded")
		wd.click("#collapse-all")
		wd.js(&st, count)
		if st.Open != 0 {
			t.Errorf("collapse all: %d open", st.Open)
		}
		// Print: the controls are not printed, the page is black on white,
		// and tables are not cut by a scroll box.
		wd.media("print")
		var p struct{ Controls, Bg, Wrap string }
		wd.js(&p, `var w=document.querySelector('.wrap');return {Controls:getComputedStyle(document.querySelector('.controls')).display,
			Bg:getComputedStyle(document.body).backgroundColor,Wrap:w?getComputedStyle(w).overflowX:'visible'};`)
		if p.Controls != "none" || p.Bg != "rgb(255, 255, 255)" || p.Wrap != "visible" {
			t.Errorf("print media: %+v", p)
		}
		wd.media("screen")
		// Opening for print is what beforeprint does.
		wd.js(nil, `window.dispatchEvent(new Event('beforeprint'));`)
		wd.js(&st, count)
		if st.Open != st.Total {
			t.Errorf("beforeprint: %d of %d open", st.Open, st.Total)
		}
		wd.js(nil, `window.dispatchEvent(new Event('afterprint'));`)
		wd.js(&st, count)
		if st.Open != 0 {
			t.Errorf("afterprint: %d open, want the view restored", st.Open)
		}
		// A link can open the page with every finding expanded.
		var page string
		wd.js(&page, `return location.pathname;`)
		wd.open(page + "#open=all")
		wd.js(&st, count)
		if st.Open != st.Total {
			t.Errorf("#open=all: %d of %d open", st.Open, st.Total)
		}
		// A malformed escape in the fragment (#q=%) must not stop the
		// filters: the rest of the fragment still applies.
		wd.click("#collapse-all")
		wd.open(page + "#q=%&open=all")
		wd.js(&st, count)
		if st.Open != st.Total {
			t.Errorf("#q=%%&open=all: %d of %d open (a bad escape stopped the fragment)", st.Open, st.Total)
		}
		wd.size(390, 844)
		if w := wd.screenshot("audit-phone"); w < 380 || w > 400 {
			t.Errorf("phone screenshot %d px wide", w)
		}
		var overflow bool
		wd.js(&overflow, `return document.documentElement.scrollWidth > window.innerWidth + 1;`)
		if overflow {
			t.Error("audit page scrolls sideways at phone width")
		}
	})

	t.Run("inventory-net", func(t *testing.T) {
		wd.t = t
		wd.size(1200, 900)
		h := probe.Collect(context.Background(), r6root)
		n := inventory.NetTable(h)
		wd.open(writeHTML(t, dir, "net.html", func(b *bytes.Buffer) error { return render.HTMLTables(b, "net", "", n, htmlOpts) }))
		var st struct {
			Rows, Cols int
			MaxRowPx   float64
			JSON       int
			Headers    []string
			Bond       string
		}
		wd.js(&st, `var rows=document.querySelectorAll('tbody tr');var m=0,j=0;
			rows.forEach(function(r){m=Math.max(m,r.getBoundingClientRect().height);r.querySelectorAll('td').forEach(function(c){if(/[{}]|":/.test(c.textContent))j++})});
			var hs=Array.prototype.map.call(document.querySelectorAll('thead th'),function(t){return t.textContent});
			var b='';rows.forEach(function(r){if(r.cells[0].textContent==='bond0')b=r.cells[r.cells.length-1].textContent});
			return {Rows:rows.length,Cols:hs.length,MaxRowPx:m,JSON:j,Headers:hs,Bond:b};`)
		if st.Rows != len(n.Interfaces) || st.Cols != 13 {
			t.Errorf("%d rows × %d columns, want %d × 13", st.Rows, st.Cols, len(n.Interfaces))
		}
		if st.JSON != 0 {
			t.Errorf("%d cells hold JSON", st.JSON)
		}
		if st.MaxRowPx > 120 {
			t.Errorf("tallest row %.0f px: rows should be one or two lines", st.MaxRowPx)
		}
		if !strings.HasPrefix(st.Bond, "master 802.3ad") {
			t.Errorf("bond0 cell %q", st.Bond)
		}
		// Sorting by a numeric column uses the raw value.
		wd.click("thead th:nth-child(5)")
		var mtus []string
		wd.js(&mtus, `return Array.prototype.map.call(document.querySelectorAll('tbody tr td:nth-child(5)'),function(c){return c.dataset.v});`)
		for i := 1; i < len(mtus); i++ {
			if mtus[i] != "" && mtus[i-1] != "" && atoi(mtus[i]) < atoi(mtus[i-1]) {
				t.Errorf("MTU column not sorted ascending: %v", mtus)
				break
			}
		}
		wd.screenshot("inventory-net")
	})

	t.Run("report", func(t *testing.T) {
		wd.t = t
		wd.size(1200, 900)
		fr := fleet.Build([]fleet.Input{{Source: "kw.json", Report: kw}, {Source: "r6.json", Report: r6}}, nil)
		wd.open(writeHTML(t, dir, "fleet.html", func(b *bytes.Buffer) error { return render.HTMLFleet(b, fr, htmlOpts) }))
		var st struct {
			FirstH2      string
			CritRows     int
			Rules        []string
			FirstSev     string
			CritHighlite bool
		}
		wd.js(&st, `var h=document.querySelector('main h2');
			var rules=Array.prototype.map.call(document.querySelectorAll('#common tbody tr'),function(r){return r.dataset.rule});
			var first=document.querySelector('#common tbody tr td:nth-child(2)');
			var cr=document.querySelector('#critical tbody tr');
			var bg=cr?getComputedStyle(cr.cells[0]).backgroundColor:'';
			return {FirstH2:h.textContent,CritRows:document.querySelectorAll('#critical tbody tr').length,Rules:rules,
				FirstSev:first?first.textContent:'',CritHighlite:bg!==''&&bg!=='rgba(0, 0, 0, 0)'};`)
		crit := 0
		for _, f := range append(append([]any{}, anyFindings(kw)...), anyFindings(r6)...) {
			if f == "crit" {
				crit++
			}
		}
		if crit == 0 {
			t.Fatal("fixtures have no critical finding to show")
		}
		if st.FirstH2 != "Critical findings" || st.CritRows != crit || !st.CritHighlite {
			t.Errorf("critical section: first heading %q, %d rows (want %d), highlighted %v", st.FirstH2, st.CritRows, crit, st.CritHighlite)
		}
		seen := map[string]bool{}
		for _, r := range st.Rules {
			if seen[r] {
				t.Errorf("rule %s has more than one row", r)
			}
			seen[r] = true
		}
		if !strings.HasPrefix(st.FirstSev, "crit") {
			t.Errorf("first common row is %q, want the critical one", st.FirstSev)
		}
		wd.screenshot("report")
	})

	t.Run("compare", func(t *testing.T) {
		wd.t = t
		wd.size(1200, 900)
		rows := []bench.Comparison{
			{Test: "seqread-direct", Unit: "MB/s", Before: 180, After: 420, Change: 133.3, Significant: true},
			{Test: "randread4k-qd1", Unit: "MB/s", Before: 0.524288, After: 0.5767168, Change: 10},
			{Test: "randread4k-qd32", Unit: "MB/s", Before: 1.2, After: 2.4, Change: 100, Significant: true},
		}
		wd.open(writeHTML(t, dir, "compare.html", func(b *bytes.Buffer) error { return render.HTMLCompare(b, rows, "a.json", "b.json", htmlOpts) }))
		var st []struct {
			Test, Unit, Before string
			WBefore, WAfter    float64
		}
		wd.js(&st, `return Array.prototype.map.call(document.querySelectorAll('g.test'),function(g){
			var tr=document.querySelector('tr[data-test="'+g.dataset.test+'"]');
			return {Test:g.dataset.test,Unit:tr.cells[3].textContent,Before:tr.cells[1].textContent,
				WBefore:g.querySelector('.bar-before').getBBox().width,WAfter:g.querySelector('.bar-after').getBBox().width};});`)
		if len(st) != 3 {
			t.Fatalf("%d tests drawn", len(st))
		}
		for _, s := range st {
			wantUnit := map[bool]string{true: "IOPS", false: "MB/s"}[strings.HasPrefix(s.Test, "rand")]
			if s.Unit != wantUnit {
				t.Errorf("%s in %s, want %s", s.Test, s.Unit, wantUnit)
			}
			// Each test on its own scale: the larger bar is the full width,
			// so 0.52 → 0.58 MB/s is visible next to 420 MB/s.
			if big := max(s.WBefore, s.WAfter); big < 470 {
				t.Errorf("%s: larger bar %.0f px, want the full width", s.Test, big)
			}
		}
		if st[1].Before != "128" { // 0.524288 MB/s (0.5 MiB/s) of 4 KiB requests
			t.Errorf("randread4k-qd1 before = %s IOPS, want 128", st[1].Before)
		}
		wd.screenshot("compare")
	})
}

func anyFindings(r *audit.Report) []any {
	var out []any
	for _, f := range r.Findings {
		out = append(out, f.Severity.String())
	}
	return out
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
