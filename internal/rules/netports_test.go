package rules_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// krun's published sysctl.conf (testdata/real/sysctl-krun-optimizer-centos7)
// widens the ephemeral range to 1024 65535, over nfsd's 2049. The finding
// needs the service on this host and the port neither outside the range
// nor reserved; its advice reserves the port.
func TestPortRangeService(t *testing.T) {
	a, err := txtar.ParseFile("../../testdata/real/sysctl-krun-optimizer-centos7/tree.txtar")
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]string{}
	for _, f := range a.Files {
		base[f.Name] = string(f.Data)
	}
	if !strings.Contains(base["etc/sysctl.conf"], "net.ipv4.ip_local_port_range = 1024 65535") ||
		strings.TrimSpace(base["proc/sys/net/ipv4/ip_local_port_range"]) != "1024\t65535" {
		t.Fatalf("the real tree no longer widens the range: %q", base["proc/sys/net/ipv4/ip_local_port_range"])
	}
	nfsd := map[string]string{
		"proc/fs/nfsd/threads": "8\n",
		"etc/exports":          "/srv/data 192.168.1.0/24(rw,sync,no_subtree_check)\n",
	}
	smbd := map[string]string{
		"etc/samba/smb.conf": "[global]\n   workgroup = WORKGROUP\n[data]\n   path = /srv/data\n",
		"usr/sbin/smbd":      "",
	}
	tests := []struct {
		name     string
		extra    []map[string]string
		rng, res string
		want     string // recommended ip_local_reserved_ports, "" no finding
	}{
		{"nfsd, 2049 in 1024-65535", []map[string]string{nfsd}, "", "", "2049"},
		{"nfsd, other ports reserved", []map[string]string{nfsd}, "", "8080,9148-9150", "2049,8080,9148-9150"},
		{"nfsd, 2049 reserved in a range", []map[string]string{nfsd}, "", "2000-2100", ""},
		{"nfsd, next to a reserved range", []map[string]string{nfsd}, "", "2040-2048,2050", "2040-2050"},
		{"nfsd, the default range", []map[string]string{nfsd}, "32768\t60999", "", ""},
		{"no NFS server loaded", []map[string]string{{"etc/exports": nfsd["etc/exports"]}}, "", "", ""},
		{"smbd: 445 and 139 below 1024", []map[string]string{smbd}, "", "", ""},
		{"smbd and nfsd, a range from 400", []map[string]string{smbd, nfsd}, "400\t65535", "", "445,2049"},
		{"smb.conf without smbd", []map[string]string{{"etc/samba/smb.conf": smbd["etc/samba/smb.conf"]}}, "100\t65535", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for _, m := range tt.extra {
				for k, v := range m {
					files[k] = v
				}
			}
			if tt.rng != "" {
				files["proc/sys/net/ipv4/ip_local_port_range"] = tt.rng + "\n"
			}
			files["proc/sys/net/ipv4/ip_local_reserved_ports"] = tt.res + "\n"
			_, fs := runTree(t, files)
			got := byID(fs, "net-port-range-service")
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("finding %q", text(got[0]))
				}
				return
			}
			if len(got) != 1 || got[0].Recommendation == nil {
				t.Fatalf("findings %v", ids(fs, "netstack"))
			}
			f := got[0]
			if f.Recommendation.Target != "net.ipv4.ip_local_reserved_ports" || f.Recommendation.Value != tt.want {
				t.Errorf("advice %s = %s, want %s", f.Recommendation.Target, f.Recommendation.Value, tt.want)
			}
			if !hasAll(text(f), "2049 (nfsd)", "/etc/sysctl.conf:", "fails to bind") {
				t.Errorf("finding: %s", text(f))
			}
			// The evidence cites what shows each service runs.
			var ev []string
			for _, e := range f.Evidence {
				ev = append(ev, e.Source+": "+e.Value)
			}
			if !strings.Contains(strings.Join(ev, "\n"), "/proc/fs/nfsd/threads: 8") ||
				strings.Contains(tt.want, "445") && !strings.Contains(strings.Join(ev, "\n"), "/usr/sbin/smbd: smbd is installed") {
				t.Errorf("evidence %q: want what shows nfsd (and smbd) run", ev)
			}
		})
	}
}

// The advice is the list as the kernel prints it back (apply compares the
// read-back): written in a fresh network namespace (the list is per
// namespace), the kernel shows the same text.
func TestPortListKernelFormat(t *testing.T) {
	un, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed (util-linux)")
	}
	for _, v := range []string{"2049", "2049,8080,9148-9150", "2040-2050", "445,2049"} {
		in := v
		if v == "2040-2050" {
			in = "2050,2040-2048,2049" // merged and sorted by the kernel
		}
		out, err := exec.Command(un, "-rn", "sh", "-c", "echo "+in+" > /proc/sys/net/ipv4/ip_local_reserved_ports && cat /proc/sys/net/ipv4/ip_local_reserved_ports").CombinedOutput()
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("unshare -rn: %v %s", err, out)
			}
			t.Skipf("no network namespace here: %v %s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != v {
			t.Errorf("kernel prints %q for %q, want %q", got, in, v)
		}
	}
}
