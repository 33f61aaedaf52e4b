package archtest

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
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
	eachReadSideFile(t, flagViolations)
}

// flagViolations lists uses of os, syscall or unix write flags in a file.
func flagViolations(t *testing.T, root, path string) []string {
	pf := parseGo(t, root, path)
	var out []string
	pf.selectors(func(sel *ast.SelectorExpr, pkg string) {
		switch pkg {
		case "os", "syscall", "golang.org/x/sys/unix":
			if writeFlags[sel.Sel.Name] {
				out = append(out, fmt.Sprintf("%s:%d uses %s.%s: the read side opens files read-only", pf.rel, pf.line(sel), sel.X.(*ast.Ident).Name, sel.Sel.Name))
			}
		}
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
