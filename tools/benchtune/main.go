// Command benchtune renders make bench's tune table: per demo of
// docs/tune.md, tune's kept value and its result next to the best
// hand-set value measured the same way, and the ratio of their gains over
// the sabotaged baseline (issue 29: tune ≥ 0.9 of the hand-tuned gain).
//
// The rows come from the bench drivers, one tab-separated line each:
//
//	demo  unit  baseline-label  base base-min base-max  tune-label  tune tune-min tune-max  hand-label  hand hand-min hand-max
//
// (14 fields; results are numbers, higher is better: each value's median
// over its rounds, then its slowest and fastest round; every driver reads
// the baseline, tune's value and the hand value in at least 3 interleaved
// rounds): benchtune.sh for --file,
// TestBenchTuneNet (test/tune) for --net and TestBenchTuneShare
// (internal/tune) for --share, each run only when NASTUNE_BENCH_ROWS names
// the file to append to. With -doc the table replaces the block between
// the markers in that file (docs/tune.md's "make bench" section), so the
// doc quotes what the last make bench measured and nothing hand-written.
//
// The verdict judges as tune judges a trial (internal/tune's beyond): the
// best hand value pays only when its median gains more than the noise band
// over the baseline (the baseline's range ÷ median, at least 5%) and its
// slowest round beats the baseline's fastest; else nothing pays, and tune
// is right to keep nothing (or a value that pays by the same rule). When it pays and tune's range overlaps the
// hand value's, tune is as good as the hand value within noise (ok, the
// ratio still printed); otherwise the ratio of the medians' gains decides.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/nastune/nastune/internal/safefile"
	"io"
	"os"
	"strconv"
	"strings"
)

const (
	goal        = 0.9
	beginMarker = "<!-- make bench: tools/benchtune writes this table -->"
	endMarker   = "<!-- end of tools/benchtune's table -->"
)

// stat is one value's rounds: median, slowest and fastest.
type stat struct{ med, min, max float64 }

type row struct {
	demo, unit                   string
	baseLabel, tuneLabel, hLabel string
	base, tune, hand             stat
}

const nFields = 14

func parse(r io.Reader) ([]row, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var rows []row
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != nFields {
			return nil, fmt.Errorf("line %d: %d fields, want %d (demo, unit, baseline label, its median, min, max, tune label, its median, min, max, hand label, its median, min, max)", i+1, len(f), nFields)
		}
		var v [3]stat
		for j, k := range []int{3, 7, 11} {
			var n [3]float64
			for m := range n {
				if n[m], err = strconv.ParseFloat(f[k+m], 64); err != nil {
					return nil, fmt.Errorf("line %d field %d: %v", i+1, k+m+1, err)
				}
			}
			v[j] = stat{n[0], n[1], n[2]}
			if !(v[j].min <= v[j].med && v[j].med <= v[j].max) {
				return nil, fmt.Errorf("line %d fields %d-%d: median %g not within min %g and max %g", i+1, k+1, k+3, n[0], n[1], n[2])
			}
		}
		rows = append(rows, row{demo: f[0], unit: f[1], baseLabel: f[2], base: v[0], tuneLabel: f[6], tune: v[1], hLabel: f[10], hand: v[2]})
	}
	return rows, nil
}

// minBand is the smallest noise band (tune's floor): a hand value whose
// median gains less over the baseline's is within the noise of one reader.
const minBand = 0.05

// band is the baseline's noise band as tune states it: its range ÷ its
// median, at least minBand.
func (r row) band() float64 {
	if r.base.med <= 0 {
		return minBand
	}
	return max(minBand, (r.base.max-r.base.min)/r.base.med)
}

// pays says whether s beats the baseline as tune's rule keeps a value:
// its median gains more than the band and its slowest round beats the
// baseline's fastest.
func (r row) pays(s stat) bool {
	return s.med-r.base.med > r.band()*r.base.med && s.min > r.base.max
}

