package tune

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/netlab"
	"github.com/nastune/nastune/test/smblab"
)

// Demo 2 of issue 29: a real smbd (test/smblab: its own network namespace,
// smb.conf in a temp folder) with socket options that fix 8 KiB buffers.
// tune --share's loop (Run with ShareMeasurer's measurement, run in the
// client namespace) removes them through apply and an smbd restart; an
// independent smbclient get measures the gain; undo leaves smb.conf
// byte-identical. With a clean smb.conf there is nothing to try and
// nothing is kept.

const shareHelperEnv = "NASTUNE_TUNE_SHARE_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(shareHelperEnv) != "" {
		os.Exit(shareHelper())
	}
	os.Exit(m.Run())
}

// shareHelper runs bench share once (what ShareMeasurer does) and prints
// the result as JSON.
func shareHelper() int {
	u, err := bench.ParseShareURL(os.Getenv(shareHelperEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r, err := bench.RunShare(context.Background(), bench.ShareOptions{URL: u, Password: smblab.Password,
		Tests: []string{"seqread", "seqwrite"}, Size: 8 << 20, Streams: 1, Repeat: 1, Time: 60 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	return 0
}

// clientMeasurer runs shareHelper in the lab's client namespace.
func clientMeasurer(l *smblab.Lab) Measurer {
	return func(ctx context.Context) (Sample, error) {
		cmd := exec.CommandContext(ctx, "ip", "netns", "exec", l.Cli, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), shareHelperEnv+"=smb://nobody@"+l.Addr+"/share")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("bench share: %v: %s", err, stderr.String())
		}
		var r bench.ShareResult
		if err := json.Unmarshal(out, &r); err != nil {
			return nil, err
		}
		return ShareSample(&r)
	}
}

func smbdVersion(t *testing.T) string {
	out, err := exec.Command("smbd", "-V").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(out), "Version "))
}

// oracleRate is the median MiB/s of three smbclient gets of a 16 MiB file.
func oracleRate(t *testing.T, l *smblab.Lab) float64 {
	t.Helper()
	rates := []float64{oracleGet(t, l), oracleGet(t, l), oracleGet(t, l)}
	slices.Sort(rates)
	return rates[1]
}

// oracleGet is one smbclient get of a 16 MiB file from the share, in
// MiB/s (the file written first when it is not there).
func oracleGet(t *testing.T, l *smblab.Lab) float64 {
	t.Helper()
	src := filepath.Join(l.Dir, "share", "oracle.bin")
	if _, err := os.Stat(src); err != nil {
		data := make([]byte, 16<<20)
		rand.Read(data)
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(l.Dir, "oracle.out")
	d, err := l.Get("share", "oracle.bin", dst)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dst)
	return 16 / d.Seconds()
}

