package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

// The smbd test: a real Samba (Debian's samba package) started by the test
// in its own network namespace, with its own smb.conf, passdb, lock, state
// and private folders and a share on a temp folder; the client (this test
// binary re-run as a helper) in a second namespace over a veth pair.
// smbclient's put/get in the same run is the oracle. Nothing outside the
// temp folder and the two namespaces is touched.
//
// smbd maps every SMB account to a Unix account; creating one would
// write /etc/passwd, so the account the test creates (in its own tdbsam
// file) is for nobody (uid 65534), the existing unprivileged user, and the
// share folder is owned by it.

const smbTestPassword = "nastune-test-pw"

type smbLab struct {
	dir, srv, cli, addr string
}

// removeStaleSmbNetns deletes the namespaces of this test whose process
// no longer exists (a killed run).
func removeStaleSmbNetns() {
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "nastune-smbs-")
		if !ok {
			rest, ok = strings.CutPrefix(e.Name(), "nastune-smbc-")
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if ok && err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			exec.Command("ip", "netns", "del", e.Name()).Run()
		}
	}
}

// startSmbd starts a lab; global holds extra [global] lines (e.g. signing).
func startSmbd(t *testing.T, name, global string) *smbLab {
	t.Helper()
	testutil.NeedRoot(t, "network namespaces and smbd")
	for _, tool := range []struct{ name, pkg string }{{"ip", "iproute2"}, {"smbd", "samba"}, {"pdbedit", "samba"}, {"smbclient", "smbclient"}} {
		testutil.Need(t, tool.name, tool.pkg)
	}
	dir, err := os.MkdirTemp("", "nastune-smbd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	removeStaleSmbNetns()
	pid := strconv.Itoa(os.Getpid()) + "-" + name
	l := &smbLab{dir: dir, srv: "nastune-smbs-" + pid, cli: "nastune-smbc-" + pid, addr: "10.231.0.1"}
	testutil.Run(t, "ip", "netns", "add", l.srv)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.srv).Run() })
	testutil.Run(t, "ip", "netns", "add", l.cli)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", l.cli).Run() })
	testutil.Run(t, "ip", "link", "add", "smb-s", "netns", l.srv, "type", "veth", "peer", "name", "smb-c", "netns", l.cli)
	testutil.Run(t, "ip", "-n", l.srv, "addr", "add", l.addr+"/24", "dev", "smb-s")
	testutil.Run(t, "ip", "-n", l.cli, "addr", "add", "10.231.0.2/24", "dev", "smb-c")
	for _, ns := range [][2]string{{l.srv, "smb-s"}, {l.cli, "smb-c"}} {
		testutil.Run(t, "ip", "-n", ns[0], "link", "set", ns[1], "up")
		testutil.Run(t, "ip", "-n", ns[0], "link", "set", "lo", "up")
	}
	for _, d := range []string{"private", "lock", "state", "cache", "run", "ncalrpc", "binddns", "share", "secret"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"share", "secret"} {
		p := filepath.Join(dir, d)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o755)
	}
	conf := fmt.Sprintf(`[global]
	netbios name = NASTUNETEST
	workgroup = WORKGROUP
	server role = standalone server
	interfaces = %[2]s/24
	bind interfaces only = yes
	smb ports = 445
	disable netbios = yes
	passdb backend = tdbsam:%[1]s/private/passdb.tdb
	private dir = %[1]s/private
	lock directory = %[1]s/lock
	state directory = %[1]s/state
	cache directory = %[1]s/cache
	pid directory = %[1]s/run
	ncalrpc dir = %[1]s/ncalrpc
	binddns dir = %[1]s/binddns
	log file = %[1]s/smbd.log
	log level = 1
	map to guest = never
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
	usershare max shares = 0
	server min protocol = SMB2_10
%[3]s
[share]
	path = %[1]s/share
	read only = no
[secret]
	path = %[1]s/secret
	read only = no
	smb encrypt = required
`, dir, l.addr, global)
	cf := filepath.Join(dir, "smb.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("pdbedit", "-s", cf, "-a", "-t", "-u", "nobody")
	add.Stdin = strings.NewReader(smbTestPassword + "\n" + smbTestPassword + "\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("pdbedit: %v\n%s", err, out)
	}
	smbd := exec.Command("ip", "netns", "exec", l.srv, "smbd", "-F", "--no-process-group", "-s", cf, "--debug-stdout")
	var log bytes.Buffer
	smbd.Stdout, smbd.Stderr = &log, &log
	smbd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := smbd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-smbd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { smbd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-smbd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "smbd.log"))
			t.Logf("smbd output:\n%s\n%s", log.String(), b)
		}
	})
	// Wait (up to 60 s: a busy 2-core machine) for smbd to listen.
	for i := 0; ; i++ {
		if exec.Command("ip", "netns", "exec", l.srv, "sh", "-c", "ss -Hltn 'sport = :445' | grep -q .").Run() == nil {
			break
		}
		if i > 600 || smbd.ProcessState != nil {
			b, _ := os.ReadFile(filepath.Join(dir, "smbd.log"))
			t.Fatalf("smbd did not listen on 445:\n%s\n%s", log.String(), b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return l
}

// runShareClient runs RunShare as a helper in the client namespace and
// returns its result.
func (l *smbLab) runShareClient(t *testing.T, url string, tests string, env ...string) (*ShareResult, string) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", l.cli, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=share", "NASTUNE_SHARE_URL="+url, "NASTUNE_SHARE_TESTS="+tests, "NASTUNE_SMB_PASSWORD="+smbTestPassword)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench share %s: %v\n%s%s", url, err, out, stderr.String())
	}
	var res ShareResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("result: %v\n%s", err, out)
	}
	return &res, string(out)
}

