package realcorpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/realcorpus"
)

// TestOrigin: every tree of testdata/real names its public source
// (CheckOrigin). The trees whose source could not be recovered live in
// testdata/unsourced, and their ORIGIN says so on its first line.
func TestOrigin(t *testing.T) {
	names, err := realcorpus.Trees()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(realcorpus.Dir(), n, "ORIGIN"))
		if err != nil {
			t.Errorf("%s: %v: every corpus tree says where it came from", n, err)
			continue
		}
		if err := realcorpus.CheckOrigin(string(b)); err != nil {
			t.Errorf("%s/ORIGIN: %v (if the source cannot be found, move the tree to testdata/unsourced)", n, err)
		}
	}
	// The per-file ORIGINs of the folders that are not trees (smart, kmsg,
	// the kernel lab's recordings) say where each file is published too.
	all, err := filepath.Glob(filepath.Join(realcorpus.Dir(), "*", "ORIGIN"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := realcorpus.CheckOrigin(string(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	others, err := realcorpus.UnsourcedTrees()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range others {
		b, err := os.ReadFile(filepath.Join(realcorpus.UnsourcedDir(), n, "ORIGIN"))
		if err != nil {
			t.Errorf("unsourced/%s: %v: say what is known of the data", n, err)
			continue
		}
		if !strings.HasPrefix(string(b), "unsourced: the public source of this data could not be recovered") {
			t.Errorf("unsourced/%s/ORIGIN does not start by saying its source could not be recovered", n)
		}
		if realcorpus.CheckOrigin(string(b)) == nil {
			t.Errorf("unsourced/%s/ORIGIN now names its source: move the tree back to testdata/real", n)
		}
	}
}

// TestCheckOrigin: the guard fires on the ORIGIN forms it exists to stop.
func TestCheckOrigin(t *testing.T) {
	for _, c := range []struct {
		name, text string
		ok         bool
	}{
		{"repository", "source: https://github.com/prometheus/procfs\npath: testdata/fixtures.ttar\ncommit: 0123abc\ntaken: /proc/mdstat\n", true},
		{"web page", "source: ArchWiki, article \"ZFS\"\naddress: https://wiki.archlinux.org/title/ZFS\ndate: 2014-06-16\n", true},
		{"mailing list", "source: LKML 'nvme timeout', Mikhail Gavrilov 2025-01-15 <CAB@mail.gmail.com>\n", true},
		{"kernel lab", "Recorded by test/kernellab (TestLab) on 2026-11-23 with `nastune snapshot`\n", true},
		{"address unknown", "source: public web post or guide \"notes\"\naddress: unknown (not recorded when the text was taken)\n", false},
		{"address not a URL", "source: a forum thread\naddress: the forum's Samba section\n", false},
		{"no repository path", "source: public post/guide \"x\" (nastune search corpus document id 1; no repository path recorded)\n", false},
		{"no source", "taken: /proc/mdstat\nlicense: Apache-2.0\n", false},
		{"how found", "source: blog post \"x\", author a, 2009-08-20 (found through the code index, which did not name the repository)\n", false},
		{"how found, list form", "# Real outputs. One line per file:\nx.txt <- post \"y\", Ubuntu Forums, by z, 2008-12-31 (nastune search corpus document id 1)\n", false},
		{"list form", "# Real outputs. One line per file:\nx.txt <- schilling-ryan/server-utils smart_stats.sh @65aeeaf (GPL-3.0)\n", true},
	} {
		err := realcorpus.CheckOrigin(c.text)
		if (err == nil) != c.ok {
			t.Errorf("%s: CheckOrigin = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
