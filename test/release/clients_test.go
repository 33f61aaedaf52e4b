package release

import (
	"debug/macho"
	"debug/pe"
	"os"
	"strings"
	"testing"
)

// The client builds (macOS, Windows: most NAS clients are laptops) are
// executables for their OS and CPU, at most 15 MiB, and listed in
// SHA256SUMS. What they run is tested on Linux (internal/cli
// TestLinuxOnlyStubs runs their command trees).
func TestClientBinaries(t *testing.T) {
	for name, cpu := range map[string]macho.Cpu{"nastune-darwin-arm64": macho.CpuArm64, "nastune-darwin-amd64": macho.CpuAmd64} {
		p := distFile(t, name)
		checkSize(t, p)
		f, err := macho.Open(p)
		if err != nil {
			t.Fatalf("%s: not a Mach-O executable: %v", name, err)
		}
		if f.Cpu != cpu || f.Type != macho.TypeExec {
			t.Errorf("%s: cpu %v type %v, want %v executable", name, f.Cpu, f.Type, cpu)
		}
		f.Close()
	}
	p := distFile(t, "nastune-windows-amd64.exe")
	checkSize(t, p)
	f, err := pe.Open(p)
	if err != nil {
		t.Fatalf("nastune-windows-amd64.exe: not a PE executable: %v", err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("nastune-windows-amd64.exe: machine %#x, want amd64", f.Machine)
	}
	f.Close()
	sums, err := os.ReadFile(distFile(t, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"nastune-darwin-arm64", "nastune-darwin-amd64", "nastune-windows-amd64.exe"} {
		if !strings.Contains(string(sums), "  "+n+"\n") {
			t.Errorf("SHA256SUMS does not list %s:\n%s", n, sums)
		}
	}
}

func checkSize(t *testing.T, p string) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 15<<20 {
		t.Errorf("%s: %d bytes, over 15 MiB", p, st.Size())
	}
}
