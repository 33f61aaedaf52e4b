package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownSyntaxErrors lists the files under dir, outside internal/parse/perr,
// that declare a package-level ErrSyntax: every parser wraps perr's one
// (issue 27: seven parse packages had each their own).
func ownSyntaxErrors(t *testing.T, dir string) []string {
	var out []string
	goFiles(t, dir, func(p string) {
		if strings.Contains(filepath.ToSlash(p), "/perr/") {
			return
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				if v, ok := s.(*ast.ValueSpec); ok {
					for _, n := range v.Names {
						if n.Name == "ErrSyntax" {
							out = append(out, p)
						}
					}
				}
			}
		}
	})
	return out
}

func TestParsersShareErrSyntax(t *testing.T) {
	for _, p := range ownSyntaxErrors(t, filepath.Join(repoRoot(t), "internal", "parse")) {
		t.Errorf("%s declares its own ErrSyntax: wrap perr.ErrSyntax (perr.Line, perr.Input)", p)
	}
}

// TestParsersShareErrSyntaxFires: the guard sees a parser's own ErrSyntax.
func TestParsersShareErrSyntaxFires(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport \"errors\"\n\nvar ErrSyntax = errors.New(\"syntax error\")\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ownSyntaxErrors(t, dir); len(got) != 1 {
		t.Errorf("a file declaring ErrSyntax: %d violations, want 1", len(got))
	}
}
