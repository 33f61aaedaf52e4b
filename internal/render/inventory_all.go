package render

import (
	"fmt"
	"io"

	"github.com/nastune/nastune/internal/inventory"
)

// AllTables writes every inventory table as text, in the order of
// `nastune inventory net|disks|paths|services`, each under its title.
func AllTables(w io.Writer, a inventory.All) error {
	parts := []struct {
		title string
		write func() error
	}{
		{"network interfaces (nastune inventory net)", func() error { return NetTable(w, a.Net) }},
		{"disks, arrays, pools and filesystems (nastune inventory disks)", func() error { return DiskTables(w, a.Disks) }},
		{"data paths (nastune inventory paths)", func() error { return PathTable(w, a.Paths) }},
		{"shares, exports and VPNs (nastune inventory services)", func() error { return ServiceTables(w, a.Services) }},
	}
	for i, p := range parts {
		sep := "\n"
		if i == 0 {
			sep = ""
		}
		if _, err := fmt.Fprintf(w, "%s== %s ==\n", sep, p.title); err != nil {
			return err
		}
		if err := p.write(); err != nil {
			return err
		}
	}
	return nil
}

// allGrids are the HTML tables of every inventory table.
func allGrids(a inventory.All) []grid {
	gs := []grid{netGrid(a.Net)}
	gs = append(gs, diskGrids(a.Disks)...)
	gs = append(gs, pathGrid(a.Paths), pathLinks(a.Paths))
	return append(gs, serviceGrids(a.Services)...)
}
