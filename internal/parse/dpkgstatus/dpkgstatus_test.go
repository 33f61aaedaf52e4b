package dpkgstatus

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	db := "Package: a\nStatus: install ok installed\nVersion: 1.0-1\nDescription: x\n Package: samba\n Version: 9\n\n" +
		"Package: samba\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2:4.17.12+dfsg-0+deb12u4\n\n" +
		"Package: gone\nStatus: deinstall ok not-installed\n\n" +
		"package: lower\nVERSION: 3\n\n" +
		"Package: tabbed\nPriority: optional\nVersion: 4\nDescription: d\n\tVersion: 8\n  \n" + // a line of blanks ends it
		"Version: 5\nPackage: late\n\n" +
		"Package: libm\nArchitecture: amd64\nVersion: 1\n\nPackage: libm\nArchitecture: i386\nVersion: 2\n" // no final blank line
	for _, c := range []struct {
		pkg, want string
		err       error
	}{
		{"samba", "2:4.17.12+dfsg-0+deb12u4", nil},
		{"a", "1.0-1", nil},
		{"gone", "", nil},
		{"lower", "3", nil},
		{"tabbed", "4", nil},
		{"late", "5", nil},
		{"libm", "12", nil},
		{"sam", "", ErrNotFound},
		{"x", "", ErrNotFound},
	} {
		got, err := Version(strings.NewReader(db), c.pkg)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Version(%q) = %q, %v; want %q, %v", c.pkg, got, err, c.want, c.err)
		}
	}
}

// A line longer than the read buffer (a long Description) is skipped whole:
// its tail, read as a second slice, never starts a field.
func TestVersionLongLine(t *testing.T) {
	head := "Package: samba\nVersion: 1\n"
	desc := "Description: " + strings.Repeat("y", 16<<10-len("Description: "))
	db := head + desc + "Version: 7\n\nPackage: b\nVersion: 2\n"
	got, err := Version(strings.NewReader(db), "samba")
	if err != nil || got != "1" {
		t.Fatalf("got %q, %v; want 1", got, err)
	}
	if got, err := Version(strings.NewReader(db), "b"); err != nil || got != "2" {
		t.Fatalf("b: got %q, %v; want 2", got, err)
	}
}

// dpkg-query is the oracle: every package of this machine's database.
func TestVersionMatchesDpkgQuery(t *testing.T) {
	if _, err := os.Stat(Path); err != nil {
		t.Skip("no dpkg database here")
	}
	dq, err := exec.LookPath("dpkg-query")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dpkg-query missing")
		}
		t.Skip("no dpkg-query")
	}
	out, err := exec.Command(dq, "-W", "-f=${Package}\\t${Version}\\n").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, v, _ := strings.Cut(l, "\t")
		want[name] += v // one line per architecture, joined as -f joins them
	}
	if len(want) < 10 {
		t.Fatalf("dpkg-query listed %d packages", len(want))
	}
	f, err := os.ReadFile(Path)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range want {
		got, err := Version(strings.NewReader(string(f)), name)
		if err != nil || got != v {
			t.Errorf("%s: got %q, %v; dpkg-query says %q", name, got, err, v)
		}
	}
	// And one dpkg-query does not know.
	if _, err := exec.Command(dq, "-W", "nastune-no-such-package").Output(); err == nil {
		t.Fatal("dpkg-query found nastune-no-such-package")
	}
	if _, err := Version(strings.NewReader(string(f)), "nastune-no-such-package"); !errors.Is(err, ErrNotFound) {
		t.Errorf("nastune-no-such-package: err %v, want ErrNotFound", err)
	}
}
