package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
)

// diskDir is a folder on a filesystem that takes O_DIRECT (not tmpfs).
func diskDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{os.Getenv("NASTUNE_BENCH_DIR"), "/var/tmp", t.TempDir()} {
		if d == "" {
			continue
		}
		probe := filepath.Join(d, ".nastune-odirect-probe")
		fd, err := unix.Open(probe, unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT, 0o600)
		if err == nil {
			unix.Close(fd)
			os.Remove(probe)
			dir, err := os.MkdirTemp(d, "nastune-bench-test-")
			if err != nil {
				continue
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	t.Skip("no filesystem here accepts O_DIRECT")
	return ""
}

func TestLifecycleAndCounts(t *testing.T) {
	dir := diskDir(t)
	f := filepath.Join(dir, "b.bin")
	r, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 32 << 20, Runtime: 3 * time.Second,
		Tests: []string{"seqread-direct", "seqwrite-buffered", "randread4k-qd32"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Error("the test file must be removed without --keep")
	}
	// One full pass within a generous runtime: exactly the file size.
	if r.Tests[0].Bytes != 32<<20 || r.Tests[1].Bytes != 32<<20 {
		t.Errorf("sequential byte counts: %d, %d", r.Tests[0].Bytes, r.Tests[1].Bytes)
	}
	if r.Tests[2].IOPS <= 0 || r.Tests[2].Bytes%4096 != 0 || r.Tests[2].LatUS.P99 < r.Tests[2].LatUS.P50 {
		t.Errorf("random: %+v", r.Tests[2])
	}
	// --keep keeps it, marked as ours: a second run may reuse it.
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Keep: true, Tests: []string{"seqread-buffered"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); err != nil {
		t.Fatal("--keep must keep the file")
	}
	// A second bench on the same file at the same time: refused, file kept.
	lk, _ := os.Open(f)
	unix.Flock(int(lk.Fd()), unix.LOCK_EX)
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("concurrent run: %v", err)
	}
	lk.Close()
	if _, err := os.Stat(f); err != nil {
		t.Fatal("a refused concurrent run must not remove the other run's file")
	}
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}}); err != nil {
		t.Errorf("reusing nastune's own file: %v", err)
	}
}

func TestRefusesToClobber(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "precious.db")
	os.WriteFile(f, []byte("user data\n"), 0o600)
	_, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}})
	if !errors.Is(err, ErrNotOurs) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(f); string(b) != "user data\n" {
		t.Fatal("the user's file was touched")
	}
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Force: true, Keep: true, Tests: []string{"seqread-buffered"}}); err != nil {
		t.Fatalf("--force: %v", err)
	}
}

func TestTmpfsSkipsDirect(t *testing.T) {
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) != nil || st.Type != unix.TMPFS_MAGIC {
		t.Skip("no tmpfs at /dev/shm")
	}
	// A folder of its own: test binaries of other checkouts may run this
	// test at the same time.
	dir, err := os.MkdirTemp("/dev/shm", "nastune-bench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := filepath.Join(dir, "t.bin")
	directOK := false
	if fd, err := unix.Open(f, unix.O_CREAT|unix.O_RDWR|unix.O_DIRECT, 0o600); err == nil {
		unix.Close(fd)
		os.Remove(f)
		directOK = true // Linux 6.6 and later
	}
	r, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-direct", "seqread-buffered"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.MemoryBacked != "tmpfs" {
		t.Errorf("a file on tmpfs must be flagged memory-backed: %q", r.MemoryBacked)
	}
	if !directOK && !strings.Contains(r.Tests[0].Skipped, "O_DIRECT") || r.Tests[1].Skipped != "" || r.Tests[1].Bytes == 0 {
		t.Errorf("%+v", r.Tests)
	}
	// Where tmpfs takes O_DIRECT (Linux 6.6 and later) the direct test runs.
	if directOK && (r.Tests[0].Skipped != "" || r.Tests[0].Bytes == 0) {
		t.Errorf("tmpfs takes O_DIRECT here, yet the direct test did not run: %+v", r.Tests[0])
	}
}

