// Command benchtune renders make bench's tune table: per demo of
// docs/tune.md, tune's kept value and its result next to the best
// hand-set value measured the same way, and the ratio of their gains over
// the sabotaged baseline (issue 29: tune ≥ 0.9 of the hand-tuned gain).
//
// The rows come from the bench drivers, one tab-separated line each:
//
//	demo  unit  baseline-label  baseline  tune-label  tune  hand-label  hand
//
// (results are numbers, higher is better): benchtune.sh for --file,
// TestBenchTuneNet (test/tune) for --net and TestBenchTuneShare
// (internal/tune) for --share, each run only when NASTUNE_BENCH_ROWS names
// the file to append to. With -doc the table replaces the block between
// the markers in that file (docs/tune.md's "make bench" section), so the
// doc quotes what the last make bench measured and nothing hand-written.
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

type row struct {
	demo, unit                   string
	baseLabel, tuneLabel, hLabel string
	base, tune, hand             float64
}

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
		if len(f) != 8 {
			return nil, fmt.Errorf("line %d: %d fields, want 8 (demo, unit, baseline label, baseline, tune label, tune, hand label, hand)", i+1, len(f))
		}
		var v [3]float64
		for j, k := range []int{3, 5, 7} {
			if v[j], err = strconv.ParseFloat(f[k], 64); err != nil {
				return nil, fmt.Errorf("line %d field %d: %v", i+1, k+1, err)
			}
		}
		rows = append(rows, row{demo: f[0], unit: f[1], baseLabel: f[2], base: v[0], tuneLabel: f[4], tune: v[1], hLabel: f[6], hand: v[2]})
	}
	return rows, nil
}

// minHandGain is the smallest hand-tuned gain the ratio is taken over:
// below it the best hand value is within the noise of one reader's run
// and nothing pays.
const minHandGain = 0.05

// verdict is the ratio tune gain ÷ hand gain and whether it meets the
// goal. When no hand value beats the baseline by minHandGain, the right
// answer is to keep nothing: tune meets it when its label says it kept
// nothing.
func (r row) verdict() (ratio, verdict string) {
	hg := r.hand - r.base
	if hg <= minHandGain*r.base {
		if strings.HasPrefix(r.tuneLabel, "kept nothing") {
			return "-", "ok (nothing pays, nothing kept)"
		}
		return "-", "below (kept a value where none pays)"
	}
	q := (r.tune - r.base) / hg
	v := "below"
	if q >= goal {
		v = "ok"
	}
	return fmt.Sprintf("%.2f", q), v
}

func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func render(rows []row) string {
	var b strings.Builder
	head := []string{"demo", "baseline", "tune kept → result", "best hand value → result", "tune gain ÷ hand gain", "goal", "verdict"}
	lines := [][]string{head}
	for _, r := range rows {
		q, v := r.verdict()
		lines = append(lines, []string{
			r.demo,
			fmt.Sprintf("%s: %s %s", r.baseLabel, num(r.base), r.unit),
			fmt.Sprintf("%s → %s", r.tuneLabel, num(r.tune)),
			fmt.Sprintf("%s → %s", r.hLabel, num(r.hand)),
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
