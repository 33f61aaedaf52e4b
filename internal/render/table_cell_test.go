package render

import (
	"strings"
	"testing"
)

// A disk model a device chose ("WDC\nsdb  FAKE …") must not forge a row of
// the text table, nor a tab shift its columns.
func TestGridCellOneLine(t *testing.T) {
	var b strings.Builder
	g := grid{Header: []string{"DISK", "MODEL"}, Rows: [][]cell{{txt("sda"), txt("WDC\nsdb  FAKE\tX")}}}
	if err := writeGrids(&b, g); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\n"); n != 2 || strings.Contains(out, "\t") || !strings.Contains(out, `WDC\x0asdb  FAKE\x09X`) {
		t.Errorf("table:\n%s\nwant header and one row, the newline and tab shown as \\x0a and \\x09", out)
	}
}
