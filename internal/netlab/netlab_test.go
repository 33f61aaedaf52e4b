package netlab

import (
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func ping(t *testing.T, l *Lab) time.Duration {
	t.Helper()
	if _, err := exec.LookPath("ping"); err != nil {
		t.Skip("ping not installed (Debian package iputils-ping)")
	}
	rtt, err := l.PingRTT(5)
	if err != nil {
		t.Fatal(err)
	}
	return rtt
}

// iperf3 runs a client → server stream and returns iperf3's received
// bits per second. window > 0 is iperf3 -w (the socket buffers).
func iperf3(t *testing.T, l *Lab, secs, window int) float64 {
	t.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("iperf3 not installed")
	}
	srv := Exec(l.ServerNS, "iperf3", "-s", "-1", "-B", l.ServerAddr)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	args := []string{"-t", strconv.Itoa(secs)}
	if window > 0 {
		args = append(args, "-w", strconv.Itoa(window))
	}
	var bps float64
	var err error
	for try := 0; try < 50; try++ { // the server needs a moment to listen
		if bps, err = l.Iperf3(args...); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bps
}

// TestDelay: ping sees the relay's round-trip time, and a TCP stream
// with a 64 KiB window is held to about window/RTT, far below what the
// same path carries with the default buffers: the kernel's TCP sees the
// delay, not just ping.
func TestDelay(t *testing.T) {
	l := New(t, Opts{Delay: 10 * time.Millisecond})
	l.Check(t, 15*time.Millisecond)
	rtt := ping(t, l)
	t.Logf("ping rtt min %v (relay adds %v)", rtt, l.RTT)
	if rtt < l.RTT || rtt > l.RTT+15*time.Millisecond {
		t.Errorf("ping rtt %v, want about %v", rtt, l.RTT)
	}
	// 64 KiB of socket buffer (the kernel doubles -w and keeps half for
	// overhead) over 20 ms: about 26 Mbit/s. Allow for slow start and a
	// busy machine below, and nothing much above.
	small := iperf3(t, l, 3, 64<<10)
	big := iperf3(t, l, 3, 0)
	t.Logf("64 KiB window: %.1f Mbit/s; default buffers: %.1f Mbit/s", small/1e6, big/1e6)
	if small > 40e6 || small < 8e6 {
		t.Errorf("64 KiB window over 20 ms gave %.1f Mbit/s, want about 26", small/1e6)
	}
	if big < 2*small {
		t.Errorf("default buffers gave %.1f Mbit/s, not well above the 64 KiB window's %.1f", big/1e6, small/1e6)
	}
}

// TestShaper: with a 50 Mbit/s shaper the stream stays under it (and
// the relay, not the window, is the limit).
func TestShaper(t *testing.T) {
	l := New(t, Opts{Delay: 10 * time.Millisecond, RateMbit: 50})
	got := iperf3(t, l, 3, 0)
	fw, dr := l.Stats()
	t.Logf("50 Mbit/s shaper: %.1f Mbit/s (%d frames forwarded, %d dropped)", got/1e6, fw, dr)
	if got > 52e6 || got < 15e6 {
		t.Errorf("shaped to 50 Mbit/s, iperf3 saw %.1f Mbit/s", got/1e6)
	}
}

// TestCleanup: the namespaces are gone when the test ends.
func TestCleanup(t *testing.T) {
	var l *Lab
	t.Run("build", func(t *testing.T) { l = New(t, Opts{Delay: time.Millisecond}) })
	if l == nil {
		t.Skip("lab not built")
	}
	for _, ns := range []string{l.ClientNS, l.RelayNS, l.ServerNS} {
		if out, err := exec.Command("ip", "netns", "exec", ns, "true").CombinedOutput(); err == nil {
			t.Errorf("namespace %s still exists after the test: %s", ns, out)
		}
	}
}