// RAM is what sysfs says: zram's attributes, brd's major 1, a loop device
// whose backing file is on tmpfs; a disk, an NVMe drive, an md array and a
// loop device over a file on disk are not.
func TestMemoryDevices(t *testing.T) {
	dir := t.TempDir()
	v := "sys/devices/virtual/block/"
	files := map[string]string{
		v + "zram0/dev": "252:0\n", v + "zram0/initstate": "1\n", v + "zram0/disksize": "1048576\n",
		v + "ram3/dev": "1:3\n",
		v + "md0/dev":  "9:0\n", v + "md0/md/level": "raid1\n",
		"sys/devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda/dev":             "8:0\n",
		"sys/devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda/device -> ../..": "",
		"sys/devices/pci0000:00/0000:01:00.0/nvme/nvme0/nvme0n1/dev":                      "259:0\n",
		v + "loop0/dev": "7:0\n", v + "loop0/loop/backing_file": dir + "/disk.img\n",
	}
	if err := os.WriteFile(dir+"/disk.img", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"zram0": true, "ram3": true, "md0": false, "sda": false, "nvme0n1": false, "loop0": false}
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) == nil && int64(st.Type) == unix.TMPFS_MAGIC {
		f, err := os.CreateTemp("/dev/shm", "nastune-test-*.img")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		t.Cleanup(func() { os.Remove(f.Name()) })
		files[v+"loop1/dev"], files[v+"loop1/loop/backing_file"] = "7:1\n", f.Name()+"\n"
		want["loop1"] = true
	}
	for name := range want {
		real := map[string]string{"sda": "devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda",
			"nvme0n1": "devices/pci0000:00/0000:01:00.0/nvme/nvme0/nvme0n1"}[name]
		if real == "" {
			real = "devices/virtual/block/" + name
		}
		files["sys/block/"+name+" -> ../"+real] = ""
		files["sys/class/block/"+name+" -> ../../"+real] = ""
	}
	fixture.WriteTree(t, dir, files)
	sys := blockdev.At(hostfs.Live(), dir+"/sys")
	for name, w := range want {
		d, err := sys.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := memoryDevice(sys, d); (got != "") != w {
			t.Errorf("%s (%s): %q", name, d.Kind, got)
		}
	}
}

func TestAlignedBuffers(t *testing.T) {
	b, free, err := alignedBuf(3 * 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	if uintptr(unsafe.Pointer(&b[0]))%4096 != 0 || len(b) != 3*4096 {
		t.Error("O_DIRECT buffers must be page-aligned")
	}
}

func TestHistogram(t *testing.T) {
	var h hist
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	if p := h.quantile(0.5); p < 450 || p > 560 {
		t.Errorf("p50 %v", p)
	}
	if p := h.quantile(0.99); p < 900 || p > 1100 {
		t.Errorf("p99 %v", p)
	}
}

func startServer(t *testing.T, token string) *Server {
	t.Helper()
	s := &Server{Addr: "127.0.0.1:0", Token: token}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go s.Serve(ctx)
	return s
}

func TestNetLoopback(t *testing.T) {
	s := startServer(t, "secret")
	for _, rev := range []bool{false, true} {
		r, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Token: "secret", Streams: 2, Duration: time.Second, Reverse: rev})
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes <= 0 || r.BitsPerSecond <= 0 || r.Seconds < 0.9 {
			t.Errorf("reverse=%v: %+v", rev, r)
		}
	}
}

