package tune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
)

func TestSizePath(t *testing.T) {
	p := NetPath{RTT: 20 * time.Millisecond, SendBPS: 26e6, ReceiveBPS: 13e6}
	SizePath(&p)
	// 26 Mbit/s × 20 ms = 65000 bytes; 2 × that rounded up to 64 KiB.
	if p.SizedBPS != 26e6 || p.BDP != 65000 || p.Need != 131072 {
		t.Errorf("sized %+v", p)
	}
	p.HintBPS = 1e9
	SizePath(&p)
	if p.SizedBPS != 1e9 || p.BDP != 2500000 || p.Need != 5046272 {
		t.Errorf("with --rate 1000: %+v", p)
	}
}

// NetKnobs: candidates never below the kernel default, only above the
// value found; net.core in a non-initial namespace is named, not tried.
func TestNetKnobs(t *testing.T) {
	kenv := knobs.Env{Kernel: knobs.Version{Major: 6, Minor: 18}, LowMemBytes: 8 << 30}
	sabotaged := map[string]string{
		"net.ipv4.tcp_rmem": "4096 65536 65536", "net.ipv4.tcp_wmem": "4096 16384 65536",
		"net.core.rmem_max": "4194304", "net.core.wmem_max": "4194304",
	}
	defaults := map[string]string{
		"net.ipv4.tcp_rmem": "4096 131072 33554432", "net.ipv4.tcp_wmem": "4096 16384 4194304",
		"net.core.rmem_max": "4194304", "net.core.wmem_max": "4194304",
	}
	smallBox := map[string]string{ // what a 128 MiB box boots with
		"net.ipv4.tcp_rmem": "4096 131072 1048576", "net.ipv4.tcp_wmem": "4096 16384 1048576",
		"net.core.rmem_max": "4194304", "net.core.wmem_max": "4194304",
	}
	small := NetPath{Need: 131072}
	big := NetPath{Need: 5046272}
	for _, tc := range []struct {
		name   string
		vals   map[string]string
		path   NetPath
		init   bool
		denied bool   // net.core.* not writable
		ram    uint64 // 0: unknown
		want   map[string]string
		skip   map[string]string // key → text in Skipped
	}{
		{"sabotaged: back to the kernel defaults", sabotaged, small, false, true, 0,
			map[string]string{"net.ipv4.tcp_rmem": "4096 65536 33554432", "net.ipv4.tcp_wmem": "4096 16384 4194304"},
			map[string]string{"net.core.rmem_max": "already covers the kernel default"}},
		{"defaults cover a small path", defaults, small, true, false, 0, map[string]string{},
			map[string]string{"net.ipv4.tcp_wmem": "already covers"}},
		{"1 Gbit/s at 20 ms: 2 × BDP above the defaults", defaults, big, true, false, 0,
			map[string]string{"net.ipv4.tcp_wmem": "4096 16384 5046272", "net.core.rmem_max": "5046272", "net.core.wmem_max": "5046272"},
			map[string]string{"net.ipv4.tcp_rmem": "already covers"}},
		{"the same in a child namespace: net.core read-only", defaults, big, false, true, 0,
			map[string]string{"net.ipv4.tcp_wmem": "4096 16384 5046272"},
			map[string]string{"net.core.wmem_max": "read-only in this network namespace"}},
		{"a 128 MiB box: capped at RAM/32 (4 MiB)", smallBox, big, true, false, 128 << 20,
			map[string]string{"net.ipv4.tcp_wmem": "4096 16384 4194304", "net.ipv4.tcp_rmem": "4096 131072 4194304"},
			map[string]string{"net.core.rmem_max": "capped at RAM/32 = 4194304"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kenv := kenv
			if tc.ram > 0 {
				kenv.LowMemBytes = tc.ram
			}
			e := NetEnv{
				Read: func(p string) (string, error) {
					v, ok := tc.vals[keyOf(p)]
					if !ok {
						return "", os.ErrNotExist
					}
					return v, nil
				},
				Writable: func(p string) error {
					if tc.denied && strings.Contains(p, "/core/") {
						return unix.EACCES
					}
					return nil
				},
				InitNetNS: tc.init, Knobs: kenv, RAMBytes: tc.ram,
			}
			ks := NetKnobs(tc.path, e)
			if len(ks) != len(NetKeys) {
				t.Fatalf("%d knobs", len(ks))
			}
			for _, k := range ks {
				want, tried := tc.want[k.Attr]
				switch {
				case tried && !slices.Equal(k.Values, []string{want}):
					t.Errorf("%s: tries %v, want %s", k.Attr, k.Values, want)
				case !tried && len(k.Values) > 0:
					t.Errorf("%s: tries %v, want nothing (%v)", k.Attr, k.Values, k.Skipped)
				}
				if s, ok := tc.skip[k.Attr]; ok && !strings.Contains(strings.Join(k.Skipped, "; "), s) {
					t.Errorf("%s: skipped %q, want %q", k.Attr, k.Skipped, s)
				}
			}
		})
	}
}

