// Package netlab builds, for tests, a network path with a real round-trip
// time on a kernel without netem: three network namespaces (client, relay,
// server) joined by two veth pairs,
//
//	client c0 ── r0 [relay namespace] r1 ── s0 server
//
// and a small userspace relay that reads every Ethernet frame arriving on
// r0 or r1 through an AF_PACKET socket, holds it for Opts.Delay and sends it
// out of the other veth. The relay is a wire, not a proxy: client and
// server share one subnet, ARP and TCP pass through it untouched, so the
// kernel TCP of both ends sees the delay (RTT = 2 × Delay) and its own
// window, congestion control and retransmits decide the throughput.
//
// Opts.RateMbit adds a shaper in the relay (each direction): a frame leaves
// no sooner than the link would have finished the frames before it, and a
// frame that would wait longer than the queue limit is dropped, like a
// tbf qdisc with a latency bound. Only the relay holds frames, so both the
// delay and the shaper are one place a test can reason about.
//
// Offloads are turned off on the four veths (ethtool -K): a relay reading
// frames must see wire-sized frames with full checksums. The relay runs in
// the test process: its sockets are opened from a thread that entered the
// relay namespace, so they belong to it wherever they are read. Everything
// (namespaces, sockets) goes when the test ends, also when New fails half
// way. It needs root, iproute2 and ethtool.
package netlab

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Opts shape the path.
type Opts struct {
	// Delay is how long the relay holds each frame, in each direction
	// (the round-trip time is twice it).
	Delay time.Duration
	// RateMbit limits each direction to this many megabits per second
	// (0: no shaper; the relay's own speed is the limit).
	RateMbit float64
	// QueueLimit is the longest a frame waits for the shaper before it is
	// dropped (0: 50 ms). Unused without RateMbit.
	QueueLimit time.Duration
	// Subnet is the /24 the two ends share (default "10.29.0"): the
	// client is .1, the server .2.
	Subnet string
}

// Lab is a built path.
type Lab struct {
	// ClientNS, RelayNS and ServerNS name the namespaces (ip netns).
	ClientNS, RelayNS, ServerNS string
	// ClientAddr and ServerAddr are the ends' IPv4 addresses.
	ClientAddr, ServerAddr string
	// ClientIf and ServerIf are the ends' interface names.
	ClientIf, ServerIf string
	// RTT is the round-trip time the relay adds (2 × Opts.Delay).
	RTT time.Duration

	relay *relay
}

var seq atomic.Int64