// TestHostileClients: the server refuses garbage, oversize headers, wrong
// tokens, out-of-range requests and stray data connections, keeps
// serving, and runs one test at a time.
func TestHostileClients(t *testing.T) {
	s := startServer(t, "secret")
	send := func(payload string) string {
		c, err := net.Dial("tcp", s.Address())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte(payload))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	for payload, want := range map[string]string{
		"garbage\n": "bad header",
		`{"v":2,"token":"wrong","streams":1,"seconds":1}` + "\n":     "bad token",
		`{"v":2,"token":"secret","streams":99,"seconds":1}` + "\n":   "streams 1-16",
		`{"v":2,"token":"secret","streams":1,"seconds":3600}` + "\n": "seconds 1-60",
		`{"v":9,"token":"secret","streams":1,"seconds":1}` + "\n":    "protocol version",
		`{"v":1,"token":"secret","streams":1,"seconds":1}` + "\n":    "protocol version",
		strings.Repeat("x", 10000):                                   "", // no newline within the limit: dropped
		"NASTUNE-DATA deadbeef\n":                                    "", // a data hello for no test: dropped
	} {
		if got := send(payload); !strings.Contains(got, want) || (want == "" && got != "") {
			t.Errorf("%.30q: got %q, want %q", payload, got, want)
		}
	}
	// A client that connects and says nothing is dropped after the hello
	// timeout, and a second client waits for its turn.
	idle, _ := net.Dial("tcp", s.Address())
	defer idle.Close()
	// The second client asks once the first one's data flows (its first
	// progress report), not after a fixed pause a busy machine outlasts.
	done := make(chan error, 1)
	running := make(chan struct{})
	var once sync.Once
	go func() {
		_, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Token: "secret", Streams: 1, Duration: 2 * time.Second,
			Progress: func(float64) { once.Do(func() { close(running) }) }})
		done <- err
	}()
	select {
	case <-running:
	case err := <-done:
		t.Fatalf("the first test ended before it ran: %v", err)
	}
	if got := send(`{"v":2,"token":"secret","streams":1,"seconds":1}` + "\n"); !strings.Contains(got, `"wait":1`) {
		t.Errorf("second test while busy: %q", got)
	}
	if err := <-done; err != nil {
		t.Errorf("the first test must still finish: %v", err)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("a silent connection must be closed by the server after 3 s: %v", err)
	}
	// Still serving after all that.
	if _, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Token: "secret", Streams: 1, Duration: time.Second}); err != nil {
		t.Errorf("after hostile clients: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serverSockets counts the server's TCP sockets (local port) per state in
// /proc/net/tcp: "08" is CLOSE_WAIT.
func serverSockets(t *testing.T, addr string) map[string]int {
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip("no /proc/net/tcp")
	}
	states := map[string]int{}
	for _, l := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) > 3 && strings.HasSuffix(f[1], fmt.Sprintf(":%04X", p)) {
			states[f[3]]++
		}
	}
	return states
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// Issue 15: 40+ idle connections (from one address, then from several)
// must not lock a real client out; slots are freed; nothing leaks.
func TestIdleFloodAndLeaks(t *testing.T) {
	// No garbage collection meanwhile: its finalizers would close
	// forgotten sockets and hide the leak this test looks for.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s := startServer(t, "secret")
	fds0 := openFDs() // the listener and the poller are open from here on
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	dial := func(local string) {
		d := net.Dialer{Timeout: 2 * time.Second}
		if local != "" {
			d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
		}
		c, err := d.Dial("tcp", s.Address())
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	for i := 0; i < 45; i++ {
		dial("")
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Token: "secret", Streams: 4, Duration: time.Second}); err != nil {
		t.Fatalf("a real client behind 45 idle connections: %v", err)
	}
	// From four addresses: 80 idle connections, above the total cap.
	for _, a := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		for i := 0; i < 20; i++ {
			dial(a)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Token: "secret", Streams: 2, Duration: time.Second}); err != nil {
		t.Fatalf("a real client behind 80 idle connections from 4 addresses: %v", err)
	}
	for _, c := range idle {
		c.Close()
	}
	idle = nil
	// After the clients are gone: no CLOSE_WAIT, no leaked descriptors.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := serverSockets(t, s.Address())
		leak := openFDs() - fds0
		if st["08"] == 0 && leak <= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leaks: %d CLOSE_WAIT sockets, %d more fds than before (states %v)", st["08"], leak, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Issue 15: caps per test. Reverse mode stops at --max-bytes; a client
