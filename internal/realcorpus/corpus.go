// Package realcorpus checks nastune against machine data other people
// wrote: the trees of testdata/real (each a tree.txtar from a public source,
// an ORIGIN file saying where it came from, and golden.txt, the audit text
// it must produce) and, for the invariants, the fixture hosts of
// testdata/hosts as well. The trees of testdata/unsourced (public data
// whose address could not be recovered, issue 27) run through the same
// goldens and invariants but are kept out of testdata/real, whose every
// ORIGIN names its source (CheckOrigin, TestOrigin).
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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Dir is testdata/real of this repository: the trees whose ORIGIN names
// their public source.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "real")
}

// UnsourcedDir is testdata/unsourced: trees whose data was taken from a
// public file whose address was not recorded and could not be found again
// (issue 27). They stay test input, but they are not real corpus data that
// anyone can fetch and compare, so they are kept apart from Dir.
func UnsourcedDir() string {
	return filepath.Join(Dir(), "..", "unsourced")
}

// Trees lists the sourced corpus trees by name (folders of Dir holding a
// tree.txtar), sorted. Folders whose name starts with "_" are tooling.
func Trees() ([]string, error) { return treesIn(Dir()) }

// UnsourcedTrees lists the trees of UnsourcedDir by name, sorted.
func UnsourcedTrees() ([]string, error) { return treesIn(UnsourcedDir()) }

// AllTrees lists the trees of Dir and of UnsourcedDir, sorted: every tree
// the goldens and invariants run over. TreeDir says where each one is.
func AllTrees() ([]string, error) {
	a, err := Trees()
	if err != nil {
		return nil, err
	}
	b, err := UnsourcedTrees()
	if err != nil {
		return nil, err
	}
	out := append(a, b...)
	sort.Strings(out)
	return out, nil
}

// TreeDir is the folder of the tree name: in UnsourcedDir when it is there,
// in Dir otherwise.
func TreeDir(name string) string {
	if _, err := os.Stat(filepath.Join(UnsourcedDir(), name, "tree.txtar")); err == nil {
		return filepath.Join(UnsourcedDir(), name)
	}
	return filepath.Join(Dir(), name)
}

func treesIn(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "tree.txtar")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// CheckOrigin reports what an ORIGIN file lacks. Every tree says where it is
// published, so anyone can fetch the same text and compare: a source line,
// and no address that is not one. An "address: unknown …" line (the address
// was not recorded when the text was taken) is rejected, and so is a source
// marked "no repository path recorded": a title alone cannot be checked.
// When a source cannot be found again, the data is replaced by data from a
// source that can be cited, never given a guessed address. An ORIGIN says
// where the data is published, not how it was found: a line naming the
// search tool or index it came through (howFound) is rejected too.
func CheckOrigin(text string) error {
	hasSource := false
	lower := strings.ToLower(text)
	for i, line := range strings.Split(lower, "\n") {
		for _, w := range howFound {
			if strings.Contains(line, w) {
				return fmt.Errorf("line %d: %q says how the data was found, not where it is published; name the source (project, path, commit; or title, site, author, date)", i+1, w)
			}
		}
	}
	for i, line := range strings.Split(text, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "source":
			hasSource = val != ""
			if strings.Contains(val, "no repository path recorded") {
				return fmt.Errorf("line %d: the source's repository path was not recorded; name the repository, path and commit, or replace the data with data from a source that can be cited", i+1)
			}
		case "address":
			if !strings.HasPrefix(val, "https://") && !strings.HasPrefix(val, "http://") {
				return fmt.Errorf("line %d: address %q is not a URL; find the source's address, or replace the data with data from a source that can be cited", i+1, val)
			}
		}
	}
	if !hasSource && !strings.HasPrefix(text, "Recorded by test/kernellab") && !strings.HasPrefix(text, "# ") {
		return fmt.Errorf("no source line: say where the data is published (project, path, commit; or title, site, author, date)")
	}
	return nil
}

// howFound is wording that says how data was found (the tool or index it
// came through) rather than where it is published.
var howFound = []string{"code index", "search corpus", "search tool", "search index", "document id", "found through", "found via", "found using"}
