package cli

import (
	"strings"

	"github.com/nastune/nastune/internal/units"
)

// wrap folds a paragraph at width columns.
func wrap(s string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(s) {
		if col > 0 && col+1+len(w) > width {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

func plural(n int, one, many string) string { return units.Count(n, one, many) }
