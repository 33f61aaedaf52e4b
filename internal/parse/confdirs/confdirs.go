// Package confdirs orders the drop-in files of a configuration hierarchy
// the way the programs that read them do: systemd-sysctl and `sysctl
// --system` (sysctl.d(5)), kmod (modprobe.d(5), libkmod-config.c) and udev
// (udev(7)) all take the files with the right suffix from a list of
// folders in precedence order, let a name in an earlier folder mask the
// same name in later ones, and read the survivors sorted by file name
// across all folders. One function, so the three cannot drift apart.
package confdirs

import (
	"sort"
	"strings"
)

// Order takes, per folder of dirs (in precedence order), the names found
// there and returns the full paths of the files ending in suffix in the
// order they are read.
func Order(dirs []string, suffix string, found map[string][]string) []string {
	chosen := map[string]string{}
	for _, d := range dirs {
		for _, n := range found[d] {
			if !strings.HasSuffix(n, suffix) {
				continue
			}
			if _, ok := chosen[n]; !ok {
				chosen[n] = d + "/" + n
			}
		}
	}
	names := make([]string, 0, len(chosen))
	for n := range chosen {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, chosen[n])
	}
	return out
}
