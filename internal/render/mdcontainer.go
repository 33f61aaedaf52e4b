package render

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// mdLevel is an array's LEVEL cell: an external-metadata container (IMSM,
// DDF: "super external:imsm") has no level and is never started; it is
// shown as the container it is, and a volume names its container.
func mdLevel(a facts.MDArray) string {
	if f := a.ContainerFormat(); f != "" {
		return "container " + f
	}
	if c := a.ContainerOf(); c != "" {
		return strings.TrimSpace(a.Level + " in " + c)
	}
	return a.Level
}

// mdMemberRole is the role shown after a member: a container's members
// are listed as (S) by the kernel but are no spares.
func mdMemberRole(a facts.MDArray, m facts.MDMember) string {
	if strings.HasPrefix(mdLevel(a), "container ") || m.Role == "active" {
		return ""
	}
	return "(" + m.Role + ")"
}
