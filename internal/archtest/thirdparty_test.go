package archtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestThirdPartyIsUpstream: third_party/go-smb2 is upstream's module at
// the version go.mod pins, with only the changes its NASTUNE.md lists.
// Every other file is upstream's byte for byte, so updating the copy (or
// reviewing it) is a matter of those few lines, and a change slipped into
// the copy fails here: in a file upstream has, in a file NASTUNE.md lists
// as changed (each is pinned by its SHA-256, checked without the network
// too), or in a file of any kind upstream does not have (an assembly or
// .syso file is built into the package as surely as a .go file). The
// upstream compared against is pinned by its module hash.
func TestThirdPartyIsUpstream(t *testing.T) {
	const mod = "github.com/cloudsoda/go-smb2"
	// The module hash of the pinned version (go mod download -json's Sum):
	// go.sum has no line for a replaced module.
	const upstreamSum = "h1:xiTow1n7oNJPzn9QH+U2sT65mO2F12zNNlY4ZzOew70="
	// What NASTUNE.md says differs: files left out, files changed (with
	// the SHA-256 of nastune's version: redoing a change on an update
	// means reviewing it and pinning it again here).
	leftOut := map[string]bool{"krb5.go": true, "internal/erref/mkntstatus.go": true}
	changed := map[string]string{
		"errors.go":                  "0eeeb8921b0361f42c38c347bfd413ab0b29a54c57fc914a5f6d735fae26ae7d",
		"go.mod":                     "4a49f04b5cbcc07b39413d152991a9ae9d12c2faa3dcc613072a2857185e34e8",
		"internal/erref/ntstatus.go": "c540c37d9dc5c19c36db91326b3b11f53692582a18d9a90f7e135558f0d08f6b",
		"smb2.go":                    "6da607a6a690bb4334c4b7f641171da010a2ffbe8fa729fc8fce679a3acb26d4",
	}
	// Upstream's files that are not the module's code: its CI, tests'
	// data, the sums of its own dependencies.
	notCode := func(rel string) bool {
		return strings.HasPrefix(rel, ".github/") || rel == ".gitignore" || rel == "go.sum" ||
			strings.HasSuffix(rel, "_test.go") || strings.Contains("/"+rel, "/testdata/")
	}
	root := filepath.Join("..", "..")
	kept := filepath.Join(root, "third_party", "go-smb2")
	for rel, want := range changed {
		b, err := os.ReadFile(filepath.Join(kept, rel))
		if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: not the version reviewed (SHA-256 %x, want %s; %v): review the change, list it in NASTUNE.md and pin it here", rel, sum, want, err)
		}
	}
	for _, rel := range []string{"krb5.go", "internal/erref/ntstatus.go", "errors.go", "smb2.go"} {
		if b, _ := os.ReadFile(filepath.Join(kept, "NASTUNE.md")); !bytes.Contains(b, []byte(filepath.Base(rel))) {
			t.Errorf("NASTUNE.md does not name %s", rel)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(mod) + `\s+(v\S+)`).FindSubmatch(gomod)
	if m == nil || !bytes.Contains(gomod, []byte("replace "+mod+" => ./third_party/go-smb2")) {
		t.Fatalf("go.mod: no pinned %s replaced by ./third_party/go-smb2", mod)
	}
	out, err := exec.Command("go", "mod", "download", "-json", mod+"@"+string(m[1])).Output()
	var dl struct{ Dir, Sum, Error string }
	if err == nil {
		err = json.Unmarshal(out, &dl)
	}
	if err != nil || dl.Dir == "" {
		msg := "go mod download " + mod + "@" + string(m[1]) + ": " + dl.Error
		if err != nil {
			msg += " " + err.Error()
		}
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (no module proxy here)")
	}
	if dl.Sum != upstreamSum {
		t.Fatalf("%s@%s has the module hash %s, not the %s reviewed: a new version is reviewed and pinned here", mod, m[1], dl.Sum, upstreamSum)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(dl.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dl.Dir, p)
		rel = filepath.ToSlash(rel)
		if notCode(rel) || leftOut[rel] {
			return nil
		}
		seen[rel] = true
		up, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		ours, err := os.ReadFile(filepath.Join(kept, rel))
		_, isChanged := changed[rel]
		switch {
		case err != nil:
			t.Errorf("%s: upstream's file is missing from third_party/go-smb2 (NASTUNE.md does not list it as left out)", rel)
		case isChanged && bytes.Equal(up, ours):
			t.Errorf("%s: listed as changed, but it is upstream's", rel)
		case !isChanged && !bytes.Equal(up, ours):
			t.Errorf("%s differs from upstream %s@%s and NASTUNE.md does not list the change", rel, mod, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(kept, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(kept, p)
		if rel = filepath.ToSlash(rel); rel != "NASTUNE.md" && !seen[rel] {
			t.Errorf("%s: not in upstream's module (nor NASTUNE.md)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
