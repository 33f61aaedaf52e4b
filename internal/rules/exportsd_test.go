package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// exportfs also reads /etc/exports.d/*.exports (exports(5)): an export
// there is judged like one in /etc/exports, and its evidence names that
// file and line; a file without the .exports suffix is not read.
func TestExportsDir(t *testing.T) {
	dir := fixture.HostDir(t, "kirkwood-nas")
	d := filepath.Join(dir, "etc/exports.d")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"media.exports":        "# media\n/srv/media 192.168.1.0/24(rw,subtree_check)\n",
		"old.exports.dpkg-old": "/srv/old 10.0.0.0/8(rw,subtree_check)\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := probeDir(t, dir)
	var media, old bool
	for _, f := range rules.Run(rule.Input{Host: h}) {
		if f.ID != "nfs-export-subtree-check" {
			continue
		}
		for _, e := range f.Evidence {
			switch e.Source {
			case "/etc/exports.d/media.exports:2":
				media = true
			case "/etc/exports.d/old.exports.dpkg-old:1":
				old = true
			}
		}
	}
	if !media {
		t.Error("the subtree_check export in /etc/exports.d/media.exports:2 was not judged")
	}
	if old {
		t.Error("a file without the .exports suffix was read")
	}
}
