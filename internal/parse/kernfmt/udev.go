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

// DiskIDs are the identifiers udev stored for a disk: ID_WWN,
// ID_SERIAL_SHORT and ID_SERIAL. Behind a USB bridge without ATA
// pass-through (ID_BUS=usb) the serials are the bridge's, the same for
// every disk behind it, and are left out.
func (r UdevRecord) DiskIDs() (wwn, serialShort, serial string) {
	wwn = r.Props["ID_WWN"]
	if r.Props["ID_BUS"] == "usb" {
		return wwn, "", ""
	}
	return wwn, r.Props["ID_SERIAL_SHORT"], r.Props["ID_SERIAL"]
}
