// Package release tests what `make release` ships: static binaries for
// each NAS CPU, run under qemu-user on a fixture host (ARMv5 on an
// ARM926EJ-S model, as in Kirkwood and OX820 boxes), and the Debian package
// installed, run and removed with dpkg in a throw-away root.
package release

import (
	"bytes"
	"debug/elf"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/test/testutil"
)

const version = "v1.2.3"

var (
	dist    string
	repo, _ = filepath.Abs("../..")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if testing.Short() || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return m.Run() // the tests skip without dist
		}
		d, err := os.MkdirTemp("", "nastune-dist-")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(d)
		cmd := exec.Command("make", "-C", repo, "release", "DIST="+d, "VERSION="+version)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			os.Stderr.Write(out.Bytes())
			return 1
		}
		dist = d
		return m.Run()
	}()
	os.Exit(code)
}

func distFile(t *testing.T, name string) string {
	t.Helper()
	if dist == "" {
		t.Skip("make release runs only on linux/amd64 outside -short")
	}
	return filepath.Join(dist, name)
}

// Every binary is a static ELF for its CPU, stripped, at most 15 MiB.
func TestBinaries(t *testing.T) {
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "armv7": elf.EM_ARM, "armv6": elf.EM_ARM, "armv5": elf.EM_ARM}
	for name, machine := range want {
		p := distFile(t, "nastune-linux-"+name)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 15<<20 {
			t.Errorf("%s: %d bytes, over 15 MiB", name, st.Size())
		}
		f, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine != machine {
			t.Errorf("%s: machine %v, want %v", name, f.Machine, machine)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
				t.Errorf("%s: dynamically linked (%v)", name, prog.Type)
			}
		}
		if f.Section(".symtab") != nil {
			t.Errorf("%s: not stripped", name)
		}
		f.Close()
	}
}

// Under qemu-user the ARMv5 and arm64 binaries audit a fixture host and
// print byte-for-byte the JSON the native binary prints.
func TestQemu(t *testing.T) {
	host := fixture.HostDir(t, "kirkwood-nas")
	native, err := exec.Command(distFile(t, "nastune-linux-amd64"), "audit", "--root", host, "-o", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(native, []byte(`"hostname": "dockstar"`)) {
		t.Fatalf("native audit: %.200s", native)
	}
	for _, c := range []struct{ qemu, pkg, cpu, bin string }{
		{"qemu-arm-static", "qemu-user-static", "arm926", "nastune-linux-armv5"},
		{"qemu-arm-static", "qemu-user-static", "cortex-a7", "nastune-linux-armv7"},
		{"qemu-aarch64-static", "qemu-user-static", "cortex-a53", "nastune-linux-arm64"},
	} {
		t.Run(c.bin, func(t *testing.T) {
			q := testutil.Need(t, c.qemu, c.pkg)
			bin := distFile(t, c.bin)
			out, err := exec.Command(q, "-cpu", c.cpu, bin, "audit", "--root", host, "-o", "json").Output()
			if err != nil {
				t.Fatalf("%s -cpu %s: %v", c.qemu, c.cpu, err)
			}
			if !bytes.Equal(out, native) {
				t.Errorf("%s output differs from the native audit", c.bin)
			}
			v, err := exec.Command(q, "-cpu", c.cpu, bin, "version").Output()
			if err != nil || !strings.HasPrefix(string(v), "nastune "+version+" commit ") || !strings.Contains(string(v), "linux/") {
				t.Errorf("version: %q %v", v, err)
			}
		})
	}
}

// The package installs /usr/bin/nastune, man pages and completions; the
// installed binary runs; removal leaves nothing. dpkg works on a fresh
// root folder (--root), never on this machine's.
func TestDebianPackage(t *testing.T) {
	dpkg := testutil.Need(t, "dpkg", "dpkg")
	if os.Geteuid() != 0 {
		t.Skip("dpkg --root needs root")
	}
	deb := distFile(t, "nastune_1.2.3_amd64.deb")
	contents, err := exec.Command("dpkg-deb", "--contents", deb).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"./usr/bin/nastune", "./usr/share/man/man1/nastune.1.gz", "./usr/share/man/man1/nastune-audit.1.gz",
		"./usr/share/bash-completion/completions/nastune", "./usr/share/zsh/vendor-completions/_nastune", "./usr/share/fish/vendor_completions.d/nastune.fish",
		"./usr/lib/systemd/system/nastune-finish.service", "./usr/lib/systemd/system/nastune-finish.timer"} {
		if !strings.Contains(string(contents), want+"\n") {
			t.Errorf("package lacks %s", want)
		}
	}
	// Enabled by the package (TestBootUnits).
	for _, want := range []string{"./usr/lib/systemd/system/sysinit.target.wants/nastune-finish.service -> ../nastune-finish.service",
		"./usr/lib/systemd/system/timers.target.wants/nastune-finish.timer -> ../nastune-finish.timer"} {
		if !strings.Contains(string(contents), want) {
			t.Errorf("package lacks the link %s", want)
		}
	}
	// Completions need bash-completion's loader: recommended, as Debian does.
	if rec, err := exec.Command("dpkg-deb", "-f", deb, "Recommends").Output(); err != nil || !strings.Contains(string(rec), "bash-completion") {
		t.Errorf("Recommends: %q %v, want bash-completion", rec, err)
	}
	for _, arch := range []string{"arm64", "armhf", "armel"} {
		if _, err := os.Stat(distFile(t, "nastune_1.2.3_"+arch+".deb")); err != nil {
			t.Error(err)
		}
	}
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"var/lib/dpkg/status", "var/lib/dpkg/available"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(dpkg, append([]string{"--root=" + root, "--log=/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("-i", deb)
	if s := run("-s", "nastune"); !strings.Contains(s, "Status: install ok installed") || !strings.Contains(s, "Version: 1.2.3") {
		t.Errorf("status:\n%s", s)
	}
	bin := filepath.Join(root, "usr/bin/nastune")
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "nastune "+version) {
		t.Errorf("installed binary: %q %v", out, err)
	}
	run("-r", "nastune")
	for _, p := range []string{"usr/bin/nastune", "usr/share/man/man1/nastune.1.gz"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s left after dpkg -r", p)
		}
	}
}

// cockpit-nastune holds the repository's page files byte for byte under
// /usr/share/cockpit/nastune, for every architecture, and depends on
// Cockpit's bridge and nastune.
func TestCockpitPackage(t *testing.T) {
	testutil.Need(t, "dpkg-deb", "dpkg")
	deb := distFile(t, "cockpit-nastune_1.2.3_all.deb")
	for field, want := range map[string]string{"Architecture": "all", "Depends": "cockpit-bridge, nastune", "Version": "1.2.3"} {
		if got, err := exec.Command("dpkg-deb", "-f", deb, field).Output(); err != nil || strings.TrimSpace(string(got)) != want {
			t.Errorf("%s: %q %v, want %q", field, got, err, want)
		}
	}
	x := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, x).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	page := filepath.Join(repo, "packaging", "cockpit", "nastune")
	files, err := os.ReadDir(page)
	if err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadDir(filepath.Join(x, "usr/share/cockpit/nastune"))
	if len(installed) != len(files) {
		t.Errorf("package has %d page files, the repository %d", len(installed), len(files))
	}
	for _, f := range files {
		want, _ := os.ReadFile(filepath.Join(page, f.Name()))
		got, err := os.ReadFile(filepath.Join(x, "usr/share/cockpit/nastune", f.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("/usr/share/cockpit/nastune/%s differs from the repository's (%v)", f.Name(), err)
		}
	}
}
