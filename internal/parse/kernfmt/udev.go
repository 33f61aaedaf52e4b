package kernfmt

import "strings"

// UdevRecord is what nastune uses from one udev database file
// (/run/udev/data/bMAJ:MIN): the E: properties and the S: link names.
type UdevRecord struct {
	Props map[string]string
	Links []string
}

// Udev parses a udev database file. Unknown line types are ignored; the
// format has no syntax errors worth failing on.
func Udev(data []byte) UdevRecord {
	r := UdevRecord{Props: map[string]string{}}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "E:"):
			if k, v, ok := strings.Cut(line[2:], "="); ok {
				r.Props[k] = v
			}
		case strings.HasPrefix(line, "S:"):
			r.Links = append(r.Links, line[2:])
		}
	}
	return r
}
