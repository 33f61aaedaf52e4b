// Package ansible tests the fleet role in deploy/ansible with ansible-core
// (from PyPI, in a venv) against two hosts reached over real SSH: each host
// is a network namespace with its own veth address, hostname (UTS
// namespace), sshd and TCP sysctls, so their audits differ. Nothing of
// this machine's configuration is touched: binaries and results live in a
// temporary folder, sysctls are per namespace, and apply only ever runs in
// check mode (where the role runs `nastune plan`).
package ansible

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

var repo, _ = filepath.Abs("../..")

// venv returns ansible-playbook from a venv kept in the user cache folder,
// created with pip on first use.
func venv(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "nastune-test", "ansible-venv")
	bin := filepath.Join(dir, "bin", "ansible-playbook")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	py := testutil.Need(t, "python3", "python3-venv")
	testutil.Run(t, py, "-m", "venv", dir)
	testutil.Run(t, filepath.Join(dir, "bin", "pip"), "install", "--quiet", "ansible-core>=2.15,<2.20")
	return bin
}

type host struct {
	name, ns, addr, hostAddr string
	sshd                     *exec.Cmd
}

func TestFleetRole(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	testutil.Need(t, "ip", "iproute2")
	testutil.Need(t, "unshare", "util-linux")
	sshd := testutil.Need(t, "sshd", "openssh-server")
	testutil.Need(t, "ssh-keygen", "openssh-client")
	playbook := venv(t)

	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	bin := filepath.Join(dist, "nastune-linux-amd64")
	testutil.BuildNastune(t, bin)
	testutil.Run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(tmp, "id"))
	pub, _ := os.ReadFile(filepath.Join(tmp, "id.pub"))
	if err := os.WriteFile(filepath.Join(tmp, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd's privilege separation folder, as the openssh-server service creates it.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}

	// Namespaces are named by this test's pid; those a killed run left
	// (with their host-side veth and its route to the same 10.77.x subnet,
	// which would take this run's connections to the dead run's sshd) go
	// first.
	id := os.Getpid()
	testutil.RemoveStale("/run/netns", []string{"nt-a-", "nt-b-"}, testutil.DelNetns)
	// Two /24s no other run routes now (another run of this test, e.g. a
	// second checkout's suite on the same machine, reached our addresses'
	// twin sshd and was refused its key).
	a, b := freeSubnets(t, id)
	hosts := []*host{
		{name: "nasa", ns: fmt.Sprintf("nt-a-%d", id), addr: a + ".2", hostAddr: a + ".1"},
		{name: "nasb", ns: fmt.Sprintf("nt-b-%d", id), addr: b + ".2", hostAddr: b + ".1"},
	}
	for i, h := range hosts {
		h := h
		veth := fmt.Sprintf("ntv%d-%d", i, id)
		testutil.Run(t, "ip", "netns", "add", h.ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", h.ns).Run() })
		testutil.Run(t, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.ns)
		t.Cleanup(func() { _ = exec.Command("ip", "link", "del", veth).Run() })
		testutil.Run(t, "ip", "addr", "add", h.hostAddr+"/24", "dev", veth)
		testutil.Run(t, "ip", "link", "set", veth, "up")
		testutil.Run(t, "ip", "-n", h.ns, "addr", "add", h.addr+"/24", "dev", "eth0")
		testutil.Run(t, "ip", "-n", h.ns, "link", "set", "eth0", "up")
		testutil.Run(t, "ip", "-n", h.ns, "link", "set", "lo", "up")
		dir := filepath.Join(tmp, h.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		testutil.Run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "hostkey"))
		cfg := fmt.Sprintf("ListenAddress %s\nPort 22\nHostKey %s/hostkey\nPidFile %s/sshd.pid\nAuthorizedKeysFile %s/authorized_keys\n"+
			"PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"+
			"Subsystem sftp internal-sftp\n", h.addr, dir, dir, tmp)
		if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		// Its own hostname (UTS namespace) and sshd, inside its network namespace.
		h.sshd = exec.Command("ip", "netns", "exec", h.ns, "unshare", "--uts", "sh", "-c",
			"hostname "+h.name+" && exec "+sshd+" -D -e -f "+filepath.Join(dir, "sshd_config"))
		var logb bytes.Buffer
		h.sshd.Stderr = &logb
		if err := h.sshd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = h.sshd.Process.Kill()
			_ = h.sshd.Wait()
			if t.Failed() {
				t.Logf("sshd %s:\n%s", h.name, logb.String())
			}
		})
	}
	// The difference between the hosts: nasb has TCP timestamps off (per
	// namespace), the folklore tip the audit flags.
	testutil.Run(t, "ip", "netns", "exec", hosts[1].ns, "sysctl", "-q", "-w", "net.ipv4.tcp_timestamps=0")
	for _, h := range hosts {
		waitPort(t, h.addr+":22")
	}

	results := filepath.Join(tmp, "results")
	inv := "[nas]\n"
	for _, h := range hosts {
		inv += fmt.Sprintf("%s ansible_host=%s nastune_path=%s/%s/bin/nastune\n", h.name, h.addr, tmp, h.name)
	}
	inv += fmt.Sprintf("\n[nas:vars]\nansible_user=root\nansible_ssh_private_key_file=%s/id\n"+
		"ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'\n"+
		"ansible_python_interpreter=/usr/bin/python3\nnastune_dist=%s\nnastune_results=%s\n", tmp, dist, results)
	invFile := filepath.Join(tmp, "inventory.ini")
	if err := os.WriteFile(invFile, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	ansible := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(playbook, append([]string{"-i", invFile, filepath.Join(repo, "deploy/ansible/site.yml")}, args...)...)
		cmd.Env = append(os.Environ(), "NASTUNE_LOCAL="+bin, "ANSIBLE_LOCAL_TEMP="+tmp+"/ansible-local",
			"ANSIBLE_REMOTE_TMP="+tmp+"/ansible-remote", "ANSIBLE_NOCOLOR=1", "ANSIBLE_FORCE_COLOR=0", "ANSIBLE_RETRY_FILES_ENABLED=0",
			// No ControlPersist master: it would outlive the playbook
			// holding our output pipe, and lives in ~/.ansible otherwise.
			"ANSIBLE_SSH_ARGS=-o ControlMaster=no", "ANSIBLE_SSH_CONTROL_PATH_DIR="+tmp+"/ansible-cp")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ansible-playbook %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	// 1. Push, audit, fetch, fleet report.
	out := ansible()
	for _, h := range hosts {
		if _, err := os.Stat(filepath.Join(tmp, h.name, "bin", "nastune")); err != nil {
			t.Errorf("binary not pushed to %s: %v", h.name, err)
		}
		if _, err := os.Stat(filepath.Join(results, h.name+".json")); err != nil {
			t.Errorf("audit of %s not fetched: %v", h.name, err)
		}
	}
	html, err := os.ReadFile(filepath.Join(results, "fleet.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if !strings.Contains(string(html), `href="#host-`+h.name+`"`) {
			t.Errorf("fleet.html lacks host %s", h.name)
		}
	}
	if !strings.Contains(out, "nastune report: 2 hosts") {
		t.Errorf("playbook output lacks the fleet summary:\n%s", out)
	}
	var fleet struct {
		Hosts []struct {
			Name     string `json:"name"`
			Findings []struct {
				ID string `json:"id"`
			} `json:"findings"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(testutil.Run(t, bin, "report", "-o", "json", results)), &fleet); err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, h := range fleet.Hosts {
		for _, f := range h.Findings {
			if f.ID == "net-tcp-timestamps-off" {
				has[h.Name] = true
			}
		}
	}
	if len(fleet.Hosts) != 2 || !has["nasb"] || has["nasa"] {
		t.Errorf("fleet: %d hosts, tcp-timestamps finding on %v; want it on nasb only", len(fleet.Hosts), has)
	}

	// 2. Check mode with apply asked: the role plans, nothing changes.
	type state struct{ bins, sysctl, journal string }
	snapshot := func() state {
		var s state
		for _, h := range hosts {
			b, _ := os.ReadFile(filepath.Join(tmp, h.name, "bin", "nastune"))
			st, _ := os.Stat(filepath.Join(tmp, h.name, "bin", "nastune"))
			s.bins += fmt.Sprintf("%x %v;", sha256.Sum256(b), st.ModTime())
		}
		s.sysctl = testutil.Run(t, "ip", "netns", "exec", hosts[1].ns, "sysctl", "-n", "net.ipv4.tcp_timestamps")
		_, err := os.Stat("/var/lib/nastune/runs")
		s.journal = fmt.Sprint(err == nil)
		return s
	}
	before := snapshot()
	out = ansible("--check", "-e", "nastune_apply=true")
	if after := snapshot(); after != before {
		t.Errorf("check mode changed something: %+v → %+v", before, after)
	}
	if !strings.Contains(out, "TASK [nastune : Show the plan]") || !strings.Contains(out, "net.ipv4.tcp_timestamps") {
		t.Errorf("check mode did not show the plan:\n%s", out)
	}
	if strings.Contains(out, "TASK [nastune : Apply") && !regexp.MustCompile(`TASK \[nastune : Apply[^\]]*\][^\n]*\n(skipping|ok)`).MatchString(out) {
		t.Errorf("apply ran in check mode:\n%s", out)
	}
	for _, h := range hosts {
		if !regexp.MustCompile(h.name + `\s*: ok=\d+\s+changed=0 `).MatchString(out) {
			t.Errorf("%s: changes reported in check mode:\n%s", h.name, out)
		}
	}
}

func waitPort(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("bash", "-c", "exec 3<>/dev/tcp/"+strings.Replace(addr, ":", "/", 1)).Run() == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("sshd on %s did not come up", addr)
}

// freeSubnets returns two 10.77.N prefixes of /24s that no route of this
// machine uses, starting at a place derived from seed so that concurrent
// runs start apart.
func freeSubnets(t *testing.T, seed int) (string, string) {
	t.Helper()
	out, err := exec.Command("ip", "-4", "route", "show", "table", "all").Output()
	if err != nil {
		t.Fatalf("ip route: %v", err)
	}
	used := func(n int) bool { return strings.Contains(string(out), fmt.Sprintf("10.77.%d.", n)) }
	for i := 0; i < 120; i++ {
		k := 2*((seed+i)%120) + 10
		if !used(k) && !used(k+1) {
			return fmt.Sprintf("10.77.%d", k), fmt.Sprintf("10.77.%d", k+1)
		}
	}
	t.Fatal("no free 10.77.N.0/24 pair on this machine")
	return "", ""
}
