package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/test/smblab"
	"github.com/nastune/nastune/test/testutil"
)

// The smbd tests: a real Samba started by test/smblab (its own network
// namespace, smb.conf, passdb and share folders on a temp folder); the
// client (this test binary re-run as a helper) in the lab's second
// namespace over a veth pair. smbclient's put/get in the same run is the
// oracle.

// runShareClient runs RunShare as a helper in the client namespace and
// returns its result.
func runShareClient(t *testing.T, l *smblab.Lab, url string, tests string, env ...string) (*ShareResult, string) {
	t.Helper()
	cmd := exec.Command("ip", "netns", "exec", l.Cli, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=share", "NASTUNE_SHARE_URL="+url, "NASTUNE_SHARE_TESTS="+tests, "NASTUNE_SMB_PASSWORD="+smblab.Password)
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
	streams := 2
	if n, err := strconv.Atoi(os.Getenv("NASTUNE_SHARE_STREAMS")); err == nil {
		streams = n
	}
	limit := 60 * time.Second
	if s, err := strconv.Atoi(os.Getenv("NASTUNE_SHARE_SECONDS")); err == nil {
		limit = time.Duration(s) * time.Second
	}
	res, err := RunShare(context.Background(), ShareOptions{URL: u, Password: os.Getenv("NASTUNE_SMB_PASSWORD"), Streams: streams,
		Tests: strings.Split(os.Getenv("NASTUNE_SHARE_TESTS"), ","), Size: size, Time: limit, Files: 40,
		TCPServer: os.Getenv("NASTUNE_SHARE_TCP"), TCPTime: 3 * time.Second})
	return printHelper(res, err)
}

func TestShareSmbd(t *testing.T) {
	l := smblab.Start(t, "a", "")
	// A file nastune did not make, named like its own: left as it is.
	planted := filepath.Join(l.Dir, "share", sharePrefix+"someone-elses.bin")
	if err := os.WriteFile(planted, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("plain", func(t *testing.T) {
		res, raw := runShareClient(t, l, "smb://nobody@"+l.Addr+"/share", "seqwrite,seqread,smallfiles,metadata")
		t.Logf("%s", raw)
		if strings.Contains(raw, smblab.Password) {
			t.Error("the result holds the password")
		}
		if res.Protocol != "smb" || res.Dialect != "3.1.1" || res.Signing != "off" || res.Encryption != "off" {
			t.Errorf("session: %+v, want SMB 3.1.1 unsigned unencrypted (smbd's defaults)", res.ShareInfo)
		}
		checkShareTests(t, res, 64<<20, "seqwrite", "seqread", "smallfiles", "metadata")
		smbclientOracle(t, l, "share")
	})
	t.Run("eight streams", func(t *testing.T) {
		// -P 8: one request of 1 MiB in flight per stream (the client's
		// 8 MiB budget), and the wire holding replies back while the
		// readers lag: every byte still moves and reads back verified.
		res, raw := runShareClient(t, l, "smb://nobody@"+l.Addr+"/share", "seqwrite,seqread", "NASTUNE_SHARE_STREAMS=8")
		t.Logf("%s", raw)
		if res.Streams != 8 || res.InFlight != 1 {
			t.Errorf("%d streams x %d in flight, want 8 x 1", res.Streams, res.InFlight)
		}
		checkShareTests(t, res, 64<<20, "seqwrite", "seqread")
	})
	t.Run("encrypted", func(t *testing.T) {
		res, raw := runShareClient(t, l, "smb://nobody@"+l.Addr+"/secret", "seqwrite,seqread")
		t.Logf("%s", raw)
		if res.Encryption != "on" {
			t.Errorf("encryption %q on a share with smb encrypt = required", res.Encryption)
		}
		checkShareTests(t, res, 64<<20, "seqwrite", "seqread")
		smbclientOracle(t, l, "secret")
	})
	t.Run("wrong password", func(t *testing.T) {
		u, _ := ParseShareURL("smb://nobody@" + l.Addr + "/share")
		cmd := exec.Command("ip", "netns", "exec", l.Cli, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=share", "NASTUNE_SHARE_URL="+u.String(), "NASTUNE_SHARE_TESTS=seqread", "NASTUNE_SMB_PASSWORD=wrong")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "SMB session") {
			t.Errorf("a wrong password: %v %s", err, out)
		}
	})
	t.Run("size beyond the free space", func(t *testing.T) {
		// 1 EiB: the server's FileFsFullSizeInformation makes nastune
		// refuse before it writes (seqread would complete the file untimed
		// until the disk is full). The test asks for seqwrite only, for 1 s:
		// should the check not hold, this test writes for 1 s, not until
		// the machine's disk is full.
		cmd := exec.Command("ip", "netns", "exec", l.Cli, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=share", "NASTUNE_SHARE_URL=smb://nobody@"+l.Addr+"/share", "NASTUNE_SHARE_TESTS=seqwrite",
			"NASTUNE_SMB_PASSWORD="+smblab.Password, "NASTUNE_SHARE_MIB=1099511627776", "NASTUNE_SHARE_STREAMS=1", "NASTUNE_SHARE_SECONDS=1")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), ErrNoRoom.Error()) {
			t.Errorf("--size 1E: %v %s, want %q", err, out, ErrNoRoom)
		}
	})
	b, err := os.ReadFile(planted)
	if err != nil || string(b) != "keep me" {
		t.Errorf("the planted file: %q %v", b, err)
	}
	for _, d := range []string{"share", "secret"} {
		es, _ := os.ReadDir(filepath.Join(l.Dir, d))
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
func smbclientOracle(t *testing.T, l *smblab.Lab, share string) {
	t.Helper()
	src := filepath.Join(l.Dir, "oracle.in")
	dst := filepath.Join(l.Dir, "oracle.out")
	data := make([]byte, 16<<20)
	rand.Read(data)
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := l.Smbclient(share, fmt.Sprintf("put %s oracle.bin; get oracle.bin %s; rm oracle.bin", src, dst))
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
	l := smblab.Start(t, "b", "\tserver signing = mandatory")
	res, _ := runShareClient(t, l, "smb://nobody@"+l.Addr+"/share", "seqwrite,seqread")
	if res.Signing != "on" || res.Encryption != "off" {
		t.Errorf("signing %q encryption %q, want on and off with server signing = mandatory", res.Signing, res.Encryption)
	}
	checkShareTests(t, res, 64<<20, "seqwrite", "seqread")
	t.Logf("signed: seqwrite %.1f MiB/s, seqread %.1f MiB/s", res.Tests[0].MiBPerS, res.Tests[1].MiBPerS)
}

// netServerHelper is the helper mode "netserver": a bench net server on
// NASTUNE_NET_ADDR until SIGTERM.
func netServerHelper() int {
	return serveHelper(&Server{Addr: os.Getenv("NASTUNE_NET_ADDR"), SMBConf: os.Getenv("NASTUNE_SMB_CONF"), Devices: fsDevice})
}

// The staged network limit: a token bucket of 50 Mbit/s on the server's
// side of the veth shapes server → client. seqread is named network-bound
// against raw TCP down measured in the same run (bench net -s on the server).
func TestShareSmbdNetworkLimit(t *testing.T) {
	testutil.Need(t, "tc", "iproute2")
	l := smblab.Start(t, "c", "")
	tcp := startNetServer(t, l)
	testutil.Run(t, "ip", "netns", "exec", l.Srv, "tc", "qdisc", "add", "dev", "smb-s", "root", "tbf", "rate", "50mbit", "burst", "64kb", "latency", "50ms")
	// On a busy machine a run can fall short of the shaper for want of a
	// CPU (the share then moves under 85% of raw TCP and the verdict is
	// protocol, rightly): such a run did not stage the limit, and the case
	// is run again, up to three times, before it fails.
	var read *ShareLimit
	for attempt := 1; attempt <= 3; attempt++ {
		res, raw := runShareClient(t, l, "smb://nobody@"+l.Addr+"/share", "seqwrite,seqread", "NASTUNE_SHARE_MIB=16", "NASTUNE_SHARE_TCP="+tcp)
		t.Logf("attempt %d:\n%s", attempt, raw)
		checkShareTests(t, res, 16<<20, "seqwrite", "seqread")
		if res.TCP == nil || res.TCP.DownBitsPerSecond < 25e6 || res.TCP.DownBitsPerSecond > 60e6 || res.TCP.UpBitsPerSecond < 100e6 {
			t.Fatalf("raw TCP %+v: want about 50 Mbit/s down (the shaper), more up", res.TCP)
		}
		read = nil
		for i := range res.Limit {
			if res.Limit[i].Test == "seqread" {
				read = &res.Limit[i]
			}
		}
		if read != nil && read.Layer == "network" && read.Subject == l.Addr {
			return
		}
		if read == nil || read.Layer != "protocol" {
			break // not the shortfall a busy machine explains
		}
		t.Logf("attempt %d: seqread verdict %+v: the run fell short of the shaper (a busy machine?); running it again", attempt, read)
	}
	t.Errorf("seqread verdict %+v, want network on %s", read, l.Addr)
}