func shareTune(t *testing.T, l *smblab.Lab) (*Result, []Knob, []string, apply.Options) {
	t.Helper()
	const conf = "/etc/samba/smb.conf"
	src, err := os.ReadFile(l.Conf)
	if err != nil {
		t.Fatal(err)
	}
	ver := smbdVersion(t)
	knobs, notes, err := SambaKnobs(conf, src, ver)
	if err != nil {
		t.Fatal(err)
	}
	opts := apply.Options{Root: l.Dir, Validate: apply.ConfigValidator(context.Background(), cmdrun.Limits{}), Tune: "tune-share-test"}
	a := &ShareApplier{Journal: &JournalApplier{Opts: opts}, Conf: conf, Version: ver, Service: l}
	res, err := Run(context.Background(), clientMeasurer(l), a, Options{Tests: []string{"seqread", "seqwrite"},
		Units: map[string]string{"seqread": "MB/s", "seqwrite": "MB/s"}, Knobs: knobs, Budget: 15 * time.Minute, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteText(&b, res)
	t.Logf("tune --share:\n%s", b.String())
	if res.Final != nil && res.FinalBaseline != nil {
		t.Logf("per test (MB/s): baseline %v, first baseline again %v, final %v", res.Baseline.Tests, res.FinalBaseline.Tests, res.Final.Tests)
	}
	return res, knobs, notes, opts
}

func TestTuneShareSmbdSocketOptions(t *testing.T) {
	path := netlab.New(t, netlab.Opts{Delay: pathDelay, Subnet: "10.29.7"})
	l := smblab.StartIn(t, path.ServerNS, path.ClientNS, path.ServerAddr, "\tsocket options = SO_RCVBUF=8192 SO_SNDBUF=8192")
	orig, err := os.ReadFile(l.Conf)
	if err != nil {
		t.Fatal(err)
	}
	before := oracleRate(t, l)
	res, knobs, _, opts := shareTune(t, l)
	if len(knobs) != 1 || knobs[0].Attr != "socket options" || !slices.Equal(knobs[0].Values, []string{"TCP_NODELAY"}) {
		t.Fatalf("knobs %+v, want socket options tried as TCP_NODELAY", knobs)
	}
	if len(res.Kept) != 1 || res.Kept[0].To != "TCP_NODELAY" || res.RunID == "" {
		t.Fatalf("kept %+v, want socket options = TCP_NODELAY", res.Kept)
	}
	now, _ := os.ReadFile(l.Conf)
	if want := bytes.Replace(orig, []byte("SO_RCVBUF=8192 SO_SNDBUF=8192"), []byte("TCP_NODELAY"), 1); !bytes.Equal(now, want) {
		t.Errorf("smb.conf after tune:\n%s\nwant only the socket options line changed", now)
	}
	after := oracleRate(t, l)
	// The window caps only the "before" copy; "after" is bounded by the
	// CPU, so a busy machine shrinks the gain: measured again (up to
	// twice, the best kept) before calling it a failure.
	for i := 0; i < 2 && after < minGain*before; i++ {
		t.Logf("smbclient get %.1f → %.1f MiB/s, below %.1f×: the machine may be busy, measuring again", before, after, minGain)
		after = max(after, oracleRate(t, l))
	}
	t.Logf("independent smbclient get: %.1f MiB/s before, %.1f MiB/s after (%.1f×)", before, after, after/before)
	if after < minGain*before {
		t.Errorf("smbclient get %.1f → %.1f MiB/s: want at least %.1f×", before, after, minGain)
	}
	// One undo reverts the tune; smbd restarted reads the file as it was.
	if _, err := apply.Undo(res.RunID, opts); err != nil {
		t.Fatal(err)
	}
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(l.Conf); !bytes.Equal(now, orig) {
		t.Errorf("smb.conf after undo is not byte-identical:\n%s", now)
	}
	if open, _ := apply.OpenTrials(opts); len(open) != 0 {
		t.Errorf("trial runs left live: %+v", open)
	}
	// Every run is the tune's (undo --list shows it as one entry).
	runs, _ := apply.List(opts)
	for _, r := range runs {
		if r.Tune != "tune-share-test" {
			t.Errorf("run %s is not named as the tune's: %q", r.ID, r.Tune)
		}
	}
	if len(runs) < 2 {
		t.Errorf("runs %d: want the trial and the kept run", len(runs))
	}
}

// The path's delay each way (netlab's relay): a 10 ms round trip, a VPN
// across town. Fixed 8 KiB buffers cap a copy at a few MiB/s there
// (window ÷ RTT) whatever the load on the box; autotuned ones reach what
// the relay forwards, several times more even on a busy 2-core machine
// (10× quiet, 2.8× once at a load average of 15). minGain is what the
// independent reader must see: clearly beyond the noise of a median of
// three gets, not a speed target (those are make bench's, docs/tune.md).
const (
	pathDelay = 5 * time.Millisecond
	minGain   = 2.0
)

func TestTuneShareSmbdClean(t *testing.T) {
	l := smblab.Start(t, "tuneclean", "")
	orig, _ := os.ReadFile(l.Conf)
	res, knobs, notes, _ := shareTune(t, l)
	if len(knobs) != 0 || len(res.Kept) != 0 || res.RunID != "" {
		t.Errorf("clean smb.conf: knobs %+v kept %+v, want nothing", knobs, res.Kept)
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "[secret] smb encrypt = required: not measured: required by your policy")
	}) {
		t.Errorf("notes %q: the encrypted share is not named", notes)
	}
	if now, _ := os.ReadFile(l.Conf); !bytes.Equal(now, orig) {
		t.Errorf("smb.conf changed:\n%s", now)
	}
}