// New builds the path and returns it; the test fails if it cannot.
func New(t testing.TB, o Opts) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netlab needs root (network namespaces)")
	}
	for _, tool := range []string{"ip", "ethtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("netlab: %s not installed: make test installs it", tool)
			}
			t.Skipf("netlab: %s not installed", tool)
		}
	}
	if o.Subnet == "" {
		o.Subnet = "10.29.0"
	}
	if o.QueueLimit == 0 {
		o.QueueLimit = 50 * time.Millisecond
	}
	base := fmt.Sprintf("nl%d-%d", os.Getpid(), seq.Add(1))
	l := &Lab{
		ClientNS: base + "-c", RelayNS: base + "-r", ServerNS: base + "-s",
		ClientAddr: o.Subnet + ".1", ServerAddr: o.Subnet + ".2",
		ClientIf: "c0", ServerIf: "s0",
		RTT: 2 * o.Delay,
	}
	// Cleanup is registered before anything exists, so a failure half way
	// leaves nothing behind.
	t.Cleanup(func() {
		if l.relay != nil {
			l.relay.stop()
		}
		for _, ns := range []string{l.ClientNS, l.RelayNS, l.ServerNS} {
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("netlab: %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, ns := range []string{l.ClientNS, l.RelayNS, l.ServerNS} {
		run("ip", "netns", "add", ns)
		run("ip", "-n", ns, "link", "set", "lo", "up")
	}
	// The relay namespace must not answer or originate anything itself.
	run("ip", "netns", "exec", l.RelayNS, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
	run("ip", "-n", l.RelayNS, "link", "add", "name", "r0", "type", "veth", "peer", "name", "c0", "netns", l.ClientNS)
	run("ip", "-n", l.RelayNS, "link", "add", "name", "r1", "type", "veth", "peer", "name", "s0", "netns", l.ServerNS)
	for _, e := range []struct{ ns, dev string }{{l.RelayNS, "r0"}, {l.RelayNS, "r1"}, {l.ClientNS, "c0"}, {l.ServerNS, "s0"}} {
		run("ip", "netns", "exec", e.ns, "ethtool", "-K", e.dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off")
	}
	run("ip", "-n", l.ClientNS, "addr", "add", l.ClientAddr+"/24", "dev", "c0")
	run("ip", "-n", l.ServerNS, "addr", "add", l.ServerAddr+"/24", "dev", "s0")
	for _, e := range []struct{ ns, dev string }{{l.RelayNS, "r0"}, {l.RelayNS, "r1"}, {l.ClientNS, "c0"}, {l.ServerNS, "s0"}} {
		run("ip", "-n", e.ns, "link", "set", e.dev, "up", "promisc", "on")
	}
	r, err := startRelay(l.RelayNS, o)
	if err != nil {
		t.Fatalf("netlab: relay: %v", err)
	}
	l.relay = r
	return l
}

// Exec returns a command that runs name with args in namespace ns.
func Exec(ns, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// Iperf3 runs an iperf3 client (`iperf3 -c ServerAddr -J` and args)
// from the client namespace to an iperf3 server the test started in the
// server namespace, and returns the bits per second the receiver counted.
func (l *Lab) Iperf3(args ...string) (float64, error) {
	out, err := Exec(l.ClientNS, "iperf3", append([]string{"-c", l.ServerAddr, "-J"}, args...)...).Output()
	if err != nil {
		return 0, fmt.Errorf("iperf3 -c %s %v: %v\n%s", l.ServerAddr, args, err, out)
	}
	var r struct {
		Error string `json:"error"`
		End   struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("iperf3 json: %v\n%s", err, out)
	}
	if r.Error != "" || r.End.SumReceived.BitsPerSecond <= 0 {
		return 0, fmt.Errorf("iperf3 -c %s %v: no stream measured: %s", l.ServerAddr, args, r.Error)
	}
	return r.End.SumReceived.BitsPerSecond, nil
}

// PingRTT is ping's fastest round trip from the client to the server
// over n echoes (ping from iputils).
func (l *Lab) PingRTT(n int) (time.Duration, error) {
	out, err := Exec(l.ClientNS, "ping", "-n", "-q", "-c", strconv.Itoa(n), "-i", "0.2", l.ServerAddr).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("ping: %v: %s", err, out)
	}
	m := pingRTT.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no round-trip time in ping's output: %s", out)
	}
	ms, _ := strconv.ParseFloat(string(m[1]), 64)
	return time.Duration(ms * float64(time.Millisecond)), nil
}

var pingRTT = regexp.MustCompile(`= ([0-9.]+)/`)

// Check fails the test unless the path works as staged: ping's fastest
// round trip is between RTT and RTT + slack. On a busy machine the relay
// may fall behind for a moment, so it tries three times, a second apart,
// and fails naming the CPU pressure.
func (l *Lab) Check(t testing.TB, slack time.Duration) {
	t.Helper()
	if _, err := exec.LookPath("ping"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("netlab: ping not installed (Debian package iputils-ping): make test installs it")
		}
		t.Skip("netlab: ping not installed (Debian package iputils-ping)")
	}
	var last string
	for try := 0; try < 3; try++ {
		rtt, err := l.PingRTT(5)
		if err == nil && rtt >= l.RTT && rtt <= l.RTT+slack {
			return
		}
		last = fmt.Sprintf("ping min %v, want %v-%v (err %v)", rtt, l.RTT, l.RTT+slack, err)
		t.Logf("netlab: path not as staged (try %d): %s", try+1, last)
		time.Sleep(time.Second)
	}
	psi, _ := os.ReadFile("/proc/pressure/cpu")
	t.Fatalf("netlab: the path is not as staged after 3 tries: %s; CPU pressure: %s", last, strings.TrimSpace(string(psi)))
}

// Stats returns the frames the relay forwarded and dropped (shaper queue
// full), both directions together.
func (l *Lab) Stats() (forwarded, dropped int64) {
	return l.relay.forwarded.Load(), l.relay.dropped.Load()
}

type frame struct {
	due  time.Time
	data []byte
}

type relay struct {
	files              []*os.File
	wg                 sync.WaitGroup
	forwarded, dropped atomic.Int64
}

// startRelay opens a packet socket on r0 and r1 inside namespace ns and
// forwards frames between them.
func startRelay(ns string, o Opts) (*relay, error) {
	fds, err := openInNS(ns, []string{"r0", "r1"})
	if err != nil {
		return nil, err
	}
	r := &relay{}
	for _, fd := range fds {
		// Non-blocking, so the runtime poller reads it and Close ends a
		// pending read.
		if err := unix.SetNonblock(fd, true); err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return nil, err
		}
	}
	for i, fd := range fds {
		r.files = append(r.files, os.NewFile(uintptr(fd), fmt.Sprintf("packet:r%d", i)))
	}
	r.pipe(r.files[0], r.files[1], o)
	r.pipe(r.files[1], r.files[0], o)
	return r, nil
}

// openInNS opens one AF_PACKET socket bound to each device, from a thread
// that entered namespace ns. The thread stays locked and is discarded by
// the runtime when the goroutine ends, so no thread of the test process is
// left in the relay namespace.
func openInNS(ns string, devs []string) ([]int, error) {
	type res struct {
		fds []int
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		fds, err := func() ([]int, error) {
			h, err := os.Open("/var/run/netns/" + ns)
			if err != nil {
				return nil, err
			}
			defer h.Close()
			if err := unix.Setns(int(h.Fd()), unix.CLONE_NEWNET); err != nil {
				return nil, fmt.Errorf("setns %s: %w", ns, err)
			}
			var fds []int
			for _, dev := range devs {
				fd, err := packetSocket(dev)
				if err != nil {
					for _, fd := range fds {
						unix.Close(fd)
					}
					return nil, err
				}
				fds = append(fds, fd)
			}
			return fds, nil
		}()
		ch <- res{fds, err}
	}()
	x := <-ch
	return x.fds, x.err
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func packetSocket(dev string) (int, error) {
	ifi, err := net.InterfaceByName(dev)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return -1, fmt.Errorf("packet socket: %w", err)
	}
	// Frames this socket sends come back to every ETH_P_ALL socket on the
	// device as outgoing; the relay must not read its own.
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("PACKET_IGNORE_OUTGOING (Linux 4.20+): %w", err)
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, 8<<20)
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind %s: %w", dev, err)
	}
	return fd, nil
}