// shareHelper is the helper mode "share" of TestMain.
func shareHelper() int {
	u, err := ParseShareURL(os.Getenv("NASTUNE_SHARE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	size := int64(64 << 20)
	if mib, err := strconv.Atoi(os.Getenv("NASTUNE_SHARE_MIB")); err == nil {
		size = int64(mib) << 20
	}
	res, err := RunShare(context.Background(), ShareOptions{URL: u, Password: os.Getenv("NASTUNE_SMB_PASSWORD"),
		Tests: strings.Split(os.Getenv("NASTUNE_SHARE_TESTS"), ","), Size: size, Streams: 2, Time: 60 * time.Second, Files: 40,
		TCPServer: os.Getenv("NASTUNE_SHARE_TCP"), TCPTime: 3 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	return 0
}

func TestShareSmbd(t *testing.T) {
	l := startSmbd(t, "a", "")
	// A file nastune did not make, named like its own: left as it is.
	planted := filepath.Join(l.dir, "share", sharePrefix+"someone-elses.bin")
	if err := os.WriteFile(planted, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("plain", func(t *testing.T) {
		res, raw := l.runShareClient(t, "smb://nobody@"+l.addr+"/share", "seqwrite,seqread,smallfiles,metadata")
		t.Logf("%s", raw)
		if strings.Contains(raw, smbTestPassword) {
			t.Error("the result holds the password")
		}
		if res.Protocol != "smb" || res.Dialect != "3.1.1" || res.Signing != "off" || res.Encryption != "off" {
			t.Errorf("session: %+v, want SMB 3.1.1 unsigned unencrypted (smbd's defaults)", res.ShareInfo)
		}
		checkShareTests(t, res, 64<<20, "seqwrite", "seqread", "smallfiles", "metadata")
		smbclientOracle(t, l, "share")
	})
	t.Run("encrypted", func(t *testing.T) {
		res, raw := l.runShareClient(t, "smb://nobody@"+l.addr+"/secret", "seqwrite,seqread")
		t.Logf("%s", raw)
		if res.Encryption != "on" {
			t.Errorf("encryption %q on a share with smb encrypt = required", res.Encryption)
		}
		checkShareTests(t, res, 64<<20, "seqwrite", "seqread")
		smbclientOracle(t, l, "secret")
	})
	t.Run("wrong password", func(t *testing.T) {
		u, _ := ParseShareURL("smb://nobody@" + l.addr + "/share")
		cmd := exec.Command("ip", "netns", "exec", l.cli, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=share", "NASTUNE_SHARE_URL="+u.String(), "NASTUNE_SHARE_TESTS=seqread", "NASTUNE_SMB_PASSWORD=wrong")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "SMB session") {
			t.Errorf("a wrong password: %v %s", err, out)
		}
	})
	b, err := os.ReadFile(planted)
	if err != nil || string(b) != "keep me" {
		t.Errorf("the planted file: %q %v", b, err)
	}
	for _, d := range []string{"share", "secret"} {
		es, _ := os.ReadDir(filepath.Join(l.dir, d))
		for _, e := range es {
			if e.Name() != filepath.Base(planted) {
				t.Errorf("left behind in %s: %s", d, e.Name())
			}
		}
	}
}

func checkShareTests(t *testing.T, res *ShareResult, size int64, names ...string) {
	t.Helper()
	if len(res.Tests) != len(names) {
		t.Fatalf("tests %+v, want %v", res.Tests, names)
	}
	for i, tr := range res.Tests {
		if tr.Name != names[i] || tr.MiBPerS <= 0 && tr.Name != "metadata" || tr.IOPS <= 0 {
			t.Errorf("test %d: %+v, want %s with a rate", i, tr, names[i])
		}
		if (tr.Name == "seqwrite" || tr.Name == "seqread") && tr.Bytes != size {
			t.Errorf("%s moved %d bytes, want %d (--time is 60 s: it must finish)", tr.Name, tr.Bytes, size)
		}
		if tr.Name != "seqwrite" && !tr.Verified {
			t.Errorf("%s: content not verified", tr.Name)
		}
	}
}

// smbclientOracle: smbclient put and get of a random file on the same
// share in the same run: both complete and the bytes come back equal.
func smbclientOracle(t *testing.T, l *smbLab, share string) {
	t.Helper()
	src := filepath.Join(l.dir, "oracle.in")
	dst := filepath.Join(l.dir, "oracle.out")
	data := make([]byte, 16<<20)
	rand.Read(data)
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(l.dir, "auth")
	os.WriteFile(auth, []byte("username = nobody\npassword = "+smbTestPassword+"\n"), 0o600)
	out, err := exec.Command("ip", "netns", "exec", l.cli, "smbclient", "-A", auth, "//"+l.addr+"/"+share,
		"-c", fmt.Sprintf("put %s oracle.bin; get oracle.bin %s; rm oracle.bin", src, dst)).CombinedOutput()
	if err != nil {
		t.Fatalf("smbclient: %v\n%s", err, out)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("smbclient's get returned other bytes (%d of %d): %v\n%s", len(got), len(data), err, out)
	}
	os.Remove(src)
	os.Remove(dst)
}

// A server that requires signing: nastune's session is signed, and says so.
func TestShareSmbdSigned(t *testing.T) {
	l := startSmbd(t, "b", "\tserver signing = mandatory")
	res, _ := l.runShareClient(t, "smb://nobody@"+l.addr+"/share", "seqwrite,seqread")
	if res.Signing != "on" || res.Encryption != "off" {
		t.Errorf("signing %q encryption %q, want on and off with server signing = mandatory", res.Signing, res.Encryption)
	}
	checkShareTests(t, res, 64<<20, "seqwrite", "seqread")
	t.Logf("signed: seqwrite %.1f MiB/s, seqread %.1f MiB/s", res.Tests[0].MiBPerS, res.Tests[1].MiBPerS)
}

// netServerHelper is the helper mode "netserver": a bench net server on
// NASTUNE_NET_ADDR until SIGTERM.
func netServerHelper() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	s := &Server{Addr: os.Getenv("NASTUNE_NET_ADDR")}
	if err := s.Listen(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening")
	if err := s.Serve(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// The staged network limit: a token bucket of 50 Mbit/s on the server's
// side of the veth shapes server → client. seqread is named network-bound
// against raw TCP down measured in the same run (bench net -s on the server).
func TestShareSmbdNetworkLimit(t *testing.T) {
	testutil.Need(t, "tc", "iproute2")
	l := startSmbd(t, "c", "")
	srv := exec.Command("ip", "netns", "exec", l.srv, os.Args[0], "-test.run=^$")
	srv.Env = append(os.Environ(), helperEnv+"=netserver", "NASTUNE_NET_ADDR="+l.addr+":5201")
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() })
	if b := make([]byte, 9); func() bool { n, _ := io.ReadFull(stdout, b); return n != 9 }() {
		t.Fatal("the bench net server did not start")
	}
	testutil.Run(t, "ip", "netns", "exec", l.srv, "tc", "qdisc", "add", "dev", "smb-s", "root", "tbf", "rate", "50mbit", "burst", "64kb", "latency", "50ms")
	res, raw := l.runShareClient(t, "smb://nobody@"+l.addr+"/share", "seqwrite,seqread", "NASTUNE_SHARE_MIB=16", "NASTUNE_SHARE_TCP="+l.addr+":5201")
	t.Logf("%s", raw)
	checkShareTests(t, res, 16<<20, "seqwrite", "seqread")
	if res.TCP == nil || res.TCP.DownBitsPerSecond < 25e6 || res.TCP.DownBitsPerSecond > 60e6 || res.TCP.UpBitsPerSecond < 100e6 {
		t.Fatalf("raw TCP %+v: want about 50 Mbit/s down (the shaper), more up", res.TCP)
	}
	var read *ShareLimit
	for i := range res.Limit {
		if res.Limit[i].Test == "seqread" {
			read = &res.Limit[i]
		}
	}
	if read == nil || read.Layer != "network" || read.Subject != l.addr {
		t.Errorf("seqread verdict %+v, want network on %s", read, l.addr)
	}
}
