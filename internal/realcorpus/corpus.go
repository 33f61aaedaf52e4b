// Package realcorpus checks nastune against machine data other people
// wrote: the trees of testdata/real (each a tree.txtar from a public source,
// an ORIGIN file saying where it came from, and golden.txt, the audit text
// it must produce) and, for the invariants, the fixture hosts of
// testdata/hosts as well.
//
// The invariants (invariants_test.go) are what makes a finding trustworthy
// on a machine nobody on the team has seen:
//
//   - every evidence line names a file or command this run actually read
//     (hostfs records the reads) and quotes a value that occurs in it;
//   - data that needs privileges and is absent (the 802.3ad partner block
//     of /proc/net/bonding, ethtool's link-partner modes, SMART) is never
//     evidence of a fault;
//   - every plan applies to a copy of the tree, its smb.conf passes
//     nastune's parser and testparm (when installed), and it never
//     contradicts itself (no server min protocol above the max);
//   - advice is actionable on that machine: no modprobe where the kernel
//     has no loadable modules, no Samba advice without smbd or smb.conf.
//
// Regenerate the goldens with: go test ./internal/realcorpus -update
// and review every changed finding against testdata/real/REVIEW.md.
package realcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Dir is testdata/real of this repository.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "real")
}

// Trees lists the corpus trees by name (folders of Dir holding a
// tree.txtar), sorted. Folders whose name starts with "_" are tooling.
func Trees() ([]string, error) {
	ents, err := os.ReadDir(Dir())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(Dir(), e.Name(), "tree.txtar")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