// verdict is the ratio tune gain ÷ hand gain and whether it meets the
// goal. The hand value pays only when it beats the baseline as tune's
// rule would keep it: its median gains more than the band and its slowest
// round beats the baseline's fastest. When it does not, nothing pays and
// tune meets the goal when its label says it kept nothing (or, by the same
// rule, its own value pays where no hand value does). When it pays
// and tune's range overlaps the hand value's, tune is as good as the hand
// value within noise; otherwise the ratio of the medians' gains decides.
func (r row) verdict() (ratio, verdict string) {
	hg := r.hand.med - r.base.med
	if !r.pays(r.hand) {
		switch {
		case strings.HasPrefix(r.tuneLabel, "kept nothing"):
			return "-", "ok (nothing pays, nothing kept)"
		case r.pays(r.tune):
			return "-", "ok (tune's value pays, no hand value does)"
		}
		return "-", "below (kept a value where none pays)"
	}
	q := (r.tune.med - r.base.med) / hg
	ratio = fmt.Sprintf("%.2f", q)
	switch {
	case q >= goal:
		return ratio, "ok"
	case r.tune.min <= r.hand.max && r.hand.min <= r.tune.max:
		return ratio, "ok (as good as the hand value within noise)"
	}
	return ratio, "below"
}

func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// numRange is a value's median and, when its rounds differ, their range:
// "1900 (1800–2000)".
func numRange(s stat) string {
	m := num(s.med)
	if lo, hi := num(s.min), num(s.max); lo != m || hi != m {
		return fmt.Sprintf("%s (%s–%s)", m, lo, hi)
	}
	return m
}

func render(rows []row) string {
	var b strings.Builder
	head := []string{"demo", "baseline", "tune kept → result", "best hand value → result", "tune gain ÷ hand gain", "goal", "verdict"}
	lines := [][]string{head}
	for _, r := range rows {
		q, v := r.verdict()
		lines = append(lines, []string{
			r.demo,
			fmt.Sprintf("%s: %s %s", r.baseLabel, numRange(r.base), r.unit),
			fmt.Sprintf("%s → %s", r.tuneLabel, numRange(r.tune)),
			fmt.Sprintf("%s → %s", r.hLabel, numRange(r.hand)),
			q, fmt.Sprintf("≥ %.1f", goal), v,
		})
	}
	w := make([]int, len(head))
	for _, l := range lines {
		for i, c := range l {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	cell := func(l []string) {
		for i, c := range l {
			fmt.Fprintf(&b, "| %s%s ", c, strings.Repeat(" ", w[i]-len([]rune(c))))
		}
		b.WriteString("|\n")
	}
	cell(lines[0])
	for i := range head {
		fmt.Fprintf(&b, "|%s", strings.Repeat("-", w[i]+2))
	}
	b.WriteString("|\n")
	for _, l := range lines[1:] {
		cell(l)
	}
	return b.String()
}

// splice puts table (indented as a code block) between the markers of doc.
func splice(doc []byte, table string) ([]byte, error) {
	i := bytes.Index(doc, []byte(beginMarker))
	j := bytes.Index(doc, []byte(endMarker))
	if i < 0 || j < i {
		return nil, fmt.Errorf("the markers %q and %q are not in the file (in this order): add them where the table goes", beginMarker, endMarker)
	}
	var b bytes.Buffer
	b.Write(doc[:i+len(beginMarker)])
	b.WriteString("\n\n")
	for _, l := range strings.SplitAfter(strings.TrimSuffix(table, "\n"), "\n") {
		b.WriteString("    " + l)
	}
	b.WriteString("\n\n")
	b.Write(doc[j:])
	return b.Bytes(), nil
}

func main() {
	rowsPath := flag.String("rows", "", "the rows the bench drivers wrote (tab-separated)")
	doc := flag.String("doc", "", "write the table between the markers of this Markdown file too")
	note := flag.String("note", "", "a line printed (and written) under the table")
	flag.Parse()
	f, err := os.Open(*rowsPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtune:", err)
		os.Exit(1)
	}
	rows, err := parse(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchtune: %s: %v\n", *rowsPath, err)
		os.Exit(1)
	}
	table := render(rows)
	if *note != "" {
		table += "\n" + *note + "\n"
	}
	fmt.Print(table)
	if *doc != "" {
		src, err := os.ReadFile(*doc)
		if err == nil {
			var out []byte
			if out, err = splice(src, table); err == nil {
				// make bench runs as root: no planted link in the
				// folder path or at the name is followed (as benchaudit).
				err = safefile.WriteFile(*doc, out, 0o644)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchtune: %s: %v\n", *doc, err)
			os.Exit(1)
		}
	}
}
