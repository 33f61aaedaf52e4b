package facts

import "strings"

// External-metadata (IMSM, DDF) arrays. md lists a container as
// "mdX : inactive … super external:imsm": it holds the members and their
// metadata but is never started itself; the arrays that carry data are its
// volumes, whose metadata reads "external:/mdX/N" ("external:-mdX/N" while
// mdmon holds them read-only) in /proc/mdstat and md/metadata_version
// (drivers/md/md.c metadata_show; mdadm(8) CONTAINERS).

// IsContainer tells an external-metadata container: "external:<format>"
// without the "/" or "-" that names a parent container.
func (a MDArray) IsContainer() bool {
	m, ok := strings.CutPrefix(a.Metadata, "external:")
	return ok && m != "" && m[0] != '/' && m[0] != '-'
}

// ContainerFormat is a container's metadata format ("imsm", "ddf"), or "".
func (a MDArray) ContainerFormat() string {
	if !a.IsContainer() {
		return ""
	}
	return strings.TrimPrefix(a.Metadata, "external:")
}

// ContainerOf is the container a volume belongs to ("md0" for
// "external:/md0/0"), or "".
func (a MDArray) ContainerOf() string {
	m, ok := strings.CutPrefix(a.Metadata, "external:")
	if !ok || m == "" || (m[0] != '/' && m[0] != '-') {
		return ""
	}
	name, _, _ := strings.Cut(m[1:], "/")
	return name
}
