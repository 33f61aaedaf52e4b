package inventory

import (
	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/facts"
)

// Paths is `inventory paths`: every data path with its ceiling.
type Paths struct {
	Paths []ceiling.Path `json:"paths"`
}

// PathTable builds the paths inventory.
func PathTable(h *facts.Host) Paths {
	p := ceiling.Paths(h)
	if p == nil {
		p = []ceiling.Path{}
	}
	return Paths{Paths: p}
}