// that never says DONE loses the slot at its announced time plus 2 s,
// and the next client in line gets its turn.
func TestServerCaps(t *testing.T) {
	s := &Server{Addr: "127.0.0.1:0", MaxBytes: 64 << 20}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	r, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Streams: 2, Duration: 3 * time.Second, Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Capped != "max-bytes" || r.Bytes > 64<<20+4<<20 {
		t.Errorf("reverse past the byte cap: capped %q, %d bytes", r.Capped, r.Bytes)
	}
	// A control connection that holds the slot and never finishes.
	c, err := net.Dial("tcp", s.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(`{"v":2,"streams":1,"seconds":1}` + "\n"))
	br := bufio.NewReader(c)
	if l, _ := br.ReadString('\n'); !strings.Contains(l, `"ok":true`) {
		t.Fatalf("hog: %q", l)
	}
	start := time.Now()
	r, err = RunNet(context.Background(), NetOptions{Server: s.Address(), Streams: 1, Duration: time.Second})
	if err != nil {
		t.Fatalf("the next in line: %v", err)
	}
	if w := time.Since(start); w > 6*time.Second {
		t.Errorf("waited %v behind a 1 s test", w)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if l, _ := br.ReadString('\n'); !strings.Contains(l, `"capped":"time"`) {
		t.Errorf("the hog's final reply: %q", l)
	}
}

// The client prints (here: collects) one interval per second.
func TestIntervalsAndRepeat(t *testing.T) {
	s := startServer(t, "")
	stall := measureStalls()
	var gotRuns []struct {
		run int
		iv  Interval
	}
	r, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Streams: 1, Duration: 2 * time.Second, Repeat: 2,
		Interval: 500 * time.Millisecond, OnInterval: func(run int, iv Interval) {
			gotRuns = append(gotRuns, struct {
				run int
				iv  Interval
			}{run, iv})
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 2 || r.SpreadLo > r.BitsPerSecond || r.SpreadHi < r.BitsPerSecond {
		t.Errorf("%d intervals, %+v", len(gotRuns), r)
	}
	// Counted from the intervals themselves, not the wall clock: each
	// run's intervals follow one another from 0 to its 2 s, the k-th
	// ending at a tick (k×0.5 s or later) or at the end. A busy machine
	// delays ticks, and a tick more than an interval late is dropped, so
	// there are 4 per run unless this process was held off the CPU for
	// about an interval, which a 50 ms ticker of the test's own measured.
	stalled := stall()
	runs := map[int][]Interval{}
	for _, g := range gotRuns {
		runs[g.run] = append(runs[g.run], g.iv)
	}
	if len(runs) != 2 {
		t.Errorf("intervals of %d runs, want 2", len(runs))
	}
	for run, ivs := range runs {
		prev := 0.0
		for i, iv := range ivs {
			if math.Abs(iv.Start-prev) > 1e-6 {
				t.Errorf("run %d interval %d starts at %v, the one before ended at %v", run, i, iv.Start, prev)
			}
			if i < len(ivs)-1 && iv.End < 0.5*float64(i+1)-0.01 {
				t.Errorf("run %d interval %d ends at %.3f s, before its tick at %.1f s", run, i, iv.End, 0.5*float64(i+1))
			}
			prev = iv.End
		}
		if math.Abs(prev-2) > 1e-6 {
			t.Errorf("run %d intervals end at %v s, want its 2 s", run, prev)
		}
		if n := len(ivs); n > 4 || (n < 4 && stalled < 400*time.Millisecond) {
			t.Errorf("run %d: %d intervals of 0.5 s in 2 s (this process was held off the CPU %v at most): %+v", run, n, stalled, ivs)
		} else if n < 4 {
			t.Logf("run %d: %d intervals: this process was held off the CPU up to %v, and a late tick is dropped", run, n, stalled)
		}
	}
	// Data flows in every interval, unless this process was held off the
	// CPU for a good part of one (then only in every run).
	for run, ivs := range runs {
		total := int64(0)
		for _, iv := range ivs {
			total += iv.Bytes
			if iv.Bytes < 0 || iv.End <= iv.Start || (iv.Bytes == 0 && stalled < 200*time.Millisecond) {
				t.Errorf("run %d interval %+v (held off the CPU %v at most)", run, iv, stalled)
			}
		}
		if total <= 0 {
			t.Errorf("run %d moved nothing: %+v", run, ivs)
		}
	}
	if WithPort("10.0.0.1") != "10.0.0.1:5201" || WithPort("::1") != "[::1]:5201" || WithPort("[::1]") != "[::1]:5201" || WithPort("h:80") != "h:80" {
		t.Error("default port 5201")
	}
}

// measureStalls ticks every 50 ms until the returned function is called,
// which returns the longest this process waited past a tick: how long
// the machine held it off the CPU.
func measureStalls() func() time.Duration {
	stop, done := make(chan struct{}), make(chan time.Duration)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		var worst time.Duration
		last := time.Now()
		for {
			select {
			case <-stop:
				done <- worst
				return
			case <-tick.C:
				t := time.Now()
				worst = max(worst, t.Sub(last)-50*time.Millisecond)
				last = t
			}
		}
	}()
	return func() time.Duration { close(stop); return <-done }
}

func TestCompare(t *testing.T) {
	b := []byte(`{"kind":"disk","tests":[{"name":"seqread-direct","mib_per_s":100},{"name":"randread4k-qd1","mib_per_s":40,"runs":3,"spread_lo":38,"spread_hi":42}]}`)
	a := []byte(`{"kind":"disk","tests":[{"name":"seqread-direct","mib_per_s":103},{"name":"randread4k-qd1","mib_per_s":50,"runs":3,"spread_lo":48,"spread_hi":52}]}`)
	rows, err := Compare(b, a)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	if rows[0].Significant || !rows[1].Significant || rows[1].Change != 25 || rows[0].Unit != "MB/s" {
		t.Errorf("%+v", rows)
	}
	// Random tests in IOPS, with the spread scaled alike.
	b = []byte(`{"kind":"disk","tests":[{"name":"randread4k-qd32","mib_per_s":100,"iops":25600,"runs":3,"spread_lo":99,"spread_hi":101}]}`)
	a = []byte(`{"kind":"disk","tests":[{"name":"randread4k-qd32","mib_per_s":100.5,"iops":25728,"runs":3,"spread_lo":100,"spread_hi":102}]}`)
	rows, err = Compare(b, a)
	if err != nil || len(rows) != 1 || rows[0].Unit != "IOPS" || rows[0].Before != 25600 || rows[0].Significant || !strings.Contains(rows[0].Note, "25344-25856") {
		t.Errorf("IOPS: %+v %v", rows, err)
	}
	if _, err := Compare(b, []byte(`{"kind":"net"}`)); err == nil {
		t.Error("disk vs net must fail")
	}
	if _, err := Compare([]byte(`{}`), []byte(`{}`)); err == nil {
		t.Error("no kind must fail")
	}
}

func TestParseFioAndIperf3(t *testing.T) {
	r, err := ParseFio("randread4k-qd32", []byte(`{"jobs":[{"read":{"io_bytes":4096000,"bw_bytes":2048000,"iops":500,"runtime":2000,"clat_ns":{"percentile":{"50.000000":64000,"99.000000":128000}}}}]}`))
	if err != nil || r.MiBPerS < 1.95 || r.IOPS != 500 || r.LatUS.P50 != 64 || r.LatUS.P99 != 128 || r.Seconds != 2 {
		t.Errorf("fio: %+v %v", r, err)
	}
	if r, err := ParseFio("seqread-direct", []byte("note: both iodepth >= 1 and synchronous I/O engine are selected\n{\"jobs\":[{\"read\":{\"io_bytes\":1}}]}")); err != nil || r.Bytes != 1 {
		t.Errorf("fio with a note before its JSON: %+v %v", r, err)
	}
	n, err := ParseIperf3([]byte(`{"end":{"sum_sent":{"retransmits":3},"sum_received":{"bytes":1000,"seconds":1,"bits_per_second":8000},"cpu_utilization_percent":{"host_total":12.5,"remote_total":30}}}`))
	if err != nil || n.BitsPerSecond != 8000 || n.Retransmits != 3 || n.CPUServerPct != 30 {
		t.Errorf("iperf3: %+v %v", n, err)
	}
	if _, err := ParseIperf3([]byte(`{"error":"unable to connect"}`)); err == nil {
		t.Error("iperf3 error")
	}
}

// Issue 15: a symlink swapped in for the test file's name during the run
// is never followed (the tests use the descriptor opened once), and the
// final cleanup does not remove what is not ours.
func TestSwappedNameNotFollowed(t *testing.T) {
	dir := diskDir(t)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	f := filepath.Join(dir, "b.bin")
	swapped := false
	_, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second,
		Tests: []string{"seqread-buffered", "seqwrite-buffered", "seqwrite-direct", "randwrite4k-qd1"},
		Progress: func(test string, _ float64) {
			if test == "seqread-buffered" && !swapped {
				swapped = true
				os.Rename(f, f+".moved")
				os.Symlink(victim, f)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !swapped {
		t.Fatal("no swap happened")
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("the victim was written through the swapped link")
	}
	if st, err := os.Lstat(f); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the planted link is not ours to remove")
	}
	// A symlink as --file from the start: refused.
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Force: true, Tests: []string{"seqread-buffered"}}); err == nil {
		t.Error("a symlinked --file must be refused, even with --force")
	}
	// A hard link to another file: refused even with --force.
	os.Remove(f)
	os.Link(victim, f)
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Force: true, Tests: []string{"seqread-buffered"}}); err == nil {
		t.Error("a hard-linked --file must be refused, even with --force")
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("the victim was written through a hard link")
	}
	// A FIFO as --file: refused, not hung on.
	os.Remove(f)
	unix.Mkfifo(f, 0o600)
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Force: true, Tests: []string{"seqread-buffered"}}); err == nil {
		t.Error("a FIFO --file must be refused")
	}
	// Kernel filesystems: refused.
	if _, err := RunDisk(context.Background(), DiskOptions{File: "/proc/nastune-bench", Size: 16 << 20, Tests: []string{"seqread-buffered"}}); err == nil || !strings.Contains(err.Error(), "kernel filesystem") {
		t.Errorf("/proc: %v", err)
	}
}

