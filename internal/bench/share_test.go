package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nastune/nastune/internal/watch"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseShareURL(t *testing.T) {
	good := []struct {
		in   string
		want ShareURL
		str  string
	}{
		{"smb://nas/photos", ShareURL{Scheme: "smb", Host: "nas", Path: []string{"photos"}}, "smb://nas/photos"},
		{"smb://alice@nas.lan:4450/photos/2024/", ShareURL{Scheme: "smb", User: "alice", Host: "nas.lan", Port: 4450, Path: []string{"photos", "2024"}}, "smb://alice@nas.lan:4450/photos/2024"},
		{"SMB://[fd00::1]/s", ShareURL{Scheme: "smb", Host: "fd00::1", Path: []string{"s"}}, "smb://[fd00::1]/s"},
		{"smb://DOM%5Cbob@10.0.0.2/My%20Files", ShareURL{Scheme: "smb", User: `DOM\bob`, Host: "10.0.0.2", Path: []string{"My Files"}}, "smb://DOM%5Cbob@10.0.0.2/My%20Files"},
		{"nfs://nas/srv/nfs/share", ShareURL{Scheme: "nfs", Host: "nas", Path: []string{"srv", "nfs", "share"}}, "nfs://nas/srv/nfs/share"},
	}
	for _, c := range good {
		u, err := ParseShareURL(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if u.String() != c.str || u.Scheme != c.want.Scheme || u.User != c.want.User || u.Host != c.want.Host || u.Port != c.want.Port || strings.Join(u.Path, "|") != strings.Join(c.want.Path, "|") {
			t.Errorf("%s: got %+v (%s), want %+v (%s)", c.in, u, u, c.want, c.str)
		}
	}
	bad := []struct{ in, wantErr string }{
		{"nas/photos", "no scheme"},
		{"ftp://nas/x", `scheme "ftp"`},
		{"smb://alice:secret@nas/photos", "password"},
		{"smb://:secret@nas/photos", "password"},
		{"smb://nas", "no share"},
		{"smb://nas/", "no share"},
		{"nfs://nas", "no export"},
		{"smb:///photos", "no host"},
		{"smb://nas:0/p", "port"},
		{"smb://nas:70000/p", "port"},
		{"smb://nas:/p", "port"},
		{"smb://nas:x/p", "port"},
		{"smb://nas/a/../b", ".."},
		{"smb://nas/a//b", "empty path segment"},
		{"smb://nas/a%2Fb", "slash"},
		{`smb:\\nas\share`, "no scheme"},
		{`smb://nas\share`, "backslash"},
		{"smb://nas/p?x=1", "query"},
		{"smb://fd00::1/p", "brackets"},
		{"smb://na$s/p", "not allowed"},
		{"nfs://root@nas/x", "no user"},
		{"smb://nas/p\x1b[2J", "control character"},
		// Mistyped URLs with a password: the error does not repeat it.
		{"smb:/alice:secret@nas/photos", "password"},
		{"alice:secret@nas/photos", "password"},
		{"smb://alice:se/cret@nas/photos", "password"},
		{"smb://alice:se?cret@nas/photos", "password"},
		{"smb://alice:se#cret@nas/photos", "password"},
		{"smb://alice:se\\cret@nas/photos", "password"},
		{"smb://alice:sec%zzret@nas/photos", "password"},
	}
	for _, c := range bad {
		_, err := ParseShareURL(c.in)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%q: err %v, want it to mention %q", c.in, err, c.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "cret") { // a part of the password too
			t.Errorf("%q: the error repeats the password: %v", c.in, err)
		}
	}
	if _, err := ParseShareURL("smb://a:pw@nas/x"); !errors.Is(err, ErrPasswordInURL) {
		t.Errorf("password in URL: %v, want ErrPasswordInURL", err)
	}
}

// dirFS is a shareFS on a local folder: the driver's logic (ownership,
// verification, cleanup) is tested on a real filesystem; the smbd test
// (share_smbd_test.go) runs it over the wire.
type dirFS struct {
	root    string
	corrupt atomic.Bool   // flip a byte on read
	slow    time.Duration // per read
	onRead  func()        // called on every read, when set
	free    int64         // the free space Free reports (0: unknown)
	// createErr, when set, is Create's answer (a read-only share).
	createErr error
}

