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
	"github.com/nastune/nastune/internal/netns"
	"github.com/nastune/nastune/test/testutil"
)

// SizePath: --rate when given; else the fastest stream, the probe's
// (which asked for its own buffer) counting; a floor when every stream was
// window-limited.
func TestSizePath(t *testing.T) {
	const ms20 = 20 * time.Millisecond
	for _, tc := range []struct {
		name  string
		p     NetPath
		bps   float64
		by    string
		floor bool
		need  uint64
	}{
		// 64 KiB maxima on a 20 ms path read the window (26 Mbit/s is
		// 64 KiB / 20 ms); the probe's 8 MiB buffer allows a 4 MiB
		// window, and 900 Mbit/s × 20 ms = 2.25 MB is below 80% of it.
		{"sabotaged: the probe sizes", NetPath{RTT: ms20, SendBPS: 26e6, ReceiveBPS: 13e6, WmemMax: 65536, RmemMax: 65536,
			ProbeSendBPS: 900e6, ProbeReceiveBPS: 850e6, ProbeSendBuf: 8 << 20, ProbeReceiveBuf: 8 << 20},
			900e6, "the probe sending with SO_SNDBUF", false, 4521984},
		// 1.5 Gbit/s × 20 ms = 3.75 MB fills 80% of the probe's window.
		{"the probe window-limited too: a floor", NetPath{RTT: ms20, SendBPS: 26e6, ReceiveBPS: 13e6, WmemMax: 65536, RmemMax: 65536,
			ProbeSendBPS: 1.5e9, ProbeReceiveBPS: 1.45e9, ProbeSendBuf: 8 << 20, ProbeReceiveBuf: 8 << 20},
			1.5e9, "the probe sending with SO_SNDBUF", true, 7536640},
		// make bench's run: the send probe filled its window, the receive
		// probe did not (it stopped lower, for another reason): the send
		// rate sizes, and it is a floor.
		{"the fastest probe window-limited, the other not: a floor", NetPath{RTT: ms20, SendBPS: 23e6, ReceiveBPS: 14e6, WmemMax: 65536, RmemMax: 65536,
			ProbeSendBPS: 1.45e9, ProbeReceiveBPS: 934e6, ProbeSendBuf: 8 << 20, ProbeReceiveBuf: 8 << 20},
			1.45e9, "the probe sending with SO_SNDBUF", true, 7274496},
		{"sabotaged, the probe below its buffer: the path's rate", NetPath{RTT: ms20, SendBPS: 26e6, ReceiveBPS: 13e6, WmemMax: 65536, RmemMax: 65536,
			ProbeSendBPS: 400e6, ProbeReceiveBPS: 450e6, ProbeSendBuf: 8 << 20, ProbeReceiveBuf: 8 << 20},
			450e6, "the probe receiving with SO_RCVBUF", false, 2293760},
		{"no probe: the window-limited streams are a floor", NetPath{RTT: ms20, SendBPS: 26e6, ReceiveBPS: 13e6, WmemMax: 65536, RmemMax: 65536},
			26e6, "the stream sending as found", true, 131072},
		{"a shaper: the stream as found is not window-limited", NetPath{RTT: ms20, SendBPS: 90e6, ReceiveBPS: 88e6, WmemMax: 4 << 20, RmemMax: 32 << 20},
			90e6, "the stream sending as found", false, 458752},
		{"--rate wins and is no floor", NetPath{RTT: ms20, SendBPS: 26e6, ReceiveBPS: 13e6, WmemMax: 65536, RmemMax: 65536, HintBPS: 1e9},
			1e9, "--rate", false, 5046272},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			SizePath(&p)
			if p.SizedBPS != tc.bps || p.SizedBy != tc.by || p.Floor != tc.floor || p.Need != tc.need {
				t.Errorf("sized %.0f by %q floor %v need %d; want %.0f by %q floor %v need %d", p.SizedBPS, p.SizedBy, p.Floor, p.Need, tc.bps, tc.by, tc.floor, tc.need)
			}
		})
	}
}