// pipe forwards frames read from in to out after the delay (and the
// shaper's wait).
func (r *relay) pipe(in, out *os.File, o Opts) {
	q := make(chan frame, 1<<14)
	r.wg.Add(2)
	go func() { // reader: stamp each frame with the time it may leave
		defer r.wg.Done()
		defer close(q)
		var free time.Time // when the shaped link is next idle
		buf := make([]byte, 65536)
		for {
			n, err := in.Read(buf)
			if err != nil {
				return
			}
			now := time.Now()
			due := now.Add(o.Delay)
			if o.RateMbit > 0 {
				start := now
				if free.After(start) {
					start = free
				}
				if start.Sub(now) > o.QueueLimit {
					r.dropped.Add(1)
					continue
				}
				// Ethernet on the wire: frame + preamble, FCS and gap.
				free = start.Add(time.Duration(float64((n+24)*8) / o.RateMbit * float64(time.Microsecond)))
				due = free.Add(o.Delay)
			}
			select {
			case q <- frame{due, append([]byte(nil), buf[:n]...)}:
			default:
				r.dropped.Add(1)
			}
		}
	}()
	go func() { // writer: send each frame when it is due, in order
		defer r.wg.Done()
		for f := range q {
			if d := time.Until(f.due); d > 0 {
				time.Sleep(d)
			}
			if _, err := out.Write(f.data); err != nil {
				if isClosed(err) {
					for range q {
					}
					return
				}
				r.dropped.Add(1)
				continue
			}
			r.forwarded.Add(1)
		}
	}()
}

func isClosed(err error) bool { return errors.Is(err, os.ErrClosed) }

func (r *relay) stop() {
	for _, f := range r.files {
		f.Close()
	}
	r.wg.Wait()
}