type dirFile struct {
	*os.File
	fs *dirFS
}

func (f dirFile) ReadAt(b []byte, off int64) (int, error) {
	time.Sleep(f.fs.slow)
	if f.fs.onRead != nil {
		f.fs.onRead()
	}
	n, err := f.File.ReadAt(b, off)
	if f.fs.corrupt.Load() && n > 100 {
		b[100] ^= 1
	}
	return n, err
}

func (d *dirFS) Create(n string) (shareFile, error) {
	if d.createErr != nil {
		return nil, d.createErr
	}
	f, err := os.OpenFile(filepath.Join(d.root, n), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	return dirFile{f, d}, err
}
func (d *dirFS) Open(n string) (shareFile, error) {
	f, err := os.OpenFile(filepath.Join(d.root, n), os.O_RDWR, 0)
	return dirFile{f, d}, err
}
func (d *dirFS) Mkdir(n string) error { return os.Mkdir(filepath.Join(d.root, n), 0o755) }
func (d *dirFS) List(n string) ([]os.FileInfo, error) {
	es, err := os.ReadDir(filepath.Join(d.root, n))
	var out []os.FileInfo
	for _, e := range es {
		fi, _ := e.Info()
		out = append(out, fi)
	}
	return out, err
}
func (d *dirFS) Stat(n string) (os.FileInfo, error) { return os.Stat(filepath.Join(d.root, n)) }
func (d *dirFS) Remove(n string) error              { return os.Remove(filepath.Join(d.root, n)) }
func (d *dirFS) Close() error                       { return nil }
func (d *dirFS) Free() (int64, bool)                { return d.free, d.free > 0 }
func (d *dirFS) Info() ShareInfo {
	return ShareInfo{Protocol: "local", Signing: "off", Encryption: "off"}
}

func shareOpts(d *dirFS) ShareOptions {
	return ShareOptions{URL: ShareURL{Scheme: "smb", Host: "test", Path: []string{"s"}}, Size: 8 << 20, Block: 256 << 10,
		Streams: 2, Time: time.Minute, Files: 20,
		dial: func(context.Context, ShareOptions) (shareFS, error) { return d, nil }}
}

func TestRunShareAllTestsLeavesNothing(t *testing.T) {
	root := t.TempDir()
	// Someone else's file whose name looks like ours: never touched.
	other := filepath.Join(root, sharePrefix+"theirs.bin")
	if err := os.WriteFile(other, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &dirFS{root: root}
	o := shareOpts(d)
	o.Tests = []string{"metadata", "seqread", "smallfiles", "seqwrite"}
	o.Repeat = 2
	res, err := RunShare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tr := range res.Tests {
		names = append(names, tr.Name)
		if tr.Runs != 2 || tr.IOPS <= 0 || tr.Seconds <= 0 {
			t.Errorf("%s: %+v", tr.Name, tr)
		}
		if tr.Name != "metadata" && tr.Bytes <= 0 {
			t.Errorf("%s moved no bytes: %+v", tr.Name, tr)
		}
		if tr.Name != "seqwrite" && !tr.Verified {
			t.Errorf("%s: not verified", tr.Name)
		}
	}
	if got := strings.Join(names, ","); got != "seqwrite,seqread,smallfiles,metadata" {
		t.Errorf("order %s", got)
	}
	if tr := res.Tests[0]; tr.Bytes != o.Size {
		t.Errorf("seqwrite moved %d bytes, want the whole %d", tr.Bytes, o.Size)
	}
	if res.Kind != "share" || res.URL != "smb://test/s" || res.InFlight != 4 {
		t.Errorf("result %+v", res)
	}
	es, _ := os.ReadDir(root)
	if len(es) != 1 || es[0].Name() != filepath.Base(other) {
		t.Errorf("left behind or removed: %v", es)
	}
}

// roomCases are the runs of shareOpts (8 MiB, 20 small files) against the
// free space a server reports (0: not reported); the NFS test replays
// them against go-nfs.
var roomCases = []struct {
	name  string
	tests []string
	free  int64
	ok    bool
}{
	{"the file fits in half the free space", []string{"seqwrite", "seqread"}, 17 << 20, true},
	{"the file takes more than half", []string{"seqwrite", "seqread"}, 15 << 20, false},
	{"seqread alone writes the file too", []string{"seqread"}, 12 << 20, false},
	{"smallfiles alone needs its files only", []string{"smallfiles"}, 3 << 20, true},
	{"smallfiles beside the file", []string{"seqwrite", "smallfiles"}, 17 << 20, false},
	{"metadata writes no data", []string{"metadata"}, 1 << 10, true},
	{"free space unknown", []string{"seqwrite", "seqread"}, 0, true},
}

// checkRoomRun checks one run of roomCases[i] and that it left nothing in root.
func checkRoomRun(t *testing.T, i int, err error, root string) {
	t.Helper()
	tc := roomCases[i]
	if tc.ok && err != nil {
		t.Fatalf("free %d: %v", tc.free, err)
	}
	if !tc.ok {
		if !errors.Is(err, ErrNoRoom) {
			t.Fatalf("free %d: %v, want ErrNoRoom", tc.free, err)
		}
		if !strings.Contains(err.Error(), "--size") {
			t.Errorf("the error does not say what to change: %v", err)
		}
	}
	if es, _ := os.ReadDir(root); len(es) != 0 {
		t.Errorf("left behind: %v", es)
	}
}

// A --size the share has no room for is refused before anything is
// written: seqread completes a short seqwrite untimed, so a large --size
// would otherwise fill the server's disk whatever --time says.
func TestRunShareRefusesSizeBeyondFreeSpace(t *testing.T) {
	for i, tc := range roomCases {
		t.Run(tc.name, func(t *testing.T) {
			d := &dirFS{root: t.TempDir(), free: tc.free}
			o := shareOpts(d)
			o.Tests = tc.tests
			_, err := RunShare(context.Background(), o)
			checkRoomRun(t, i, err, d.root)
		})
	}
}

func TestRunShareReadAloneAndVerification(t *testing.T) {
	d := &dirFS{root: t.TempDir()}
	o := shareOpts(d)
	o.Tests = []string{"seqread"}
	res, err := RunShare(context.Background(), o)
	if err != nil || len(res.Tests) != 1 || res.Tests[0].Bytes != o.Size || !res.Tests[0].Verified {
		t.Fatalf("seqread alone (prepares the file): %+v %v", res, err)
	}
	d.corrupt.Store(true)
	_, err = RunShare(context.Background(), o)
	if !errors.Is(err, ErrContent) {
		t.Fatalf("a corrupted read: %v, want ErrContent", err)
	}
	if es, _ := os.ReadDir(d.root); len(es) != 0 {
		t.Errorf("left behind after an error: %v", es)
	}
}

func TestRunShareInterrupted(t *testing.T) {
	d := &dirFS{root: t.TempDir()}
	o := shareOpts(d)
	o.Tests = []string{"seqwrite", "seqread"}
	ctx, cancel := context.WithCancel(context.Background())
	// Ctrl-C as seqread starts: its first read cancels (seqwrite reads
	// nothing), however fast this machine writes and reads the file.
	d.onRead = cancel
	o.Size = 64 << 20
	o.Block = 1 << 20
	res, err := RunShare(ctx, o)
	if !errors.Is(err, ErrInterrupted) || res == nil || len(res.Tests) != 1 || res.Tests[0].Name != "seqwrite" || !res.Interrupted {
		t.Fatalf("got %+v, %v; want seqwrite kept and ErrInterrupted", res, err)
	}
	if es, _ := os.ReadDir(d.root); len(es) != 0 {
		t.Errorf("left behind after Ctrl-C: %v", es)
	}
}

func TestSmbWireScan(t *testing.T) {
	frame := func(proto string, cmd uint16, flags uint32, body []byte) []byte {
		h := make([]byte, 64)
		copy(h, proto)
		h[12], h[13] = byte(cmd), byte(cmd>>8)
		h[16], h[17], h[18], h[19] = byte(flags), byte(flags>>8), byte(flags>>16), byte(flags>>24)
		f := append(h, body...)
		n := len(f)
		return append([]byte{0, byte(n >> 16), byte(n >> 8), byte(n)}, f...)
	}
	neg := frame("\xfeSMB", 0, 0, []byte{65, 0, 1, 0, 0x11, 0x03, 0, 0})
	read := frame("\xfeSMB", 8, 8, make([]byte, 5000))
	var stream []byte
	stream = append(stream, neg...)
	stream = append(stream, read...)
	stream = append(stream, read...)
	w := &smbWire{}
	for i := 0; i < len(stream); i += 7 { // split at odd places
		w.scan(stream[i:min(i+7, len(stream))])
	}
	in := w.info()
	if in.Dialect != "3.1.1" || in.Signing != "on" || in.Encryption != "off" {
		t.Errorf("signed 3.1.1: %+v", in)
	}
	w = &smbWire{}
	w.scan(append(neg, frame("\xfdSMB", 0, 0, make([]byte, 100))...))
	if in := w.info(); in.Encryption != "on" {
		t.Errorf("transform header: %+v", in)
	}
	w = &smbWire{}
	w.scan(append(neg, frame("\xfeSMB", 9, 0, nil)...))
	if in := w.info(); in.Signing != "off" {
		t.Errorf("unsigned: %+v", in)
	}
}

func TestInFlightPerStream(t *testing.T) {
	for _, c := range []struct{ streams, block, want int }{
		{1, 1 << 20, 4}, {2, 1 << 20, 4}, {3, 1 << 20, 2}, {4, 1 << 20, 2}, {5, 1 << 20, 1}, {8, 1 << 20, 1}, {16, 1 << 20, 1},
		{1, 16 << 20, 1}, {1, 4 << 20, 2}, {8, 64 << 10, 4}, {16, 256 << 10, 2}, {0, 0, 4},
	} {
		if got := inFlightPerStream(c.streams, c.block); got != c.want {
			t.Errorf("%d streams of %d: %d in flight each, want %d", c.streams, c.block, got, c.want)
		}
	}
}

// The wire reads no further frame while smbReadsAhead replies of whole
// reads wait to be taken, and reads on once one is.
func TestSmbWireHoldsReplies(t *testing.T) {
	const block = 1 << 20
	reply := func() []byte {
		n := 64 + 16 + block
		f := make([]byte, 4+n)
		f[1], f[2], f[3] = byte(n>>16), byte(n>>8), byte(n)
		copy(f[4:], "\xfeSMB")
		f[4+12] = 8 // READ
		return f
	}
	srv, cli := net.Pipe()
	defer cli.Close()
	go func() {
		for i := 0; i < smbReadsAhead+1; i++ {
			if _, err := srv.Write(reply()); err != nil {
				return
			}
		}
		srv.Close()
	}()
	w := &smbWire{Conn: cli, holdMax: time.Hour} // held until taken, however slow this machine
	for i := 0; i < smbReadsAhead+1; i++ {
		w.readStart(block)
	}
	readFrame := func() error {
		var hdr [4]byte
		if _, err := io.ReadFull(w, hdr[:]); err != nil {
			return err
		}
		_, err := io.ReadFull(w, make([]byte, int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3])))
		return err
	}
	for i := 0; i < smbReadsAhead; i++ {
		if err := readFrame(); err != nil {
			t.Fatal(err)
		}
	}
	var took atomic.Bool
	done := make(chan error)
	go func() {
		err := readFrame()
		if !took.Load() {
			err = fmt.Errorf("the wire read a frame while %d replies waited to be taken", smbReadsAhead)
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // lets a wire that does not hold read on (and fail)
	took.Store(true)
	w.readDone()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestCompareShare(t *testing.T) {
	mk := func(seq, meta float64) []byte {
		r := ShareResult{Kind: "share", Tests: []TestResult{
			{Name: "seqread", MiBPerS: seq, IOPS: seq, Runs: 3, SpreadLo: seq - 1, SpreadHi: seq + 1},
			{Name: "metadata", IOPS: meta, Runs: 3, SpreadLo: meta - 10, SpreadHi: meta + 10}}}
		b, _ := json.Marshal(r)
		return b
	}
	rows, err := Compare(mk(50, 1000), mk(80, 1005))
	if err != nil || len(rows) != 2 {
		t.Fatalf("%+v %v", rows, err)
	}
	if rows[0].Test != "seqread" || rows[0].Unit != "MB/s" || !rows[0].Significant || rows[0].Change != 60 {
		t.Errorf("seqread: %+v", rows[0])
	}
	if rows[1].Test != "metadata" || rows[1].Unit != "entries/s" || rows[1].Significant || rows[1].Before != 1000 {
		t.Errorf("metadata (entries/s, overlapping spreads): %+v", rows[1])
	}
	disk, _ := json.Marshal(DiskResult{Kind: "disk"})
	if _, err := Compare(mk(1, 1), disk); err == nil {
		t.Error("a share result compared with a disk result")
	}
}

func TestShareLimits(t *testing.T) {
	tcp := &ShareTCP{Server: "nas:5201", UpBitsPerSecond: 100e6, DownBitsPerSecond: 940e6, Streams: 1}
	tests := []TestResult{
		{Name: "seqwrite", MiBPerS: 11},  // 92 Mbit/s of 100: network
		{Name: "seqread", MiBPerS: 40},   // 336 of 940: beyond
		{Name: "smallfiles", MiBPerS: 5}, // not judged without the server
	}
	res := &ShareResult{URL: "smb://nas/data", Tests: tests, TCP: tcp}
	got := shareLimits(res)
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	if got[0].Test != "seqwrite" || got[0].Layer != "network" || got[0].Subject != "nas" || !strings.Contains(got[0].Why, "92%") || len(got[0].Evidence) != 2 {
		t.Errorf("seqwrite: %+v", got[0])
	}
	if got[1].Test != "seqread" || got[1].Layer != "beyond-network" || !strings.Contains(got[1].Why, "36%") || !strings.Contains(got[1].Evidence[1], "940 Mbit/s") {
		t.Errorf("seqread: %+v", got[1])
	}
	// At the threshold exactly: network (≥).
	at := shareLimits(&ShareResult{URL: "smb://h/s", Tests: []TestResult{{Name: "seqread", MiBPerS: NetworkShare * 100e6 / 8 / (1 << 20)}}, TCP: &ShareTCP{DownBitsPerSecond: 100e6}})
	if len(at) != 1 || at[0].Layer != "network" {
		t.Errorf("at %v of raw TCP: %+v", NetworkShare, at)
	}
	if shareLimits(&ShareResult{URL: "smb://nas/data", Tests: tests}) != nil || len(shareLimits(&ShareResult{URL: "smb://nas/data", Tests: tests, TCP: &ShareTCP{}})) != 0 {
		t.Error("no TCP measured and no server view: no verdict")
	}
	// The share moved 140% of raw TCP (the kernel lab: 8 NFS streams
	// against one raw stream on a starved VM's loopback, 42 vs 30 Mbit/s):
	// raw TCP is no ceiling then, and not a network verdict.
	above := shareLimits(&ShareResult{URL: "nfs://127.0.0.1/srv/share", Tests: []TestResult{{Name: "seqread", MiBPerS: 5.0}}, TCP: &ShareTCP{DownBitsPerSecond: 29.9e6}})
	if len(above) != 0 {
		t.Errorf("a share at 140%% of raw TCP: %+v, want no verdict", above)
	}
}

// With the server's view: each layer is named from what it saw.
// poolAndDisk: the server saw nfsd's pool exhausted (96% of the
// hand-overs waited) and dm-0, under the share, busy at queue depth qd;
// limit > 0: dm-0 at its path's ceiling (bytes/s).
func poolAndDisk(threads string, qd, limit float64) *ShareServerView {
	v := &ShareServerView{AttribReport: AttribReport{Samples: 10, Seconds: 5, SharePath: "/srv/share", Devices: []string{"dm-0", "vda"},
		Settings: map[string]string{"nfsd threads": threads}}}
	v.Bottlenecks = []watch.Bottleneck{
		{Kind: "disk", Subject: "dm-0", Utilization: 0.97, QueueDepth: qd, AwaitMS: 20.5, Limit: limit, Why: "dm-0 is busy all the time", Evidence: []string{"/proc/diskstats dm-0: 97% busy"}},
		{Kind: "cpu", Subject: "nfsd threads", Utilization: 0.96, Why: "NFS requests wait for a free nfsd thread", Evidence: []string{"/proc/fs/nfsd/pool_stats: 96% found no idle thread"}},
	}
	return v
}

func TestShareLimitsServer(t *testing.T) {
	view := func(f func(v *ShareServerView)) *ShareServerView {
		v := &ShareServerView{AttribReport: AttribReport{Samples: 10, Seconds: 5, SharePath: "/srv/data", Devices: []string{"md0", "sda", "sdb"}, Settings: map[string]string{}}}
		f(v)
		return v
	}
	smbd := watch.ThreadSample{PID: 10, TID: 10, Comm: "smbd[10.0.0.2]", ProcessComm: "smbd[10.0.0.2]", CPUPct: 97}
	for _, c := range []struct {
		name                  string
		info                  ShareInfo
		v                     *ShareServerView
		layer, subject, inWhy string
	}{
		{"smbd thread, encrypted", ShareInfo{Protocol: "smb", Encryption: "on"}, view(func(v *ShareServerView) { v.Serving = []watch.ThreadSample{smbd} }),
			"server-cpu", "smbd[10.0.0.2] thread smbd[10.0.0.2] (pid 10, tid 10)", "encryption"},
		{"cgroup quota", ShareInfo{Protocol: "smb", Signing: "on"}, view(func(v *ShareServerView) {
			v.Bottlenecks = []watch.Bottleneck{{Kind: "cpu", Subject: "cgroup /sys/fs/cgroup/smb CPU quota", Cgroup: "/sys/fs/cgroup/smb", Utilization: 0.9, Why: "quota"}}
			v.Serving = []watch.ThreadSample{{PID: 10, TID: 10, Comm: "smbd", ProcessComm: "smbd", CPUPct: 10}}
		}), "server-cpu", "cgroup /sys/fs/cgroup/smb CPU quota", "signing"},
		{"io.max", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {
			v.Bottlenecks = []watch.Bottleneck{{Kind: "disk", Subject: "sda", Cgroup: "/sys/fs/cgroup/smb", Utilization: 0.98, Why: "io.max"}}
		}), "disk", "sda (cgroup /sys/fs/cgroup/smb)", "io.max"},
		{"cgroup read limit by the share's rate", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {
			v.Cgroups = []watch.CgroupSample{{Path: "/sys/fs/cgroup/blkio/smb", Version: 1, IO: []watch.CgroupIO{{Device: "sda", LimitRBps: 41 << 20, Source: "blkio.throttle.*_device"}}}}
		}), "disk", "sda (cgroup /sys/fs/cgroup/blkio/smb)", "98%"},
		{"a read limit on another device", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {
			v.Cgroups = []watch.CgroupSample{{Path: "/sys/fs/cgroup/blkio/smb", Version: 1, IO: []watch.CgroupIO{{Device: "sdz", LimitRBps: 41 << 20}}}}
		}), "protocol", "nas", "in flight"},
		{"too short to sample", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) { v.Seconds = 0.4; v.Serving = []watch.ThreadSample{smbd} }),
			"beyond-network", "nas", "too short for the server's sampling"},
		{"serving thread waits for busy CPUs", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {
			v.Bottlenecks = []watch.Bottleneck{{Kind: "cpu", Subject: "all CPUs", Utilization: 1}}
			v.Serving = []watch.ThreadSample{{PID: 10, TID: 10, Comm: "smbd", ProcessComm: "smbd", CPUPct: 20, WaitPct: 75}}
		}), "server-cpu", "all CPUs of the server", "waited for a CPU 75%"},
		{"busy member under md", ShareInfo{Protocol: "nfs"}, view(func(v *ShareServerView) {
			v.Bottlenecks = []watch.Bottleneck{{Kind: "disk", Subject: "sdb", Stack: []string{"md0", "sdb"}, Utilization: 0.99, Why: "busy"}}
		}), "disk", "sdb", "busy"},
		{"a busy disk not under the share", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {
			v.Bottlenecks = []watch.Bottleneck{{Kind: "disk", Subject: "sdz", Utilization: 0.99, Why: "busy"}}
		}), "protocol", "nas", "in flight"},
		{"client", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) { v.ClientCPUPct = 95 }), "client", "this client", "95%"},
		{"one nfsd thread", ShareInfo{Protocol: "nfs"}, view(func(v *ShareServerView) {
			v.Settings["nfsd threads"] = "1\n"
			v.Bottlenecks = []watch.Bottleneck{{Kind: "cpu", Subject: "nfsd threads", Utilization: 0.94, Why: "NFS requests wait for a free nfsd thread"}}
		}), "server-cpu", "nfsd threads", "the cost is one nfsd thread"},
		{"8 nfsd threads", ShareInfo{Protocol: "nfs"}, view(func(v *ShareServerView) {
			v.Settings["nfsd threads"] = "8"
			v.Bottlenecks = []watch.Bottleneck{{Kind: "cpu", Subject: "nfsd threads", Utilization: 0.5, Why: "NFS requests wait for a free nfsd thread"}}
		}), "server-cpu", "nfsd threads", "nfsd's 8 threads"},
		{"nothing saturated", ShareInfo{Protocol: "smb"}, view(func(v *ShareServerView) {}), "protocol", "nas", "8 request(s) of 1024 KiB"},
		// nfsd's pool exhausted and the device under the share busy: the
		// device's queue depth against what the pool issues decides
		// (the kernel lab's CI run: dm-0 97% busy at queue depth 2.2
		// under 1 thread, the pool at 96%).
		{"1 nfsd thread, the device at the depth it gives", ShareInfo{Protocol: "nfs"}, poolAndDisk("1", 2.2, 0), "server-cpu", "nfsd threads",
			"1 thread: dm-0 answers 1 request at a time (queue depth 2.2) at 20.5 ms each; more threads raise its queue depth"},
		{"1 nfsd thread, the device at the depth it gives, the pool listed first", ShareInfo{Protocol: "nfs"}, func() *ShareServerView {
			v := poolAndDisk("1", 2.2, 0)
			v.Bottlenecks[0], v.Bottlenecks[1] = v.Bottlenecks[1], v.Bottlenecks[0]
			return v
		}(), "server-cpu", "nfsd threads", "dm-0 answers 1 request at a time (queue depth 2.2) at 20.5 ms each"},
		{"1 nfsd thread, the device at the margin", ShareInfo{Protocol: "nfs"}, poolAndDisk("1", 3, 0), "server-cpu", "nfsd threads", "more threads raise its queue depth"},
		{"1 nfsd thread, the device queued clearly deeper", ShareInfo{Protocol: "nfs"}, poolAndDisk("1", 6, 0), "disk", "dm-0", "dm-0 is busy"},
		{"8 nfsd threads, the device at the depth they give", ShareInfo{Protocol: "nfs"}, poolAndDisk("8", 15.7, 0), "server-cpu", "nfsd threads", "8 threads: dm-0 answers 8 requests at a time"},
		{"8 nfsd threads, the device queued deeper", ShareInfo{Protocol: "nfs"}, poolAndDisk("8", 40, 0), "disk", "dm-0", "dm-0 is busy"},
		{"1 nfsd thread, the device at its path's ceiling", ShareInfo{Protocol: "nfs"}, poolAndDisk("1", 2, 40e6), "disk", "dm-0", "dm-0 is busy"},
		{"nfsd thread count unknown", ShareInfo{Protocol: "nfs"}, poolAndDisk("", 2.2, 0), "disk", "dm-0", "dm-0 is busy"},
		{"a device without a queue depth (an older server)", ShareInfo{Protocol: "nfs"}, poolAndDisk("1", 0, 0), "disk", "dm-0", "dm-0 is busy"},
	} {
		res := &ShareResult{URL: "smb://nas/data", ShareInfo: c.info, Streams: 2, InFlight: 4, BlockSize: 1 << 20,
			Tests:  []TestResult{{Name: "seqread", MiBPerS: 40, LatUS: Lat{P50: 20000}}},
			TCP:    &ShareTCP{DownBitsPerSecond: 940e6},
			Server: map[string]*ShareServerView{"seqread": c.v}}
		got := shareLimits(res)
		if len(got) != 1 || got[0].Layer != c.layer || got[0].Subject != c.subject || !strings.Contains(got[0].Why, c.inWhy) || len(got[0].Evidence) < 2 {
			t.Errorf("%s: %+v, want %s on %s with %q", c.name, got, c.layer, c.subject, c.inWhy)
		}
	}
}