// Issue 15: fio splits --filename on ':'; nastune hands it the open file
// as fd 3, so "a:victim" cannot make fio write "victim".
func TestFioColonInName(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("fio not installed: make test installs it")
		}
		t.Skip("fio not installed (Debian package fio)")
	}
	dir := diskDir(t)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	f := filepath.Join(dir, "a:victim")
	r, err := RunFio(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Repeat: 2,
		Tests: []string{"seqwrite-buffered", "randread4k-qd1"}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatal("fio wrote the victim")
	}
	for _, tr := range r.Tests {
		if tr.Skipped != "" || tr.Bytes == 0 || tr.Runs != 2 {
			t.Errorf("%+v", tr)
		}
	}
	// Sequential: exactly the data area, not the header.
	if r.Tests[0].Bytes != 16<<20 {
		t.Errorf("fio wrote %d bytes, want %d", r.Tests[0].Bytes, 16<<20)
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Error("the test file must be removed")
	}
}

// Ctrl-C while the test file is being written stops at once and removes it.
func TestInterruptWhilePreparing(t *testing.T) {
	dir := diskDir(t)
	f := filepath.Join(dir, "prep.bin")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := RunDisk(ctx, DiskOptions{File: f, Size: 256 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"},
		Progress: func(test string, frac float64) {
			if strings.HasPrefix(test, "preparing") && frac > 0 {
				cancel()
			}
		}})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Error("the half-written file must be removed")
	}
}

