//go:build linux

// Package netns says which network namespace a process is in: the one
// home of that question (tune asks whether it runs in the host's initial
// namespace, bench whether an smbd serves its own).
//
// A namespace is identified by the device and inode of /proc/PID/ns/net
// (nsfs). The initial network namespace is recognised two ways:
//   - its inode is NET_NS_INIT_INO (0xEFFFFFF9, include/uapi/linux/nsfs.h)
//     on kernels that give the initial namespaces fixed numbers (6.18 does); a
//     namespace created later gets a number from 0xF0000000 up
//     (proc_alloc_inum), never that one;
//   - else it is the namespace of pid 1, when pid 1 as this /proc shows it
//     is the system's init: its pid namespace is the initial one
//     (PROC_PID_INIT_INO, 0xEFFFFFFC, fixed since Linux 3.8). In a
//     container with a pid namespace of its own, pid 1 is the container's
//     init, and its network namespace says nothing about the host's.
//
// When neither answers (/proc/1/ns is not readable: no CAP_SYS_PTRACE
// over pid 1, a hardened /proc; or pid 1 is a container's), the answer
// is Unknown, never a guess.
package netns

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// State is whether this process is in the initial network namespace.
type State int

const (
	// Unknown: nothing read says (the zero value: callers that do not
	// ask treat the namespace as not known to be the host's).
	Unknown State = iota
	// Init: the host's initial network namespace.
	Init
	// Other: a network namespace created later (ip netns, unshare -n, a
	// container).
	Other
)

func (s State) String() string {
	switch s {
	case Init:
		return "initial"
	case Other:
		return "other"
	}
	return "unknown"
}

// Where says why a value read or set here may not be the host's initial
// namespace's, for a message ("" in the initial namespace).
func (s State) Where() string {
	switch s {
	case Init:
		return ""
	case Other:
		return "this is not the host's initial network namespace"
	}
	return "whether this is the host's initial network namespace is unknown (/proc/1/ns/net cannot be read, or pid 1 is a container's init)"
}

// Inode numbers of initial namespaces (include/uapi/linux/nsfs.h).
const (
	netInitIno = 0xEFFFFFF9
	pidInitIno = 0xEFFFFFFC
)

// ID identifies a network namespace.
type ID struct{ Dev, Ino uint64 }

// Of is the network namespace of pid ("self": this process).
func Of(pid string) (ID, error) {
	return stat("/proc/" + pid + "/ns/net")
}

func stat(p string) (ID, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return ID{}, err
	}
	return ID{Dev: uint64(st.Dev), Ino: st.Ino}, nil //nolint:unconvert // Dev is uint32 on some GOARCHes
}

// Self says whether this process is in the initial network namespace,
// and why (what was read, for a message).
func Self() (State, string) {
	return judge(stat)
}

// judge is Self over a stat function (a test gives its own).
func judge(st func(string) (ID, error)) (State, string) {
	self, err := st("/proc/self/ns/net")
	if err != nil {
		return Unknown, fmt.Sprintf("/proc/self/ns/net: %v", err)
	}
	if self.Ino == netInitIno {
		return Init, "/proc/self/ns/net is the initial namespace's inode"
	}
	pid, err := st("/proc/1/ns/pid")
	if err != nil {
		return Unknown, fmt.Sprintf("pid 1's namespaces cannot be read: %v", err)
	}
	if pid.Ino != pidInitIno {
		return Unknown, "pid 1 here is a container's init: its pid namespace is not the initial one"
	}
	one, err := st("/proc/1/ns/net")
	if err != nil {
		return Unknown, fmt.Sprintf("pid 1's network namespace cannot be read: %v", err)
	}
	if one == self {
		return Init, "/proc/self/ns/net is pid 1's"
	}
	return Other, "/proc/self/ns/net is not pid 1's"
}