// A test longer than a second reports one line per second (the bytes of
// the lines add up to at most the test's), and --time ends it early.
func TestRunShareIntervals(t *testing.T) {
	d := &dirFS{root: t.TempDir(), slow: 100 * time.Millisecond}
	o := shareOpts(d)
	o.Tests = []string{"seqread"}
	o.Streams, o.Block, o.Time = 1, 64<<10, 2500*time.Millisecond // 4 reads in flight, 40/s at most: 64 MiB takes minutes
	o.Size = 64 << 20
	var lines []Interval
	var mu sync.Mutex
	o.OnInterval = func(test string, run int, iv Interval) {
		mu.Lock()
		defer mu.Unlock()
		if test != "seqread" || run != 0 {
			t.Errorf("line for %s run %d", test, run)
		}
		lines = append(lines, iv)
	}
	res, err := RunShare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Tests[0]
	if tr.Bytes <= 0 || tr.Bytes >= o.Size || tr.Seconds < 2.4 {
		t.Errorf("--time 2.5s: %+v", tr)
	}
	mu.Lock()
	defer mu.Unlock()
	var sum int64
	for _, iv := range lines {
		sum += iv.Bytes
		if iv.End-iv.Start < 0.5 || iv.Bytes <= 0 {
			t.Errorf("interval %+v", iv)
		}
	}
	if len(lines) < 2 || sum > tr.Bytes {
		t.Errorf("%d lines, %d bytes in them, %d in the test", len(lines), sum, tr.Bytes)
	}
}

