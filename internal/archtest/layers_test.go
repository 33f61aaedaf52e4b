package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

const modPath = "github.com/nastune/nastune/"

// readersOfFacts may read facts and the health verdict but not the rules:
// a rule's finding is judged in one place (internal/rules), and a reader
// that needs a verdict takes it from internal/health, which rules uses
// too, so the two cannot drift (issue 27).
var readersOfFacts = map[string][]string{
	"internal/render":    {"internal/rules"},
	"internal/inventory": {"internal/rules"},
	"internal/health":    {"internal/rules", "internal/render", "internal/inventory"},
}

// forbiddenImports lists "file imports pkg" for every non-test .go file
// under dir that imports one of the banned module packages.
func forbiddenImports(t *testing.T, dir string, banned []string) []string {
	t.Helper()
	var out []string
	goFiles(t, dir, func(p string) {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			for _, b := range banned {
				if path == modPath+b {
					out = append(out, p+" imports "+path)
				}
			}
		}
	})
	return out
}

func TestReadersDoNotImportRules(t *testing.T) {
	root := repoRoot(t)
	for pkg, banned := range readersOfFacts {
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			t.Fatalf("%s: %v (the package list is stale)", pkg, err)
		}
		for _, v := range forbiddenImports(t, filepath.Join(root, pkg), banned) {
			t.Errorf("%s: read the verdict from internal/health, not the rules", v)
		}
	}
}

// TestReadersGuardFires: the guard sees an import of the rules.
func TestReadersGuardFires(t *testing.T) {
	dir := t.TempDir()
	src := "package render\n\nimport _ \"" + modPath + "internal/rules\"\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := forbiddenImports(t, dir, readersOfFacts["internal/render"]); len(got) != 1 {
		t.Errorf("a file importing internal/rules: %d violations, want 1", len(got))
	}
}
