package netns

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/inventory"
	ethparse "github.com/nastune/nastune/internal/parse/ethtool"
	"github.com/nastune/nastune/test/testutil"
)

// TestMain doubles as a helper process: with NASTUNE_TEST_HELPER=packet it
// opens an AF_PACKET socket on the interface named in NASTUNE_TEST_IFACE
// and waits, so the audit has a real packet-socket owner to find.
func TestMain(m *testing.M) {
	if os.Getenv("NASTUNE_TEST_HELPER") == "packet" {
		holdPacketSocket(os.Getenv("NASTUNE_TEST_IFACE"))
		return
	}
	os.Exit(m.Run())
}

func holdPacketSocket(iface string) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer unix.Close(fd)
	fmt.Println("ready")
	time.Sleep(60 * time.Second) // the test kills us long before
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// buildNastune compiles the real binary once per test run.
func buildNastune(t *testing.T) string {
	t.Helper()
	return testutil.BuildNastune(t, filepath.Join(t.TempDir(), "nastune"))
}

// newNS creates a namespace with: vA (veth, in bridge br0, txqueuelen
// 500, mtu 1400) ↔ vB (veth, 10.77.0.2/24, mtu 1400), mv0 (macvlan on vB,
// 10.77.1.2/24), br0 (bridge, 10.77.0.1/24). It is deleted at cleanup.
func newNS(t *testing.T) string {
	t.Helper()
	ns := fmt.Sprintf("nastune-test-%d", os.Getpid())
	testutil.Run(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	for _, c := range [][]string{
		{"link", "add", "vA", "type", "veth", "peer", "name", "vB"},
		{"link", "add", "br0", "type", "bridge"},
		{"link", "set", "vA", "master", "br0"},
		{"link", "set", "vA", "mtu", "1400", "txqueuelen", "500"},
		{"link", "set", "vB", "mtu", "1400"},
		{"link", "add", "mv0", "link", "vB", "type", "macvlan", "mode", "bridge"},
		{"addr", "add", "10.77.0.1/24", "dev", "br0"},
		{"addr", "add", "10.77.0.2/24", "dev", "vB"},
		{"addr", "add", "10.77.1.2/24", "dev", "mv0"},
		{"link", "set", "lo", "up"}, {"link", "set", "vA", "up"}, {"link", "set", "vB", "up"},
		{"link", "set", "br0", "up"}, {"link", "set", "mv0", "up"},
	} {
		testutil.Run(t, "ip", append([]string{"-n", ns}, c...)...)
	}
	return ns
}

type ipLink struct {
	Ifname    string `json:"ifname"`
	MTU       int    `json:"mtu"`
	Operstate string `json:"operstate"`
	Txqlen    int    `json:"txqlen"`
	Address   string `json:"address"`
	Master    string `json:"master"`
	AddrInfo  []struct {
		Local     string `json:"local"`
		Prefixlen int    `json:"prefixlen"`
		Family    string `json:"family"`
	} `json:"addr_info"`
}

// TestInventoryMatchesIPAndEthtool: the live inventory of a namespace
// agrees with ip(8) on every interface and with ethtool(8) on features.
func TestInventoryMatchesIPAndEthtool(t *testing.T) {
	testutil.NeedAll(t, "network namespaces", "ip", "ethtool", "go")
	bin := buildNastune(t)
	ns := newNS(t)

	// A new bridge turns UP and gains its IPv6 link-local address a moment
	// later: compare only a snapshot that ip reports alike before and after.
	var inv inventory.Net
	var links []ipLink
	for try := 0; ; try++ {
		before := testutil.Run(t, "ip", "-n", ns, "-j", "-d", "addr", "show")
		invJSON := testutil.Run(t, "ip", "netns", "exec", ns, bin, "inventory", "net", "-o", "json")
		after := testutil.Run(t, "ip", "-n", ns, "-j", "-d", "addr", "show")
		if before == after || try == 40 {
			if err := json.Unmarshal([]byte(invJSON), &inv); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(after), &links); err != nil {
				t.Fatal(err)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	rows := map[string]inventory.NetRow{}
	for _, r := range inv.Interfaces {
		rows[r.Name] = r
	}
	if len(rows) != len(links) {
		t.Errorf("nastune lists %d interfaces, ip lists %d", len(rows), len(links))
	}
	for _, l := range links {
		r, ok := rows[l.Ifname]
		if !ok {
			t.Errorf("%s: missing from the inventory", l.Ifname)
			continue
		}
		if r.MTU == nil || *r.MTU != l.MTU || r.TxQueueLen == nil || *r.TxQueueLen != l.Txqlen ||
			!strings.EqualFold(r.Operstate, l.Operstate) || r.MAC != l.Address || r.Master != l.Master {
			t.Errorf("%s: nastune %+v, ip %+v", l.Ifname, r, l)
		}
		var want []string
		for _, a := range l.AddrInfo {
			want = append(want, fmt.Sprintf("%s/%d", a.Local, a.Prefixlen))
		}
		if strings.Join(want, ",") != strings.Join(r.Addresses, ",") {
			t.Errorf("%s: addresses %v, ip says %v", l.Ifname, r.Addresses, want)
		}
	}
	if r := rows["vA"]; r.Driver != "veth" || r.Kind != "veth" || r.Master != "br0" {
		t.Errorf("vA: %+v", r)
	}
	if r := rows["br0"]; r.Kind != "bridge" {
		t.Errorf("br0 kind %q", r.Kind)
	}
	// Features: the ioctl path against ethtool -k.
	for _, name := range []string{"vA", "mv0"} {
		f, err := ethparse.ParseFeatures([]byte(testutil.Run(t, "ip", "netns", "exec", ns, "ethtool", "-k", name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range inventory.KeyFeatures {
			if want, ok := f.On[k]; ok && rows[name].Features[k] != want {
				t.Errorf("%s %s: nastune %v, ethtool -k %v", name, k, rows[name].Features[k], want)
			}
		}
	}
}

// TestAuditNamesPacketSocketOwner: a process holding an AF_PACKET socket
// in the namespace is named (pid and program) by the audit.
func TestAuditNamesPacketSocketOwner(t *testing.T) {
	testutil.NeedAll(t, "network namespaces", "ip", "go")
	bin := buildNastune(t)
	ns := newNS(t)
	helper := exec.Command("ip", "netns", "exec", ns, os.Args[0])
	helper.Env = append(os.Environ(), "NASTUNE_TEST_HELPER=packet", "NASTUNE_TEST_IFACE=vB")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { helper.Process.Kill(); helper.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper: %q", line)
	}
	var rep audit.Report
	if err := json.Unmarshal([]byte(testutil.Run(t, "ip", "netns", "exec", ns, bin, "audit", "-o", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	// ip netns exec execs the helper in place, so its pid is the helper's.
	want := fmt.Sprintf("%s %d", filepath.Base(os.Args[0])[:min(15, len(filepath.Base(os.Args[0])))], helper.Process.Pid)
	for _, f := range rep.Findings {
		if f.ID == "netsec-packet-socket" && f.Subject == want {
			return
		}
	}
	t.Errorf("no netsec-packet-socket finding for %q; findings: %+v", want, rep.Findings)
}