// A --size below one request per stream says which flags to change.
func TestRunShareSizeBelowOneRequestPerStream(t *testing.T) {
	d := &dirFS{root: t.TempDir()}
	o := shareOpts(d)
	o.Size, o.Block, o.Streams = 16<<20, 16<<20, 2
	_, err := RunShare(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "give a larger --size, a smaller --bs or a smaller -P") || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("--size 16M --bs 16M -P 2: %v", err)
	}
}

// A folder the user may not write to: the error says what it means.
func TestRunShareReadOnlyFolder(t *testing.T) {
	d := &dirFS{root: t.TempDir(), createErr: &os.PathError{Op: "open", Path: "x", Err: os.ErrPermission}}
	o := shareOpts(d)
	_, err := RunShare(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "the share is read-only or this user may not write in this folder") {
		t.Errorf("a read-only folder: %v", err)
	}
}

// TestShareLimitsLab: the verdicts of two real runs in the kernel lab
// (test/kernellab, scenario nfsshare: Debian's 6.1 nfsd on loopback in
// qemu, an XFS export on a dm-delay device with 20 ms per read, the page
// cache dropped every 0.2 s, `nastune bench net -s` beside nfsd, `bench
// share -P 8 --tests seqread --size 32M --time 5 --repeat 3 --save`),
// judged again from what the server saw: with 1 nfsd thread its pool (93%
// of the hand-overs waited for the one thread) and the cost; with 8 the
// pool waited 67%, but every CPU of the guest was busy, so not the threads.
func TestShareLimitsLab(t *testing.T) {
	for _, c := range []struct {
		file                  string
		layer, subject, inWhy string
	}{
		{"lab-nfsd-1-thread.json", "server-cpu", "nfsd threads", "the cost is one nfsd thread"},
		{"lab-nfsd-8-threads.json", "protocol", "127.0.0.1", "the server's CPUs were all busy"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var res ShareResult
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		res.Limit = nil
		got := shareLimits(&res)
		if len(got) != 1 || got[0].Layer != c.layer || got[0].Subject != c.subject || !strings.Contains(got[0].Why, c.inWhy) {
			t.Errorf("%s: %+v, want %s on %s with %q", c.file, got, c.layer, c.subject, c.inWhy)
		}
	}
}
