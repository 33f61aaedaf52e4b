package inventory

import "github.com/nastune/nastune/internal/facts"

// All is every table, for `nastune inventory` without a subcommand.
type All struct {
	Net      Net      `json:"net"`
	Disks    Disks    `json:"disks"`
	Paths    Paths    `json:"paths"`
	Services Services `json:"services"`
}

// AllTables builds every table of h.
func AllTables(h *facts.Host) All {
	return All{Net: NetTable(h), Disks: DiskTable(h), Paths: PathTable(h), Services: ServiceTable(h)}
}
