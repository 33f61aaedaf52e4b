package archtest

import (
	"bytes"
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
// the copy fails here.
func TestThirdPartyIsUpstream(t *testing.T) {
	const mod = "github.com/cloudsoda/go-smb2"
	root := filepath.Join("..", "..")
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(mod) + `\s+(v\S+)`).FindSubmatch(gomod)
	if m == nil || !bytes.Contains(gomod, []byte("replace "+mod+" => ./third_party/go-smb2")) {
		t.Fatalf("go.mod: no pinned %s replaced by ./third_party/go-smb2", mod)
	}
	out, err := exec.Command("go", "mod", "download", "-json", mod+"@"+string(m[1])).Output()
	var dl struct{ Dir, Error string }
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
	// What NASTUNE.md says differs: files left out, files changed.
	leftOut := map[string]bool{"krb5.go": true, "internal/erref/mkntstatus.go": true}
	changed := map[string]bool{"go.mod": true, "internal/erref/ntstatus.go": true}
	kept := filepath.Join(root, "third_party", "go-smb2")
	seen := map[string]bool{}
	err = filepath.WalkDir(dl.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dl.Dir, p)
		if !strings.HasSuffix(rel, ".go") && rel != "go.mod" && rel != "LICENSE" || strings.HasSuffix(rel, "_test.go") || leftOut[rel] {
			return nil
		}
		seen[rel] = true
		up, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		ours, err := os.ReadFile(filepath.Join(kept, rel))
		switch {
		case err != nil:
			t.Errorf("%s: upstream's file is missing from third_party/go-smb2 (NASTUNE.md does not list it as left out)", rel)
		case changed[rel] && bytes.Equal(up, ours):
			t.Errorf("%s: listed as changed, but it is upstream's", rel)
		case !changed[rel] && !bytes.Equal(up, ours):
			t.Errorf("%s differs from upstream %s@%s and NASTUNE.md does not list the change", rel, mod, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(kept, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(kept, p)
		if strings.HasSuffix(rel, ".go") && !seen[rel] {
			t.Errorf("%s: not in upstream's module", rel)
		}
		return nil
	})
	for _, rel := range []string{"krb5.go", "internal/erref/ntstatus.go"} {
		if b, _ := os.ReadFile(filepath.Join(kept, "NASTUNE.md")); !bytes.Contains(b, []byte(filepath.Base(rel))) {
			t.Errorf("NASTUNE.md does not name %s", rel)
		}
	}
}
