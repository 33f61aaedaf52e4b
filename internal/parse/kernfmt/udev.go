package kernfmt

import "strings"

// UdevRecord is what nastune uses from one udev database file
// (/run/udev/data/bMAJ:MIN): the E: properties and the S: link names.
type UdevRecord struct {
	Props map[string]string
	// Links are the S: names (relative to /dev) that udevLink accepts.
	Links []string
}

// udevLink reports whether an S: name is one udev itself could have made
// and nastune may print as a path to type: "disk/by-id/NAME" and the
// like, each part of letters, digits and # + - . : = @ _ (what
// udev_replace_chars keeps, src/shared/udev-util.c), without '#' (a
// comment in smartd.conf), '\x' escapes or UTF-8 (which udev allows but
// no one types), not starting with '-' or '.', at most 255 bytes. Rules
// name disks by these links in commands (smartctl, mdadm) and in
// smartd.conf, so a link from a captured tree holding a quote, a space,
// '$', '`' or ';' must never get there.
func udevLink(l string) bool {
	if l == "" || len(l) > 255 {
		return false
	}
	for _, part := range strings.Split(l, "/") {
		if part == "" || part[0] == '-' || part[0] == '.' {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+-.:=@_", c) >= 0) {
				return false
			}
		}
	}
	return true
}

// Udev parses a udev database file. Unknown line types are ignored; the
// format has no syntax errors worth failing on. An S: name udev could not
// have written (see udevLink) is left out.
func Udev(data []byte) UdevRecord {
	r := UdevRecord{Props: map[string]string{}}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "E:"):
			if k, v, ok := strings.Cut(line[2:], "="); ok {
				r.Props[k] = v
			}
		case strings.HasPrefix(line, "S:"):
			if udevLink(line[2:]) {
				r.Links = append(r.Links, line[2:])
			}
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
