package knobs

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestTableWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range All() {
		if seen[k.Key] {
			t.Errorf("%s: listed twice", k.Key)
		}
		seen[k.Key] = true
		if k.Unit == "" || k.Hurts == "" || len(k.Sources) == 0 {
			t.Errorf("%s: needs a unit, what hurts, and a source", k.Key)
		}
		for i, s := range k.Defaults {
			if s.Text == "" {
				t.Errorf("%s: span %d has no documented text", k.Key, i)
			}
			if !s.Until.IsZero() && !s.From.Less(s.Until) {
				t.Errorf("%s: span %d ends before it starts", k.Key, i)
			}
			if i > 0 && k.Defaults[i-1].Until != s.From {
				t.Errorf("%s: span %d does not start where span %d ends", k.Key, i, i-1)
			}
		}
		if k.Harm != HarmNone && len(k.Defaults) == 0 && k.Limit == nil {
			t.Errorf("%s: judged, but has no default or limit to judge against", k.Key)
		}
	}
}

func TestDefaultsByVersion(t *testing.T) {
	gib := uint64(1 << 30)
	cases := []struct {
		key  string
		env  Env
		want string
		ok   bool
	}{
		{"net.core.somaxconn", Env{Kernel: v(4, 19)}, "128", true},
		{"net.core.somaxconn", Env{Kernel: v(5, 4)}, "4096", true},
		{"net.ipv4.tcp_rmem", Env{Kernel: v(3, 2), LowMemBytes: 4 * gib}, "", false},
		{"net.ipv4.tcp_rmem", Env{Kernel: v(4, 19), LowMemBytes: 4 * gib}, "4096 87380 6291456", true},
		{"net.ipv4.tcp_rmem", Env{Kernel: v(5, 10), LowMemBytes: 4 * gib}, "4096 131072 6291456", true},
		{"net.ipv4.tcp_rmem", Env{Kernel: v(6, 18), LowMemBytes: 24 * gib}, "4096 131072 33554432", true},
		// 128 MiB ARM box: RAM/128 = 1 MiB
		{"net.ipv4.tcp_rmem", Env{Kernel: v(5, 10), LowMemBytes: 128 << 20}, "4096 131072 1048576", true},
		{"net.ipv4.tcp_wmem", Env{Kernel: v(5, 10), LowMemBytes: 128 << 20}, "4096 16384 1048576", true},
		{"net.ipv4.tcp_wmem", Env{Kernel: v(3, 10), LowMemBytes: 4 * gib}, "4096 16384 4194304", true},
		{"net.ipv4.tcp_wmem", Env{Kernel: v(3, 10), LowMemBytes: 4 << 20}, "4096 16384 65536", true},
		{"net.core.rmem_max", Env{Kernel: v(6, 1)}, "", false},
		{"net.core.rmem_max", Env{Kernel: v(6, 18)}, "4194304", true},
		{"net.ipv4.tcp_adv_win_scale", Env{Kernel: v(3, 2)}, "2", true},
		{"vm.min_free_kbytes", Env{Kernel: v(4, 19), LowMemBytes: 124928 << 10}, "1413", true},
		{"vm.min_free_kbytes", Env{Kernel: v(6, 1)}, "", false},
	}
	for _, c := range cases {
		k, ok := Lookup(c.key)
		if !ok {
			t.Fatalf("%s: not in the table", c.key)
		}
		got, ok := k.Default(c.env)
		if got != c.want || ok != c.ok {
			t.Errorf("%s on %v: Default = %q, %v; want %q, %v", c.key, c.env, got, ok, c.want, c.ok)
		}
	}
}

func TestDeadOn(t *testing.T) {
	cases := []struct {
		key  string
		kern Version
		dead bool
	}{
		{"net.ipv4.tcp_tw_recycle", v(3, 10), false},
		{"net.ipv4.tcp_tw_recycle", v(4, 12), true},
		{"net.ipv4.tcp_low_latency", v(4, 13), false},
		{"net.ipv4.tcp_low_latency", v(4, 14), true},
		{"vm.nr_pdflush_threads", Version{2, 6, 31}, false},
		{"vm.nr_pdflush_threads", Version{2, 6, 32}, true},
		{"net.ipv4.tcp_adv_win_scale", v(6, 6), true},
		{"net.ipv4.tcp_sack", v(6, 6), false},
		{"net.ipv4.tcp_tw_recycle", Version{}, false}, // unknown kernel: never called dead
	}
	for _, c := range cases {
		k, _ := Lookup(c.key)
		if dead, why := k.DeadOn(c.kern); dead != c.dead || (dead && why == "") {
			t.Errorf("%s on %v: dead = %v (%q), want %v", c.key, c.kern, dead, why, c.dead)
		}
	}
}