// helperEnv re-runs this test binary as a child for the signal and
// namespace tests.
const helperEnv = "NASTUNE_BENCH_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "run":
		// A bench run as the CLI does it: cancelled by SIGINT/SIGTERM/SIGHUP.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
		_, err := RunDisk(ctx, DiskOptions{File: os.Getenv("NASTUNE_BENCH_FILE"), Size: 64 << 20, Runtime: 30 * time.Second,
			Tests: []string{"randread4k-qd1", "randread4k-qd1"}})
		if errors.Is(err, ErrInterrupted) {
			os.Exit(3)
		}
		os.Exit(1)
	case "nofree":
		os.Exit(noFreeSpace())
	case "loop":
		os.Exit(loopOnTmpfs())
	case "share":
		os.Exit(shareHelper())
	case "netserver":
		os.Exit(netServerHelper())
	case "shareclient":
		os.Exit(shareClientHelper())
	case "sharereq":
		os.Exit(shareRequestHelper())
	}
	os.Exit(m.Run())
}

func helper(t *testing.T, mode, file string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "NASTUNE_BENCH_FILE="+file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func waitFile(t *testing.T, f string, size int64) {
	for i := 0; i < 200; i++ {
		if st, err := os.Stat(f); err == nil && st.Size() >= size {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the helper never made its file")
}

// Issue 15: SIGINT, SIGTERM and SIGHUP remove the test file; a SIGKILL'd
// run's leftover is recognised as ours by the next run, reused, removed.
func TestSignalsAndLeftovers(t *testing.T) {
	dir := diskDir(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		f := filepath.Join(dir, "sig.bin")
		cmd := helper(t, "run", f)
		waitFile(t, f, 32<<20)
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("%v: exit %v, want 3 (interrupted)", sig, err)
		}
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v left the test file", sig)
		}
	}
	f := filepath.Join(dir, "killed.bin")
	cmd := helper(t, "run", f)
	waitFile(t, f, 1)
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(f); err != nil {
		t.Fatal("SIGKILL leaves the file (nothing can catch it)")
	}
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}}); err != nil {
		t.Fatalf("the next run refused its own leftover: %v", err)
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Error("the leftover must be removed after the run")
	}
}

