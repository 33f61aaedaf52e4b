package watch

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/htmlpage"
	"github.com/nastune/nastune/internal/units"
)

// WriteText prints the verdict of a finished watch and the averages it
// rests on.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "nastune watch: %d samples of %gs\n\n", len(r.Samples), r.IntervalS)
	if r.Dropped > 0 {
		fmt.Fprintf(w, "(the %d oldest samples were dropped to bound memory; the verdict covers the last %d)\n\n", r.Dropped, len(r.Samples))
	}
	switch {
	case len(r.Samples) == 0:
		fmt.Fprintln(w, "No complete interval was sampled: watch for at least one interval.")
	case len(r.Bottlenecks) == 0:
		fmt.Fprintln(w, "No bottleneck: no CPU thread, disk, network link or memory was near its limit.")
		fmt.Fprintln(w, "If a transfer was slow, the limit is outside this machine (the client, the path between) or the work was idle.")
	default:
		fmt.Fprintln(w, "Bottlenecks, most binding first:")
	}
	for i, b := range r.Bottlenecks {
		fmt.Fprintf(w, "%2d. %-7s %s  %s\n", i+1, b.Kind, subject(b), amount(b))
		fmt.Fprintf(w, "    why:  %s\n", b.Why)
		for _, e := range b.Evidence {
			fmt.Fprintf(w, "          - %s\n", e)
		}
		fmt.Fprintf(w, "    next: %s\n", b.Next)
	}
	if len(r.Samples) > 0 {
		fmt.Fprintln(w)
		writeAverages(w, r.Samples)
	}
	if len(r.Skipped) > 0 {
		keys := make([]string, 0, len(r.Skipped))
		for k := range r.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintln(w, "\nNot collected:")
		for _, k := range keys {
			fmt.Fprintf(w, "  %s: %s\n", k, r.Skipped[k])
		}
	}
}

func subject(b Bottleneck) string {
	s := b.Subject
	if b.TID != 0 {
		s += fmt.Sprintf(" (pid %d, tid %d)", b.PID, b.TID)
	}
	if len(b.Stack) > 1 {
		s += " [under " + strings.Join(b.Stack[:len(b.Stack)-1], ", ") + "]"
	}
	return s
}

func amount(b Bottleneck) string {
	switch b.Unit {
	case "bits/s":
		return fmt.Sprintf("%s of %s (%.0f%%)", units.BitRate(b.Rate), units.BitRate(b.Limit), 100*b.Utilization)
	case "bytes/s":
		return fmt.Sprintf("%.0f%% busy, %s", 100*b.Utilization, units.MBsOfBytes(b.Rate))
	case "cores":
		if b.Limit == 1 {
			return fmt.Sprintf("%.2f of 1 core (%.0f%%)", b.Rate, 100*b.Utilization)
		}
		return fmt.Sprintf("%.2f of %g cores (%.0f%%)", b.Rate, b.Limit, 100*b.Utilization)
	}
	return fmt.Sprintf("%.0f%%", 100*b.Utilization)
}

func writeAverages(w io.Writer, ss []Sample) {
	n := float64(len(ss))
	var busy, cs, io, ms, self float64
	var rss int64
	for _, s := range ss {
		busy += s.CPU.BusyPct
		cs += s.PSI.CPUSomePct
		io += s.PSI.IOSomePct
		ms += s.PSI.MemSomePct
		self += s.Self.CPUPct
		rss = max(rss, s.Self.RSSKiB)
	}
	fmt.Fprintf(w, "Averages: CPU %.0f%% busy; pressure (PSI some) cpu %.0f%%, io %.0f%%, memory %.0f%%\n", busy/n, cs/n, io/n, ms/n)
	last := ss[len(ss)-1]
	for i, d := range last.Disks {
		if i == 4 {
			break
		}
		fmt.Fprintf(w, "  disk %-8s %5.0f%% util %7.0f IOPS %8s await %.2f ms qd %.1f (last sample)\n", d.Name, d.UtilPct, d.ReadIOPS+d.WriteIOPS, units.MBsOfBytes(d.ReadBps+d.WriteBps), d.AwaitMS, d.QueueDepth)
	}
	for i, x := range last.NICs {
		if i == 4 {
			break
		}
		fmt.Fprintf(w, "  nic  %-8s rx %s tx %s%s (last sample)\n", x.Name, units.BitRate(x.RxBps), units.BitRate(x.TxBps), nicLimit(x))
	}
	fmt.Fprintf(w, "watch itself: %.2f%% of one core on average, max RSS %.1f MiB\n", self/n, float64(rss)/1024)
}

func nicLimit(x NICSample) string {
	s := ""
	if x.SpeedBps > 0 {
		s += " link " + units.BitRate(x.SpeedBps)
	}
	if x.QdiscRateBps > 0 {
		s += fmt.Sprintf(" %s %s", x.Qdisc, units.BitRate(x.QdiscRateBps))
	}
	return s
}