func keyOf(p string) string {
	return strings.ReplaceAll(strings.TrimPrefix(p, "/proc/sys/"), "/", ".")
}

// Persist of a kept sysctl goes through plan's boot model: a later admin
// file in /etc/sysctl.d that sets the key again has its line commented
// out (journaled); a packaged file nastune does not edit leaves the value
// runtime only, and Kept says so. Undo restores everything.
func TestPersistSysctlAgainstLaterFiles(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("/proc/sys/net/ipv4/tcp_wmem", "4096\t16384\t65536\n")
	write("/proc/sys/net/ipv4/tcp_rmem", "4096\t65536\t65536\n")
	admin := "# mine\nnet.ipv4.tcp_wmem = 4096 16384 65536\n"
	write("/etc/sysctl.d/99-admin.conf", admin)
	h := &facts.Host{SysctlApplier: "systemd", SysctlConfig: []facts.SysctlSetting{
		{Key: "net.ipv4.tcp_wmem", Value: "4096 16384 65536", File: "/etc/sysctl.d/99-admin.conf", Line: 2},
		{Key: "net.ipv4.tcp_rmem", Value: "4096 65536 65536", File: "/usr/lib/sysctl.d/99-pkg.conf", Line: 1},
	}}
	j := &JournalApplier{Opts: apply.Options{Root: root}, Host: h}
	kept := []Kept{
		{Knob: "/proc/sys/net/ipv4/tcp_wmem", From: "4096 16384 65536", To: "4096 16384 4194304"},
		{Knob: "/proc/sys/net/ipv4/tcp_rmem", From: "4096 65536 65536", To: "4096 65536 33554432"},
	}
	id, err := j.Persist(kept)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept[0].Persisted, "99-admin.conf set it again later at boot: its line is commented out") {
		t.Errorf("tcp_wmem: %q", kept[0].Persisted)
	}
	if !strings.HasPrefix(kept[1].Persisted, "runtime only: /usr/lib/sysctl.d/99-pkg.conf:1") {
		t.Errorf("tcp_rmem: %q", kept[1].Persisted)
	}
	ours, _ := os.ReadFile(filepath.Join(root, "/etc/sysctl.d/90-nastune.conf"))
	if !strings.Contains(string(ours), "net.ipv4.tcp_wmem = 4096 16384 4194304") || strings.Contains(string(ours), "tcp_rmem") {
		t.Errorf("90-nastune.conf:\n%s", ours)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "/etc/sysctl.d/99-admin.conf")); strings.Contains(string(b), "\nnet.ipv4.tcp_wmem") {
		t.Errorf("99-admin.conf still sets tcp_wmem:\n%s", b)
	}
	if _, err := apply.Undo(id, j.Opts); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "/etc/sysctl.d/99-admin.conf")); string(b) != admin {
		t.Errorf("undo left 99-admin.conf as:\n%s", b)
	}
	for p, want := range map[string]string{"/proc/sys/net/ipv4/tcp_wmem": "4096 16384 65536", "/proc/sys/net/ipv4/tcp_rmem": "4096 65536 65536"} {
		if b, _ := os.ReadFile(filepath.Join(root, p)); strings.Join(strings.Fields(string(b)), " ") != want {
			t.Errorf("%s after undo: %q", p, b)
		}
	}
}
