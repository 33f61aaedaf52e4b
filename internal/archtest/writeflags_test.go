package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeFlags are open(2) flags that write or create. Read-side code opens
// with O_RDONLY (plus O_NONBLOCK, O_NOFOLLOW, O_CLOEXEC) only: a method such
// as os.Root.OpenFile is not banned by name, so the flags are.
var writeFlags = map[string]bool{
	"O_WRONLY": true, "O_RDWR": true, "O_CREATE": true, "O_CREAT": true, "O_TRUNC": true, "O_APPEND": true,
	"O_EXCL": true, "O_TMPFILE": true,
}

func TestReadSideUsesNoWriteFlags(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, pkg := range readSide {
		err := filepath.WalkDir(filepath.Join(root, pkg), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			checked++
			for _, v := range flagViolations(t, root, p) {
				t.Error(v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: the package list is stale", checked)
	}
}

// flagViolations lists uses of os, syscall or unix write flags in a file.
func flagViolations(t *testing.T, root, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, path)
	names := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		names[local] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch names[id.Name] {
		case "os", "syscall", "golang.org/x/sys/unix":
			if writeFlags[sel.Sel.Name] {
				out = append(out, fmt.Sprintf("%s:%d uses %s.%s: the read side opens files read-only", rel, fset.Position(sel.Pos()).Line, id.Name, sel.Sel.Name))
			}
		}
		return true
	})
	return out
}

func TestWriteFlagsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := "package x\nimport (\n\"os\"\nu \"golang.org/x/sys/unix\"\n)\n" +
		"func f(r *os.Root) { r.OpenFile(\"a\", os.O_RDWR|os.O_CREATE, 0); u.Open(\"b\", u.O_RDONLY|u.O_NONBLOCK, 0) }\n"
	p := filepath.Join(dir, "x.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := flagViolations(t, dir, p); len(got) != 2 {
		t.Fatalf("want 2 violations (O_RDWR, O_CREATE), got %q", got)
	}
}
