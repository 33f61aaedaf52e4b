package sysctlconf

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEffectiveAgainstRealPrograms is the oracle for the boot model: in a
// private mount and network namespace (so nothing of this machine's /etc,
// /run or network sysctls is touched), the sysctl folders are replaced by
// test folders and the real `sysctl --system` (procps) and systemd-sysctl
// apply them; the per-netns values they leave must be what Effective
// predicts for each program.
func TestEffectiveAgainstRealPrograms(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m -n")
	}
	progs := map[Manager][]string{Procps: {"sysctl", "--system"}}
	for _, p := range []string{"/usr/lib/systemd/systemd-sysctl", "/lib/systemd/systemd-sysctl"} {
		if _, err := os.Stat(p); err == nil {
			progs[Systemd] = []string{p}
			break
		}
	}
	if _, err := exec.LookPath("sysctl"); err != nil || progs[Systemd] == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sysctl (procps) and systemd-sysctl are needed (scripts/ensure-deps.sh)")
		}
		t.Skip("needs sysctl (procps) and systemd-sysctl")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare")
	}
	tmp := t.TempDir()
	files := map[string]string{
		"etc/10-a.conf":          "net.ipv4.tcp_fin_timeout = 11\nnet.ipv4.tcp_keepalive_time = 111\n",
		"usr/10-a.conf":          "net.ipv4.tcp_fin_timeout = 99\nnet.ipv4.tcp_syn_retries = 3\n",
		"usr/50-glob.conf":       "net.ipv4.conf.*.rp_filter = 2\nnet.ipv4.conf.lo.accept_local = 1\n",
		"etc/90-nastune.conf":    "net.ipv4.tcp_keepalive_time = 222\nnet.ipv4.tcp_retries2 = 9\nnet.ipv4.conf.lo.rp_filter = 1\n",
		"run/95-run.conf":        "net.ipv4.tcp_retries2 = 10\n",
		"sysctl.conf":            "net.ipv4.tcp_keepalive_time = 333\nnet.ipv4.tcp_keepalive_probes = 4\n",
		"etc/99-zz.conf":         "net.ipv4.tcp_keepalive_time = 444\n",
		"usr/99-zz-vendor.conf":  "net.ipv4.tcp_keepalive_probes = 7\n",
		"usr/40-masked-run.conf": "net.ipv4.tcp_keepalive_intvl = 44\n",
		"run/40-masked-run.conf": "net.ipv4.tcp_keepalive_intvl = 55\n",
	}
	for name, body := range files {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../sysctl.conf", filepath.Join(tmp, "etc", "99-sysctl.conf")); err != nil {
		t.Fatal(err)
	}
	keys := []string{"net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_syn_retries",
		"net.ipv4.tcp_retries2", "net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_keepalive_intvl",
		"net.ipv4.conf.lo.rp_filter", "net.ipv4.conf.lo.accept_local"}

	// The model's input, as the probe builds it: Order, then the Debian
	// link read once at its first place with Link set.
	found := map[string][]string{}
	for _, d := range []struct{ sub, dir string }{{"etc", "/etc/sysctl.d"}, {"run", "/run/sysctl.d"}, {"usr", "/usr/lib/sysctl.d"}} {
		ents, _ := os.ReadDir(filepath.Join(tmp, d.sub))
		for _, e := range ents {
			found[d.dir] = append(found[d.dir], e.Name())
		}
	}
	local := func(p string) string {
		for _, d := range []struct{ sub, dir string }{{"etc", "/etc/sysctl.d"}, {"run", "/run/sysctl.d"}, {"usr", "/usr/lib/sysctl.d"}} {
			if strings.HasPrefix(p, d.dir+"/") {
				return filepath.Join(tmp, d.sub, strings.TrimPrefix(p, d.dir+"/"))
			}
		}
		return filepath.Join(tmp, "sysctl.conf")
	}
	var all []Assignment
	for _, f := range Order(found, true) {
		link := ""
		if strings.HasSuffix(f, "/99-sysctl.conf") {
			link = MainFile
		}
		if f == MainFile {
			continue // already read through the link
		}
		data, err := os.ReadFile(local(f))
		if err != nil {
			t.Fatal(err)
		}
		set, _ := Parse(data)
		for _, s := range set {
			all = append(all, Assignment{Key: s.Key, Value: s.Value, File: f, Link: link, Line: s.Line, Exclude: s.Exclude})
		}
	}

	for m, argv := range progs {
		script := strings.Join([]string{
			"set -e",
			"mount -t tmpfs none /run && mkdir /run/sysctl.d && cp " + filepath.Join(tmp, "run") + "/* /run/sysctl.d/",
			"mount --bind " + filepath.Join(tmp, "etc") + " /etc/sysctl.d",
			"mount --bind " + filepath.Join(tmp, "usr") + " /usr/lib/sysctl.d",
			"touch /etc/sysctl.conf 2>/dev/null || true",
			"mount --bind " + filepath.Join(tmp, "sysctl.conf") + " /etc/sysctl.conf",
			"[ -d /usr/local/lib/sysctl.d ] && mount -t tmpfs none /usr/local/lib/sysctl.d || true",
			"for k in " + strings.Join(keys, " ") + "; do echo \"before $k $(sysctl -n $k)\"; done",
			strings.Join(argv, " ") + " >/dev/null 2>&1 || true",
			"for k in " + strings.Join(keys, " ") + "; do echo \"after $k $(sysctl -n $k)\"; done",
		}, "\n")
		out, err := exec.Command("unshare", "-m", "-n", "--propagation", "private", "sh", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", m, err, out)
		}
		before, after := map[string]string{}, map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(l)
			if len(f) != 3 {
				continue
			}
			if f[0] == "before" {
				before[f[1]] = f[2]
			} else if f[0] == "after" {
				after[f[1]] = f[2]
			}
		}
		// Guard against a vacuous pass (the programs wrote nothing): the two
		// programs must disagree exactly where the model says they do.
		wantKeepalive := map[Manager]string{Systemd: "444", Procps: "333"}[m]
		if after["net.ipv4.tcp_fin_timeout"] != "11" || after["net.ipv4.tcp_keepalive_time"] != wantKeepalive {
			t.Errorf("%s did not apply the test files: %v", m, after)
		}
		t.Logf("%s: %v", m, after)
		sort.Strings(keys)
		for _, k := range keys {
			want := before[k]
			if win, _, ok := Effective(all, k, m); ok {
				want = win.Value
			}
			if after[k] != want {
				t.Errorf("%s: %s = %s, the model says %s (before: %s)", m, k, after[k], want, before[k])
			}
		}
	}
}