func TestWindowLimited(t *testing.T) {
	for _, tc := range []struct {
		bps  float64
		rtt  time.Duration
		buf  int64
		want bool
	}{
		{26e6, 20 * time.Millisecond, 65536, true},      // 65 KB in flight, the whole buffer
		{90e6, 20 * time.Millisecond, 32 << 20, false},  // a shaper far below the window
		{800e6, 20 * time.Millisecond, 4 << 20, true},   // 2 MB in flight of a 4 MiB buffer
		{800e6, 20 * time.Millisecond, 8 << 20, false},  // the probe\'s 8 MiB
		{940e6, 200 * time.Microsecond, 4 << 20, false}, // a gigabit LAN
		{100e6, 20 * time.Millisecond, 0, true},         // the buffer unknown
		{10e6, 100 * time.Millisecond, 312500, true},    // exactly 80% of half the buffer
		{10e6, 100 * time.Millisecond, 312600, false},
	} {
		if got := WindowLimited(tc.bps, tc.rtt, tc.buf); got != tc.want {
			t.Errorf("WindowLimited(%.0f, %v, %d) = %v, want %v", tc.bps, tc.rtt, tc.buf, got, tc.want)
		}
	}
}

func TestNetLadder(t *testing.T) {
	const k, m = 1 << 10, 1 << 20
	for _, tc := range []struct {
		name             string
		cur, need, limit int64
		floor            bool
		want             []int64
	}{
		{"64 KiB found, 2 × BDP 4.5 MiB: need/4 … 2 × need", 64 * k, 4608 * k, 0, false, []int64{1152 * k, 2304 * k, 4608 * k, 9216 * k}},
		{"rounded up to 64 KiB", 64 * k, 5000000, 0, false, []int64{20 * 64 * k, 39 * 64 * k, 77 * 64 * k, 153 * 64 * k}},
		{"the rungs at or below the value found are left out", 2 * m, 4 * m, 0, false, []int64{4 * m, 8 * m}},
		{"already covers need: nothing", 32 * m, 5 * m, 0, false, nil},
		{"a floor: doubling on up to 16 MiB", 64 * k, 128 * k, 0, true, []int64{128 * k, 256 * k, 512 * k, 1 * m, 2 * m, 4 * m, 8 * m, 16 * m}},
		{"a floor covered by the value found still climbs, up to 16 × need", 4 * m, 2 * m, 0, true, []int64{8 * m, 16 * m, 32 * m}},
		{"tcp_rmem is a C int: at most 2 GiB less 64 KiB", 512 * m, 512 * m, 0, true, []int64{1024 * m, 2048*m - 64*k}},
		{"the RAM cap: a need above it is tried at it", 1 * m, 5 * m, 4 * m, false, []int64{1280 * k, 2560 * k, 4 * m}},
		{"the RAM cap at or below the value found: nothing", 4 * m, 8 * m, 4 * m, false, nil},
		{"no need: nothing", 64 * k, 0, 0, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NetLadder(tc.cur, tc.need, tc.limit, tc.floor)
			if !slices.Equal(got, tc.want) {
				t.Errorf("NetLadder(%d, %d, %d, %v) = %v, want %v", tc.cur, tc.need, tc.limit, tc.floor, got, tc.want)
			}
		})
	}
}