func bar(pct float64, width int) string {
	n := int(pct/100*float64(width) + 0.5)
	n = max(0, min(width, n))
	return strings.Repeat("█", n) + strings.Repeat("·", width-n)
}

// WriteLive draws one screen: this interval's numbers and the verdict over
// the last few samples. The caller clears the screen.
func WriteLive(w io.Writer, s Sample, verdict []Bottleneck) {
	fmt.Fprintf(w, "nastune watch  t=%.0fs  (Ctrl-C for the summary)\n\n", s.T)
	fmt.Fprintf(w, "CPU %5.1f%% %s  psi cpu %.0f%% io %.0f%% mem %.0f%%\n", s.CPU.BusyPct, bar(s.CPU.BusyPct, 20), s.PSI.CPUSomePct, s.PSI.IOSomePct, s.PSI.MemSomePct)
	for i, c := range s.CPU.Cores {
		if i == 16 {
			fmt.Fprintf(w, "  … %d more CPUs\n", len(s.CPU.Cores)-16)
			break
		}
		fmt.Fprintf(w, "  cpu%-3d %5.1f%% %s sys %.0f irq+soft %.0f steal %.0f\n", c.CPU, c.BusyPct, bar(c.BusyPct, 20), c.SystemPct, c.IRQPct+c.SoftIRQPct, c.StealPct)
	}
	fmt.Fprintln(w, "\nTop threads (on CPU / waiting for a CPU, % of one core)")
	for i, t := range s.Threads {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  %-16s pid %-7d tid %-7d %5.1f%% %s wait %.0f%%\n", t.Comm, t.PID, t.TID, t.CPUPct, bar(t.CPUPct, 20), t.WaitPct)
	}
	fmt.Fprintln(w, "\nDisks")
	for i, d := range s.Disks {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  %-8s %5.1f%% %s %6.0f IOPS %9s await %.2f ms qd %.1f\n", d.Name, d.UtilPct, bar(d.UtilPct, 20), d.ReadIOPS+d.WriteIOPS, units.MBsOfBytes(d.ReadBps+d.WriteBps), d.AwaitMS, d.QueueDepth)
	}
	fmt.Fprintln(w, "\nNetwork")
	for i, x := range s.NICs {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  %-10s rx %-14s tx %-14s%s\n", x.Name, units.BitRate(x.RxBps), units.BitRate(x.TxBps), nicLimit(x))
	}
	fmt.Fprintf(w, "\nMemory: %.0f pages scanned/s, dirty %d MiB, writeback %d MiB; TCP retrans %.2f%%\n",
		s.Memory.PgScanPerS, s.Memory.DirtyBytes>>20, s.Memory.WritebackBytes>>20, s.TCP.RetransPct)
	fmt.Fprintln(w, "\nNow:")
	if len(verdict) == 0 {
		fmt.Fprintln(w, "  nothing near its limit")
	}
	for i, b := range verdict {
		if i == 3 {
			break
		}
		fmt.Fprintf(w, "  %s %s  %s\n", b.Kind, subject(b), amount(b))
	}
}

// htmlCSS are the rules only the watch page uses, on top of the shell's.
const htmlCSS = `.b{border-left:4px solid var(--crit);padding:.3em .8em;margin:1em 0;background:var(--card)}
.k{font-weight:bold;text-transform:uppercase;color:var(--crit)}svg{background:var(--bg);border:1px solid var(--line)}
figure{margin:1em 0}figcaption{font-weight:bold}.lg span{margin-right:1em}small{color:var(--mut)}
`

// WriteHTML writes a self-contained page in the shell of internal/htmlpage:
// the verdict and inline SVG time-series charts, no scripts and no external
// resources.
func WriteHTML(w io.Writer, r *Result) error {
	var b strings.Builder
	writeHTMLBody(&b, r)
	return htmlpage.Write(w, htmlpage.Page{Title: "nastune watch", Sub: fmt.Sprintf("%d samples of %gs.", len(r.Samples), r.IntervalS),
		Body: template.HTML(b.String()), CSS: htmlCSS}) //nolint:gosec // every value below is escaped with html.EscapeString
}

