package render

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// mdLevel is an array's LEVEL cell: an external-metadata container (IMSM,
// DDF: "super external:imsm") has no level and is never started; it is
// shown as the container it is, and a volume names its container.
func mdLevel(a facts.MDArray) string {
	m, ok := strings.CutPrefix(a.Metadata, "external:")
	switch {
	case !ok || m == "":
		return a.Level
	case m[0] == '/' || m[0] == '-':
		name, _, _ := strings.Cut(m[1:], "/")
		return strings.TrimSpace(a.Level + " in " + name)
	}
	return "container " + m
}

// mdMemberRole is the role shown after a member: a container's members
// are listed as (S) by the kernel but are no spares.
func mdMemberRole(a facts.MDArray, m facts.MDMember) string {
	if strings.HasPrefix(mdLevel(a), "container ") || m.Role == "active" {
		return ""
	}
	return "(" + m.Role + ")"
}