// NetKnobs: a ladder per tcp_*mem maximum, only above the value found;
// net.core maxima only when the measured streams set their buffers, and
// then not in a child namespace, where they are read-only.
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
	const appOnly = "caps only buffers a program sets itself"
	for _, tc := range []struct {
		name   string
		vals   map[string]string
		path   NetPath
		init   netns.State
		denied bool   // net.core.* not writable
		sets   bool   // the measured streams set SO_*BUF
		ram    uint64 // 0: unknown
		want   map[string][]string
		skip   map[string]string // key → text in Skipped
	}{
		// The ladder's rungs (need/4 … 2 × need: 128, 256 KiB) lie below the
		// kernel default: a raise starts at the default, never below it.
		{"sabotaged, a small path: back to the kernel default, not a rung below it", sabotaged, small, netns.Other, true, false, 0,
			map[string][]string{"net.ipv4.tcp_rmem": {"4096 65536 33554432"}, "net.ipv4.tcp_wmem": {"4096 16384 4194304"}},
			map[string]string{"net.core.rmem_max": appOnly, "net.core.wmem_max": appOnly}},
		{"defaults cover a small path", defaults, small, netns.Init, false, false, 0, map[string][]string{},
			map[string]string{"net.ipv4.tcp_wmem": "already covers", "net.ipv4.tcp_rmem": "already covers"}},
		{"1 Gbit/s at 20 ms: the ladder above tcp_wmem's 4 MiB; net.core writable but useless to these streams", defaults, big, netns.Init, false, false, 0,
			map[string][]string{"net.ipv4.tcp_wmem": {"4096 16384 5046272", "4096 16384 10092544"}},
			map[string]string{"net.ipv4.tcp_rmem": "already covers", "net.core.rmem_max": appOnly, "net.core.wmem_max": appOnly}},
		{"streams that set their buffers: net.core tried too", defaults, big, netns.Init, false, true, 0,
			map[string][]string{"net.ipv4.tcp_wmem": {"4096 16384 5046272", "4096 16384 10092544"}, "net.core.rmem_max": {"5046272", "10092544"}, "net.core.wmem_max": {"5046272", "10092544"}},
			map[string]string{"net.ipv4.tcp_rmem": "already covers"}},
		{"the same in a child namespace: net.core read-only", defaults, big, netns.Other, true, true, 0,
			map[string][]string{"net.ipv4.tcp_wmem": {"4096 16384 5046272", "4096 16384 10092544"}},
			map[string]string{"net.core.wmem_max": "read-only in this network namespace"}},
		{"a 128 MiB box: capped at RAM/32 (4 MiB)", smallBox, big, netns.Init, false, false, 128 << 20,
			map[string][]string{"net.ipv4.tcp_wmem": {"4096 16384 1310720", "4096 16384 2555904", "4096 16384 4194304"},
				"net.ipv4.tcp_rmem": {"4096 131072 1310720", "4096 131072 2555904", "4096 131072 4194304"}},
			map[string]string{"net.core.rmem_max": appOnly}},
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
				NetNS: tc.init, Knobs: kenv, RAMBytes: tc.ram, SetsBuffers: tc.sets,
			}
			ks := NetKnobs(tc.path, e)
			if len(ks) != len(NetKeys) {
				t.Fatalf("%d knobs", len(ks))
			}
			for _, k := range ks {
				want, tried := tc.want[k.Attr]
				switch {
				case tried && !slices.Equal(k.Values, want):
					t.Errorf("%s: tries %q, want %q", k.Attr, k.Values, want)
				case tried && !k.Ladder:
					t.Errorf("%s: not tried as a ladder", k.Attr)
				case tried && strings.Contains(k.Attr, "rmem") != slices.Equal(k.Tests, []string{"receive"}),
					tried && strings.Contains(k.Attr, "wmem") != slices.Equal(k.Tests, []string{"send"}):
					t.Errorf("%s: judged by %v", k.Attr, k.Tests)
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
	j := &JournalApplier{Opts: apply.Options{Root: root}, Host: h, NetNS: netns.Init}
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

func TestAtLeastDefault(t *testing.T) {
	for _, c := range []struct {
		ladder []int64
		def    int64
		want   []int64
	}{
		{nil, 4 << 20, nil}, // nothing to raise
		{[]int64{1 << 20, 2 << 20}, 4 << 20, []int64{4 << 20}}, // all below: the default alone
		{[]int64{1 << 20, 8 << 20}, 4 << 20, []int64{4 << 20, 8 << 20}},
		{[]int64{8 << 20, 16 << 20}, 4 << 20, []int64{8 << 20, 16 << 20}}, // above it already
		{[]int64{1 << 20}, 0, []int64{1 << 20}},                           // default unknown
	} {
		if got := AtLeastDefault(c.ladder, c.def); !slices.Equal(got, c.want) {
			t.Errorf("AtLeastDefault(%v, %d) = %v, want %v", c.ladder, c.def, got, c.want)
		}
	}
}

// A kept net.* value is written to /etc/sysctl.d only from the initial
// network namespace: elsewhere (or when that cannot be told) systemd-sysctl
// would apply the line to the host's namespace at boot, which was not
// measured. It stays runtime only, and Kept says how to persist it in the
// namespace's own config; a global key (vm.*) is persisted all the same.
func TestPersistNetKeysOnlyFromTheInitialNamespace(t *testing.T) {
	for _, tc := range []struct {
		ns   netns.State
		file bool
		says string
	}{
		{netns.Init, true, "/etc/sysctl.d/90-nastune.conf"},
		{netns.Other, false, "runtime only: this is not the host's initial network namespace"},
		{netns.Unknown, false, "runtime only: whether this is the host's initial network namespace is unknown"},
	} {
		t.Run(tc.ns.String(), func(t *testing.T) {
			persistNet(t, tc.ns, tc.file, tc.says)
		})
	}
}

// persistNet persists a kept tcp_wmem and vm.swappiness under a scratch
// root from namespace ns, checks sysctl.d has the tcp_wmem line (file) or
// not and what Kept says, and that undo restores both values.
func persistNet(t *testing.T, ns netns.State, file bool, says string) {
	t.Helper()
	root := t.TempDir()
	for p, v := range map[string]string{"/proc/sys/net/ipv4/tcp_wmem": "4096\t16384\t65536\n", "/proc/sys/vm/swappiness": "60\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// tcp_wmem, per namespace; vm.swappiness, global.
	kept := []Kept{{Knob: "/proc/sys/net/ipv4/tcp_wmem", From: "4096 16384 65536", To: "4096 16384 4194304"}, {Knob: "/proc/sys/vm/swappiness", From: "60", To: "10"}}
	j := &JournalApplier{Opts: apply.Options{Root: root}, Host: &facts.Host{SysctlApplier: "systemd"}, NetNS: ns}
	id, err := j.Persist(kept)
	if err != nil {
		t.Fatal(err)
	}
	conf, _ := os.ReadFile(filepath.Join(root, "/etc/sysctl.d/90-nastune.conf"))
	if got := strings.Contains(string(conf), "net.ipv4.tcp_wmem"); got != file {
		t.Errorf("%v: tcp_wmem in sysctl.d %v, want %v:\n%s", ns, got, file, conf)
	}
	if !strings.Contains(string(conf), "vm.swappiness = 10") {
		t.Errorf("%v: vm.swappiness (global) not persisted:\n%s", ns, conf)
	}
	if !strings.HasPrefix(kept[0].Persisted, says) {
		t.Errorf("%v: tcp_wmem persisted %q, want %q…", ns, kept[0].Persisted, says)
	}
	if !file && !strings.Contains(kept[0].Persisted, "sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'") {
		t.Errorf("%v: Kept does not say how to set it where the namespace is made: %q", ns, kept[0].Persisted)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "/proc/sys/net/ipv4/tcp_wmem")); strings.Join(strings.Fields(string(b)), " ") != "4096 16384 4194304" {
		t.Errorf("%v: the runtime value is %q", ns, b)
	}
	if _, err := apply.Undo(id, j.Opts); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "/proc/sys/net/ipv4/tcp_wmem")); strings.Join(strings.Fields(string(b)), " ") != "4096 16384 65536" {
		t.Errorf("%v: after undo tcp_wmem is %q", ns, b)
	}
	if _, err := os.Stat(filepath.Join(root, "/etc/sysctl.d/90-nastune.conf")); err == nil {
		t.Errorf("%v: sysctl.d file left after undo", ns)
	}
}

// The same from a real network namespace of its own (unshare -n): the
// live answer of netns.Self there is never the initial namespace, so
// tcp_wmem is not written to sysctl.d.
func TestPersistFromANetworkNamespace(t *testing.T) {
	if os.Getenv("TUNE_NETNS_CHILD") != "" {
		ns, why := netns.Self()
		t.Logf("in the child: %v (%s)", ns, why)
		if ns == netns.Init {
			t.Fatalf("unshare -n: told it is the initial network namespace (%s)", why)
		}
		persistNet(t, ns, false, "runtime only: ")
		return
	}
	testutil.RerunInNetNS(t, "TUNE_NETNS_CHILD")
}
