package kernfmt

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The package doc lists every exported parser, so a reader finds the one
// parser of a format there (issue 27: it once listed 7 of 18).
func TestDocListsEveryParser(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p := pkgs["kernfmt"]
	if p == nil {
		t.Fatal("no package kernfmt")
	}
	files := make([]*ast.File, 0, len(p.Files))
	for _, f := range p.Files {
		files = append(files, f)
	}
	d, err := doc.NewFromFiles(fset, files, "github.com/nastune/nastune/internal/parse/kernfmt")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, w := range strings.FieldsFunc(d.Doc, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '\n' || r == '\t' }) {
		listed[w] = true
	}
	var funcs []string
	for _, f := range d.Funcs {
		funcs = append(funcs, f.Name)
	}
	for _, ty := range d.Types {
		for _, f := range ty.Funcs { // constructors grouped under their type
			funcs = append(funcs, f.Name)
		}
	}
	if len(funcs) < 10 {
		t.Fatalf("found only %d exported functions: the test reads the wrong files", len(funcs))
	}
	for _, f := range funcs {
		if !listed[f] {
			t.Errorf("kernfmt.%s is not listed in the package doc (doc.go): add its file to the table", f)
		}
	}
}
