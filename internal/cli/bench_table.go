package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/bench"
)

// benchColumn is one column of the result table bench disk and bench share
// print: its header and its cell for a test. A spread column (min–max,
// runs) is shown only when some test ran more than once (--repeat).
type benchColumn struct {
	head   string
	spread bool
	cell   func(t bench.TestResult) string
}

// Columns both tables have.
var (
	benchColTest = benchColumn{head: "test", cell: func(t bench.TestResult) string { return t.Name }}
	benchColRuns = benchColumn{head: "runs", spread: true, cell: func(t bench.TestResult) string { return fmt.Sprint(max(t.Runs, 1)) }}
)

// writeBenchTable writes one right-aligned row per test under the headers
// of cols; a skipped test says why in the second column and leaves the
// others empty. It reports whether the spread columns were shown, so the
// caller can say which values are those of the median run.
func writeBenchTable(w io.Writer, tests []bench.TestResult, cols []benchColumn) (spread bool) {
	for _, t := range tests {
		spread = spread || t.Runs > 1
	}
	var shown []benchColumn
	for _, c := range cols {
		if spread || !c.spread {
			shown = append(shown, c)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cells := make([]string, len(shown))
	for i, c := range shown {
		cells[i] = c.head
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	for _, t := range tests {
		for i, c := range shown {
			switch {
			case t.Skipped == "":
				cells[i] = c.cell(t)
			case i == 0:
				cells[i] = t.Name
			case i == 1:
				cells[i] = "skipped: " + t.Skipped
			default:
				cells[i] = ""
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	return spread
}