// noFreeSpace runs inside `unshare -m`: a 24 MiB tmpfs cannot hold a
// 32 MiB test file; the run must refuse before writing and leave nothing.
func noFreeSpace() int {
	dir, err := os.MkdirTemp("", "bench-nofree-")
	if err != nil {
		return 10
	}
	// The folder is on the host's /tmp (only the tmpfs over it is private
	// to the namespace): removed on every return, failures included.
	defer os.Remove(dir)
	if err := unix.Mount("bench-nofree", dir, "tmpfs", 0, "size=24m"); err != nil {
		return 11
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	f := filepath.Join(dir, "big.bin")
	r, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 32 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}})
	if err == nil || !strings.Contains(err.Error(), "free") {
		return 12
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		return 13
	}
	// It fits: runs, is flagged as memory, leaves nothing.
	r, err = RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}})
	if err != nil || r.MemoryBacked != "tmpfs" {
		return 14
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		return 15
	}
	return 0
}

func TestNoFreeSpaceInNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a tmpfs in a mount namespace")
	}
	us, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed (util-linux)")
	}
	cmd := exec.Command(us, "-m", "--propagation", "private", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=nofree")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v %s (codes: 12 no refusal, 13/15 leftover, 14 not flagged tmpfs)", err, out)
	}
}