func writeHTMLBody(w io.Writer, r *Result) {
	fmt.Fprint(w, "<h2>Bottlenecks, most binding first</h2>\n")
	if len(r.Bottlenecks) == 0 {
		fmt.Fprint(w, "<p>No CPU thread, disk, network link or memory was near its limit.</p>\n")
	}
	for _, b := range r.Bottlenecks {
		fmt.Fprintf(w, `<div class="b"><span class="k">%s</span> <b>%s</b> — %s<p>%s</p><ul>`,
			html.EscapeString(b.Kind), html.EscapeString(subject(b)), html.EscapeString(amount(b)), html.EscapeString(b.Why))
		for _, e := range b.Evidence {
			fmt.Fprintf(w, "<li><small>%s</small></li>", html.EscapeString(e))
		}
		fmt.Fprintf(w, "</ul><p>Next: %s</p></div>\n", html.EscapeString(b.Next))
	}
	fmt.Fprint(w, "<h2>Over time</h2>\n")
	t := make([]float64, len(r.Samples))
	cpu := map[string][]float64{"all CPUs": make([]float64, len(r.Samples))}
	thr, disk, nic, psi := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{
		"cpu": make([]float64, len(r.Samples)), "io": make([]float64, len(r.Samples)), "memory": make([]float64, len(r.Samples))}
	put := func(m map[string][]float64, k string, i int, v float64) {
		if m[k] == nil {
			m[k] = make([]float64, len(r.Samples))
		}
		m[k][i] = v
	}
	for i, s := range r.Samples {
		t[i] = s.T
		cpu["all CPUs"][i] = s.CPU.BusyPct
		for _, c := range s.CPU.Cores {
			put(cpu, fmt.Sprintf("cpu%d", c.CPU), i, c.BusyPct)
		}
		for _, x := range s.Threads {
			put(thr, fmt.Sprintf("%s %d", x.Comm, x.TID), i, x.CPUPct)
		}
		for _, d := range s.Disks {
			put(disk, d.Name, i, d.UtilPct)
		}
		for _, x := range s.NICs {
			put(nic, x.Name+" rx", i, x.RxBps/1e6)
			put(nic, x.Name+" tx", i, x.TxBps/1e6)
		}
		psi["cpu"][i], psi["io"][i], psi["memory"][i] = s.PSI.CPUSomePct, s.PSI.IOSomePct, s.PSI.MemSomePct
	}
	chart(w, "CPU busy, %", t, top(cpu, 9), 100)
	chart(w, "Busiest threads, % of one core", t, top(thr, 6), 100)
	chart(w, "Disk utilization, %", t, top(disk, 6), 100)
	chart(w, "Network, "+units.MbitHeader, t, top(nic, 6), 0)
	chart(w, "Pressure stall (PSI some), % of time", t, psi, 100)
}

// top keeps the k series with the largest sums.
func top(m map[string][]float64, k int) map[string][]float64 {
	type kv struct {
		k string
		s float64
	}
	var all []kv
	for name, v := range m {
		s := 0.0
		for _, x := range v {
			s += x
		}
		all = append(all, kv{name, s})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s || (all[i].s == all[j].s && all[i].k < all[j].k) })
	out := map[string][]float64{}
	for i, x := range all {
		if i == k {
			break
		}
		out[x.k] = m[x.k]
	}
	return out
}

var palette = []string{"#c33", "#36c", "#393", "#f90", "#939", "#099", "#963", "#666", "#c6c"}

func chart(w io.Writer, title string, t []float64, series map[string][]float64, ymax float64) {
	const W, H, pad = 900.0, 180.0, 30.0
	names := make([]string, 0, len(series))
	for k, v := range series {
		names = append(names, k)
		for _, x := range v {
			ymax = max(ymax, x)
		}
	}
	sort.Strings(names)
	fmt.Fprintf(w, "<figure><figcaption>%s</figcaption>", html.EscapeString(title))
	if len(t) < 2 || len(names) == 0 || ymax == 0 {
		fmt.Fprint(w, "<p><small>no data</small></p></figure>\n")
		return
	}
	t0, t1 := t[0], t[len(t)-1]
	fmt.Fprintf(w, `<svg viewBox="0 0 %.0f %.0f" width="100%%" role="img" aria-label="%s">`, W, H+pad, html.EscapeString(title))
	fmt.Fprintf(w, `<text x="2" y="12" font-size="10">%.4g</text><text x="2" y="%.0f" font-size="10">0</text><text x="%.0f" y="%.0f" font-size="10" text-anchor="end">%.0fs</text>`, ymax, H, W-2, H+pad-5, t1)
	for i, n := range names {
		fmt.Fprintf(w, `<polyline fill="none" stroke-width="1.5" stroke="%s" points="`, palette[i%len(palette)])
		for j, v := range series[n] {
			x := pad + (t[j]-t0)/(t1-t0)*(W-2*pad)
			y := H - v/ymax*(H-10)
			fmt.Fprintf(w, "%.1f,%.1f ", x, y)
		}
		fmt.Fprint(w, `"/>`)
	}
	fmt.Fprint(w, `</svg><div class="lg">`)
	for i, n := range names {
		fmt.Fprintf(w, `<span style="color:%s">■ %s</span>`, palette[i%len(palette)], html.EscapeString(n))
	}
	fmt.Fprint(w, "</div></figure>\n")
}
