package render

import "github.com/nastune/nastune/internal/facts"

// vdevClass names a top-level vdev's allocation class as zpool(8) does in
// the singular: data vdevs hold the pool's data and redundancy; log (SLOG),
// cache (L2ARC), special, dedup and spare vdevs do not add data capacity.
func vdevClass(v facts.Vdev) string {
	switch v.Class {
	case "":
		return "data"
	case "logs":
		return "log"
	case "spares":
		return "spare"
	}
	return v.Class
}
