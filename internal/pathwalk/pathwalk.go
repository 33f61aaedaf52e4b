// Package pathwalk is the one path walker of nastune: it resolves a path
// one component at a time below a root, with one trust policy for
// symbolic links. Two walkers drive it and differ only in what they hold:
//
//   - internal/safefile (the writer's; apply writes through it) holds
//     directory descriptors: each component is opened O_PATH|O_NOFOLLOW
//     on the held folder and inspected through that descriptor, so what is
//     checked is what is used;
//   - internal/hostfs (the reader's, for a captured tree under --root)
//     holds folders as descriptors keyed by their real path and keeps
//     them open across lookups (its held-folder cache), so reading a
//     650-file tree costs one fstatat or openat per file instead of a walk
//     from the top each time.
//
// The walk itself, and the policy, are here. A path's components are taken
// in order: "." is skipped; ".." goes up one folder and, confined to a root,
// never above it; a symbolic link is replaced by its target, an absolute
// target starting again at the root (chroot-style); at most MaxLinks links
// are followed. The policy: a symbolic link is followed only when it and
// the folder holding it belong to root or to us (trusted), unless
// Policy.AnyOwner (a captured tree, whose files another machine's users
// made: there only the confinement protects the walk); the last component
// is followed only when Policy.FollowFinal. A walker may add checks of its
// own on what it hands back (safefile refuses a folder everyone may write
// without the sticky bit).
package pathwalk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// MaxLinks bounds symbolic links followed in one walk, as the kernel's
// MAXSYMLINKS does.
const MaxLinks = 40

// ErrUnsafe is returned when the policy refuses a link (or a walker's own
// check refuses what it would hand back).
var ErrUnsafe = errors.New("unsafe path")

// Policy is what a walk may follow (see the package comment).
type Policy struct {
	// AnyOwner follows every symbolic link, whoever owns it; the walk is
	// then protected only by its confinement to the root.
	AnyOwner bool
	// FollowFinal follows a symbolic link in the last component.
	FollowFinal bool
}

// Trusted reports whether uid may steer a path resolution: root or us.
func Trusted(uid uint32) bool { return uid == 0 || uid == uint32(os.Geteuid()) }

// Node is one component as a Cursor found it, not followed.
type Node struct {
	Link      bool   // a symbolic link
	Target    string // its target (Link)
	LinkUID   uint32 // the link's owner (Link)
	ParentUID uint32 // the owner of the folder holding it (Link)
}

// Cursor is where a walk stands: the current folder, held by the walker.
type Cursor interface {
	// Look examines component c of the current folder without following
	// it, reading the target of a link. Its errors name the path.
	Look(c string) (Node, error)
	// Enter makes c, just looked at (or, lenient, not found), the
	// current folder; it refuses c if it is not a folder.
	Enter(c string) error
	// Up goes to the parent folder (".."); at a confined root it stays.
	Up() error
	// Restart goes back to the root, for an absolute link target.
	Restart() error
	// Real is the path below the root of component c of the current
	// folder, links resolved, for messages.
	Real(c string) string
}

// Options say what the walk is for.
type Options struct {
	Policy Policy
	// WantDir: the whole path names a folder, which the walk enters;
	// otherwise it stops at the last component and returns its name.
	WantDir bool
	// MissingOK: a missing last component is not an error (a file about
	// to be created).
	MissingOK bool
	// Lenient keeps a component that cannot be looked at, or a link that
	// cannot be read or loops, as it is instead of failing (the snapshot
	// recorder's best effort).
	Lenient bool
	// Display is the path asked for, for messages.
	Display string
	// OnLink hears of every link followed (the real path of the link and
	// its target).
	OnLink func(real, target string)
}

// Walk resolves comps from the cursor's folder under o. It returns the
// last component's name in the folder the cursor then holds, or "" when
// the path ended on a folder (".." last, WantDir, or a link to a folder).
func Walk(cur Cursor, comps []string, o Options) (string, error) {
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		last := len(comps) == 0
		switch c {
		case ".":
			continue
		case "..":
			if err := cur.Up(); err != nil {
				return "", err
			}
			continue
		}
		follow := !last || o.WantDir || o.Policy.FollowFinal
		if !follow {
			return c, nil
		}
		n, err := cur.Look(c)
		if err != nil {
			switch {
			case last && !o.WantDir && o.MissingOK && errors.Is(err, fs.ErrNotExist):
				return c, nil
			case !o.Lenient:
				return "", err
			case last && !o.WantDir:
				return c, nil
			}
			if err := cur.Enter(c); err != nil {
				return "", err
			}
			continue
		}
		if !n.Link {
			if last && !o.WantDir {
				return c, nil
			}
			if err := cur.Enter(c); err != nil {
				return "", err
			}
			continue
		}
		if !o.Policy.AnyOwner && (!Trusted(n.LinkUID) || !Trusted(n.ParentUID)) {
			return "", fmt.Errorf("%s: %w: %s is a symbolic link owned by uid %d in a folder owned by uid %d; give the real path",
				o.Display, ErrUnsafe, cur.Real(c), n.LinkUID, n.ParentUID)
		}
		if links++; links > MaxLinks {
			if !o.Lenient {
				return "", &fs.PathError{Op: "open", Path: o.Display, Err: syscall.ELOOP}
			}
			if last && !o.WantDir {
				return c, nil
			}
			if err := cur.Enter(c); err != nil {
				return "", err
			}
			continue
		}
		if o.OnLink != nil {
			o.OnLink(cur.Real(c), n.Target)
		}
		if strings.HasPrefix(n.Target, "/") {
			if err := cur.Restart(); err != nil {
				return "", err
			}
		}
		comps = append(Split(n.Target), comps...)
	}
	return "", nil
}

// Split is p's components without empty ones.
func Split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