func TestJudge(t *testing.T) {
	gib := uint64(1 << 30)
	cases := []struct {
		key, value string
		env        Env
		harmful    bool
	}{
		// the case: 64 KiB cap, far below any default
		{"net.ipv4.tcp_rmem", "4096 87380 65536", Env{Kernel: v(5, 10), LowMemBytes: 4 * gib}, true},
		{"net.ipv4.tcp_rmem", "4096 87380 65536", Env{Kernel: v(5, 10)}, true}, // RAM unknown: below the floor
		// 900 KiB on a 128 MiB box: within the uncertainty of the RAM-scaled default
		{"net.ipv4.tcp_rmem", "4096 131072 921600", Env{Kernel: v(5, 10), LowMemBytes: 128 << 20}, false},
		{"net.ipv4.tcp_rmem", "4096 131072 700000", Env{Kernel: v(5, 10), LowMemBytes: 128 << 20}, true},
		{"net.ipv4.tcp_rmem", "4096 87380 16777216", Env{Kernel: v(6, 18), LowMemBytes: 24 << 30}, true},
		{"net.ipv4.tcp_rmem", "4096 131072 2097152", Env{Kernel: v(5, 10), LowMemBytes: 4 * gib}, true},
		{"net.ipv4.tcp_rmem", "4096 131072 16777216", Env{Kernel: v(5, 10), LowMemBytes: 4 * gib}, false},
		{"net.ipv4.tcp_rmem", "4096 87380 65536", Env{Kernel: v(3, 2), LowMemBytes: 4 * gib}, false}, // no default known
		{"net.core.somaxconn", "1024", Env{Kernel: v(5, 4)}, true},
		{"net.core.somaxconn", "1024", Env{Kernel: v(4, 19)}, false},
		{"net.ipv4.tcp_window_scaling", "0", Env{Kernel: v(5, 10)}, true},
		{"net.ipv4.tcp_window_scaling", "1", Env{Kernel: v(5, 10)}, false},
		{"net.ipv4.tcp_tw_recycle", "1", Env{Kernel: v(3, 10)}, true},
		{"net.ipv4.tcp_tw_recycle", "1", Env{Kernel: v(4, 12)}, false}, // dead there: judged as dead, not harmful
		{"net.ipv4.tcp_retries2", "5", Env{Kernel: v(5, 10)}, true},
		{"net.ipv4.tcp_retries2", "8", Env{Kernel: v(5, 10)}, false},
		{"net.core.rmem_max", "212992", Env{Kernel: v(6, 1)}, false},
		{"net.core.rmem_max", "212992", Env{Kernel: v(6, 18)}, true},
		{"vm.zone_reclaim_mode", "1", Env{Kernel: v(5, 10)}, true},
		{"net.ipv4.tcp_sack", "garbage", Env{Kernel: v(5, 10)}, false},
	}
	for _, c := range cases {
		k, _ := Lookup(c.key)
		if got := k.Judge(c.value, c.env); got.Harmful != c.harmful {
			t.Errorf("%s = %q on %v: harmful = %v, want %v (%+v)", c.key, c.value, c.env, got.Harmful, c.harmful, got)
		}
	}
}

// TestDefaultsOnThisKernel is the oracle: on the machine running the test,
// every key with an exact default that no sysctl file sets must read that
// default under /proc/sys (a key a file or a container runtime sets is
// skipped).
func TestDefaultsOnThisKernel(t *testing.T) {
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skip("no /proc/sys")
	}
	var kv Version
	parts := strings.FieldsFunc(strings.TrimSpace(string(rel)), func(r rune) bool { return r == '.' || r == '-' })
	if len(parts) < 2 {
		t.Fatalf("cannot parse kernel release %q", rel)
	}
	kv.Major, _ = strconv.Atoi(parts[0])
	kv.Minor, _ = strconv.Atoi(parts[1])
	env := Env{Kernel: kv, LowMemBytes: memTotal(t)}
	set := configuredKeys()
	checked := 0
	// Keys a container runtime or distribution commonly changes are left out.
	for _, key := range []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.somaxconn", "net.core.rmem_max",
		"net.core.wmem_max", "net.ipv4.tcp_sack", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_timestamps",
		"net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_retries2", "vm.vfs_cache_pressure", "vm.dirty_ratio",
		"vm.dirty_background_ratio", "vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs"} {
		if set[key] {
			continue
		}
		k, _ := Lookup(key)
		want, ok := k.Default(env)
		if !ok {
			continue
		}
		data, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(key, ".", "/"))
		if err != nil {
			continue
		}
		got := strings.Join(strings.Fields(string(data)), " ")
		if key == "net.ipv4.tcp_rmem" || key == "net.ipv4.tcp_wmem" {
			// the third field is estimated from MemTotal, the kernel used free pages at boot
			g, _ := Field(got, 2)
			w, _ := Field(want, 2)
			if WithField(got, 2, 0) != WithField(want, 2, 0) || g > w || g < w/4*3 {
				t.Errorf("%s: kernel %v reads %q, table says %q", key, kv, got, want)
			}
		} else if got != want {
			t.Errorf("%s: kernel %v reads %q, table says %q", key, kv, got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Skip("no key with a known default to compare on this kernel")
	}
}

func memTotal(t *testing.T) uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == "MemTotal:" {
			n, _ := strconv.ParseUint(fs[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// configuredKeys lists keys any sysctl file on this machine names (read
// only; a glob or unreadable file makes no difference here).
func configuredKeys() map[string]bool {
	out := map[string]bool{}
	var files []string
	for _, d := range []string{"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d"} {
		m, _ := filepath.Glob(filepath.Join(d, "*.conf"))
		files = append(files, m...)
	}
	files = append(files, "/etc/sysctl.conf")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			k, _, ok := strings.Cut(line, "=")
			if ok {
				out[strings.TrimPrefix(strings.TrimSpace(k), "-")] = true
			}
		}
	}
	return out
}

func TestInts(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want []int64
	}{
		{"4096\t131072\t6291456\n", 3, []int64{4096, 131072, 6291456}},
		{"32768 60999", 2, []int64{32768, 60999}},
		{"4194304", 1, []int64{4194304}},
		{"4096 131072", 3, nil},    // too few
		{"1 2 3 4", 3, nil},        // too many
		{"4096 x 6291456", 3, nil}, // not a number
		{"", 1, nil},
	} {
		got, ok := Ints(c.in, c.n)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("Ints(%q, %d) = %v, %v; want %v", c.in, c.n, got, ok, c.want)
		}
	}
}
