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

// readSide are the packages that must never write or run commands.
var readSide = []string{
	"internal/hostfs", "internal/probe", "internal/parse", "internal/facts",
	"internal/rule", "internal/rules", "internal/audit", "internal/render",
	"internal/calc", "internal/cli", "internal/inventory", "internal/plan", "internal/confsyntax",
	"internal/watch", "internal/netlink", "internal/htmlpage", "internal/health", "internal/pathwalk", "internal/blockdev",
	"internal/netns",
}

// ethtoolChanges reports whether name, a constant of golang.org/x/sys/unix,
// is a SIOCETHTOOL command that changes or disturbs a NIC: the set
// commands (ETHTOOL_S*, netlink ETHTOOL_MSG_*_SET) and the ones that reset,
// flash, blink or self-test it. The read side (probe/ethtool_ioctl.go) may
// only send the get commands (ETHTOOL_G*).
func ethtoolChanges(name string) bool {
	if !strings.HasPrefix(name, "ETHTOOL_") {
		return false
	}
	switch name {
	case "ETHTOOL_FLASHDEV", "ETHTOOL_RESET", "ETHTOOL_PHYS_ID", "ETHTOOL_NWAY_RST", "ETHTOOL_TEST":
		return true
	}
	return strings.HasPrefix(name, "ETHTOOL_S") || strings.HasPrefix(name, "ETHTOOL_MSG_") && strings.HasSuffix(name, "_SET")
}

var bannedImports = map[string]string{
	"os/exec": "read-side code runs no commands; captured output is read from the root",
}

// bannedCalls are package-level functions that write, by package name.
var bannedCalls = map[string][]string{
	"os": {"WriteFile", "Create", "CreateTemp", "OpenFile", "Remove", "RemoveAll", "Mkdir", "MkdirAll",
		"MkdirTemp", "Rename", "Symlink", "Link", "Chmod", "Chown", "Lchown", "Chtimes", "Truncate", "StartProcess"},
	"unix": {"Write", "Pwrite", "Writev", "Unlink", "Unlinkat", "Mkdir", "Mkdirat", "Rename", "Renameat",
		"Truncate", "Ftruncate", "Mount", "Unmount", "Sethostname", "Setxattr", "Exec", "ForkExec"},
	"syscall": {"Write", "Pwrite", "Unlink", "Mkdir", "Rename", "Truncate", "Mount", "Exec", "ForkExec"},
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goFiles calls fn with each non-test .go file under dir.
func goFiles(t *testing.T, dir string, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		fn(p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eachReadSideFile reports what check finds in every non-test file of the
// read side, and fails when so few files were seen that the package list
// must be stale.
func eachReadSideFile(t *testing.T, check func(t *testing.T, root, path string) []string) {
	root := repoRoot(t)
	checked := 0
	for _, pkg := range readSide {
		goFiles(t, filepath.Join(root, pkg), func(p string) {
			checked++
			for _, v := range check(t, root, p) {
				t.Error(v)
			}
		})
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: the package list is stale", checked)
	}
}

// parsedFile is a parsed Go file with its imports by local name.
type parsedFile struct {
	fset  *token.FileSet
	file  *ast.File
	rel   string            // the path below the root
	names map[string]string // local name → import path
}

func parseGo(t *testing.T, root, path string) parsedFile {
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
	return parsedFile{fset, f, rel, names}
}

// selectors calls fn with each pkg.Name selector of the file and the
// import path pkg names ("" for a local value).
func (pf parsedFile) selectors(fn func(sel *ast.SelectorExpr, pkg string)) {
	ast.Inspect(pf.file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				fn(sel, pf.names[id.Name])
			}
		}
		return true
	})
}

func (pf parsedFile) line(n ast.Node) int { return pf.fset.Position(n.Pos()).Line }

func TestReadSideNeitherWritesNorExecs(t *testing.T) {
	eachReadSideFile(t, violations)
}

// violations lists the banned imports and calls in one Go file.
func violations(t *testing.T, root, path string) []string {
	var out []string
	pf := parseGo(t, root, path)
	rel := pf.rel
	for _, imp := range pf.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := bannedImports[p]; bad {
			out = append(out, fmt.Sprintf("%s imports %s: %s", rel, p, why))
		}
	}
	pf.selectors(func(sel *ast.SelectorExpr, pkg string) {
		short := pkg[strings.LastIndex(pkg, "/")+1:]
		if (pkg == "syscall" || pkg == "golang.org/x/sys/unix") && ethtoolChanges(sel.Sel.Name) {
			out = append(out, fmt.Sprintf("%s:%d uses %s.%s: the read side may only ask ethtool (ETHTOOL_G*), not set", rel, pf.line(sel), short, sel.Sel.Name))
		}
		for _, fn := range bannedCalls[short] {
			if sel.Sel.Name == fn && (pkg == "os" || pkg == "syscall" || pkg == "golang.org/x/sys/unix") {
				out = append(out, fmt.Sprintf("%s:%d calls %s.%s: only internal/apply may change the system", rel, pf.line(sel), short, fn))
			}
		}
	})
	return out
}

// TestViolationsAreFound proves the checker is not blind.
func TestViolationsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := "package x\nimport (\n\"os\"\n\"os/exec\"\nu \"golang.org/x/sys/unix\"\n)\n" +
		"func f() { os.WriteFile(\"a\", nil, 0); exec.Command(\"ls\"); u.Unlink(\"b\"); os.ReadFile(\"c\") }\n" +
		"var cmds = []uint32{u.ETHTOOL_GRINGPARAM, u.ETHTOOL_SRINGPARAM, u.ETHTOOL_PHYS_ID, u.ETHTOOL_MSG_RINGS_SET, u.ETHTOOL_MSG_RINGS_GET}\n"
	p := filepath.Join(dir, "x.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := violations(t, dir, p)
	if len(got) != 6 {
		t.Fatalf("want 6 violations (exec import, os.WriteFile, unix.Unlink, ETHTOOL_SRINGPARAM, ETHTOOL_PHYS_ID, ETHTOOL_MSG_RINGS_SET), got %q", got)
	}
}