// loopOnTmpfs runs inside `unshare -m`: ext4 on a loop device whose
// backing file is on tmpfs is RAM, and must be flagged so.
func loopOnTmpfs() int {
	dir, err := os.MkdirTemp("", "bench-loop-")
	if err != nil {
		return 10
	}
	defer os.RemoveAll(dir)
	if err := unix.Mount("bench-loop", dir, "tmpfs", 0, "size=64m"); err != nil {
		return 11
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil || os.Truncate(img, 48<<20) != nil {
		return 12
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		return 13
	}
	dev := strings.TrimSpace(string(out))
	defer exec.Command("losetup", "-d", dev).Run()
	if exec.Command("mkfs.ext4", "-q", dev).Run() != nil {
		return 14
	}
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	if unix.Mount(dev, mnt, "ext4", 0, "") != nil {
		return 15
	}
	defer unix.Unmount(mnt, 0)
	r, err := RunDisk(context.Background(), DiskOptions{File: filepath.Join(mnt, "t.bin"), Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-buffered"}})
	if err != nil {
		return 16
	}
	if !strings.Contains(r.MemoryBacked, "loop device") || !strings.Contains(r.MemoryBacked, "tmpfs") {
		return 17
	}
	return 0
}

func TestLoopOnTmpfsIsMemory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a loop device")
	}
	for _, tool := range []string{"unshare", "losetup", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed")
		}
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		t.Skip("no loop devices here")
	}
	cmd := exec.Command("unshare", "-m", "--propagation", "private", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=loop")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s (13 losetup, 14 mkfs, 15 mount, 16 run failed, 17 not flagged)", err, out)
	}
}

// The iperf3 engine against a real iperf3 server: parsed totals and
// per-second intervals, --repeat with the spread.
func TestIperf3Engine(t *testing.T) {
	ip, err := exec.LookPath("iperf3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("iperf3 not installed: make test installs it")
		}
		t.Skip("iperf3 not installed (Debian package iperf3)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	srv := exec.Command(ip, "-s", "-B", "127.0.0.1", "-p", port)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	time.Sleep(300 * time.Millisecond)
	var ivs int
	r, err := RunIperf3(context.Background(), NetOptions{Server: "127.0.0.1:" + port, Streams: 2, Duration: 2 * time.Second, Repeat: 2,
		OnInterval: func(int, Interval) { ivs++ }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Engine != "iperf3" || r.Bytes <= 0 || r.BitsPerSecond <= 0 || r.Runs != 2 || ivs < 4 || r.SpreadLo > r.BitsPerSecond || r.SpreadHi < r.BitsPerSecond {
		t.Errorf("%d intervals, %+v", ivs, r)
	}
	// nastune's client against an iperf3 server: a clear error.
	if _, err := RunNet(context.Background(), NetOptions{Server: "127.0.0.1:" + port, Streams: 1, Duration: time.Second}); err == nil {
		t.Error("the builtin client must not accept an iperf3 server")
	}
}

// Ctrl-C during --repeat keeps the runs already finished.
func TestNetInterruptedKeepsRuns(t *testing.T) {
	s := startServer(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1600*time.Millisecond, cancel)
	r, err := RunNet(ctx, NetOptions{Server: s.Address(), Streams: 1, Duration: time.Second, Repeat: 3})
	if !errors.Is(err, ErrInterrupted) || r == nil || !r.Interrupted || r.Bytes <= 0 {
		t.Fatalf("%+v %v", r, err)
	}
	// The server is free again at once.
	if _, err := RunNet(context.Background(), NetOptions{Server: s.Address(), Streams: 1, Duration: time.Second}); err != nil {
		t.Errorf("after an interrupted client: %v", err)
	}
}

// Filesystems without fallocate (EOPNOTSUPP) get the file written all the
// same; a real ENOSPC from fallocate fails the run and leaves nothing.
func TestFallocateFallback(t *testing.T) {
	dir := diskDir(t)
	f := filepath.Join(dir, "fa.bin")
	defer func() { fallocate = unix.Fallocate }()
	fallocate = func(int, uint32, int64, int64) error { return unix.EOPNOTSUPP }
	r, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-direct"}})
	if err != nil || r.Tests[0].Bytes != 16<<20 {
		t.Fatalf("without fallocate: %+v %v", r, err)
	}
	fallocate = func(int, uint32, int64, int64) error { return unix.ENOSPC }
	if _, err := RunDisk(context.Background(), DiskOptions{File: f, Size: 16 << 20, Runtime: time.Second, Tests: []string{"seqread-direct"}}); err == nil {
		t.Error("ENOSPC from fallocate must fail the run")
	}
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Error("the failed file must be removed")
	}
}
