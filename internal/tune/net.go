package tune

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/knobs"
)

// `tune --net` sizes the socket buffer maxima of this host for the path to
// a `bench net -s` server from the path's bandwidth-delay product, and
// keeps a size only when the measured stream gains beyond the noise band
// (the same loop as the disk tune, Run). The workload is two streams
// measured one after the other, this host sending ("send") and receiving
// ("receive"); the score is their geometric mean against the baseline.
//
// The knobs, and what they cap:
//   - net.ipv4.tcp_wmem / tcp_rmem (third field): what TCP autotuning may
//     grow a socket's send / receive buffer to. Per network namespace since
//     Linux 4.15: the sysctls of the namespace the socket lives in count.
//   - net.core.wmem_max / rmem_max: only buffers a program asks for itself
//     (SO_SNDBUF / SO_RCVBUF; Samba's socket options, iperf3 -w). Global:
//     only the initial network namespace can set them; inside another one
//     they are absent (before 6.11) or read-only, and tune says so.
//
// A candidate is max(2 × BDP rounded up to 64 KiB, the kernel's default
// for this RAM and kernel version) — never below the kernel default — and
// is tried only when it is above the value found. Only the maximum field
// of tcp_rmem/tcp_wmem changes; min and default stay as found.

// NetTests are the two streams of a net tune sample.
var NetTests = []string{"send", "receive"}

// NetPath is what tune measured of the path before its trials.
type NetPath struct {
	Server string `json:"server"`
	// RTT is the fastest TCP connect of RTTProbes (one SYN/SYN-ACK round
	// trip; the server's kernel answers, not its program).
	RTT       time.Duration `json:"rtt_ns"`
	RTTProbes int           `json:"rtt_probes"`
	// SendBPS and ReceiveBPS are one stream each way with the buffers as
	// found; HintBPS is --rate (0: none). The path is sized for the
	// highest of the three: a stream limited by a small window measures
	// the window, not the path.
	SendBPS    float64 `json:"send_bps"`
	ReceiveBPS float64 `json:"receive_bps"`
	HintBPS    float64 `json:"hint_bps,omitempty"`
	SizedBPS   float64 `json:"sized_bps"`
	BDP        uint64  `json:"bdp_bytes"`
	Need       uint64  `json:"need_bytes"` // 2 × BDP, rounded up to 64 KiB
}

// ConnectRTT is the fastest of n TCP connects to addr (closed at once,
// nothing sent).
func ConnectRTT(ctx context.Context, addr string, n int) (time.Duration, error) {
	best := time.Duration(0)
	d := net.Dialer{Timeout: 5 * time.Second}
	for i := 0; i < n; i++ {
		t0 := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return 0, err
		}
		rtt := time.Since(t0)
		c.Close()
		if best == 0 || rtt < best {
			best = rtt
		}
		time.Sleep(20 * time.Millisecond)
	}
	return best, nil
}

// NetMeasurer measures one sample: a stream this host sends for d, then
// one it receives for d, each on a new connection (so it starts with the
// buffer sysctls as they are now), in Mbit/s.
func NetMeasurer(o bench.NetOptions, d time.Duration) Measurer {
	return func(ctx context.Context) (Sample, error) {
		s := Sample{}
		for _, rev := range []bool{false, true} {
			oo := o
			oo.Duration, oo.Reverse, oo.Repeat, oo.Streams = d, rev, 1, 1
			r, err := bench.RunNet(ctx, oo)
			if err != nil {
				return nil, err
			}
			if r.Interrupted {
				return nil, bench.ErrInterrupted
			}
			if r.Capped != "" {
				return nil, fmt.Errorf("the server stopped the test early (%s): raise its --max-bytes", r.Capped)
			}
			name := "send"
			if rev {
				name = "receive"
			}
			s[name] = r.BitsPerSecond / 1e6
		}
		return s, nil
	}
}

// SizePath fills in the sizing of p from its measurements.
func SizePath(p *NetPath) {
	p.SizedBPS = max(p.SendBPS, p.ReceiveBPS, p.HintBPS)
	p.BDP = calc.BDP(p.SizedBPS, p.RTT)
	p.Need = calc.TCPBufferMax(p.BDP)
}

// NetKeys are the sysctls `tune --net` sizes, in the order tried.
var NetKeys = []string{"net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem", "net.core.wmem_max", "net.core.rmem_max"}

// SysctlPath is the /proc/sys file of a dotted key.
func SysctlPath(key string) string { return "/proc/sys/" + strings.ReplaceAll(key, ".", "/") }

// NetEnv is what NetKnobs reads of the host: a key's value ("" and an
// error when it cannot be read), whether this process may write it (nil:
// yes), and whether it runs in the initial network namespace.
type NetEnv struct {
	Read      func(path string) (string, error)
	Writable  func(path string) error
	InitNetNS bool
	Knobs     knobs.Env
	// RAMBytes caps a candidate above the kernel default at RAM/32
	// (calc.RAMShareCap; 0: unknown, no cap).
	RAMBytes uint64
}

// LiveNetEnv reads this host (read through read, which is apply's reader).
func LiveNetEnv(read func(string) (string, error), kenv knobs.Env, ram uint64) NetEnv {
	return NetEnv{Read: read, Writable: func(p string) error { return unix.Access(p, unix.W_OK) }, InitNetNS: InInitNetNS(), Knobs: kenv, RAMBytes: ram}
}

// InInitNetNS says whether this process is in the initial network
// namespace: its namespace is pid 1's, or, where pid 1's cannot be read (a
// container), net.core.rmem_max — global, held by the initial namespace —
// is present and writable for this process (in another namespace it is
// absent before Linux 6.11 and read-only since).
func InInitNetNS() bool {
	self, err1 := os.Readlink("/proc/self/ns/net")
	init, err2 := os.Readlink("/proc/1/ns/net")
	if err1 == nil && err2 == nil {
		return self == init
	}
	return unix.Access(SysctlPath("net.core.rmem_max"), unix.W_OK) == nil
}

// NetKnobs lists the socket buffer knobs with their candidate for path p.
func NetKnobs(p NetPath, e NetEnv) []Knob {
	var out []Knob
	for _, key := range NetKeys {
		path := SysctlPath(key)
		k := Knob{Path: path, Attr: key, Device: "net", Values: []string{}}
		cur, err := e.Read(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && !e.InitNetNS {
				k.Skipped = append(k.Skipped, "all: absent in this network namespace (a global sysctl only the initial namespace shows before Linux 6.11); set it on the host")
			} else {
				k.Skipped = append(k.Skipped, "all: unreadable: "+err.Error())
			}
			out = append(out, k)
			continue
		}
		k.Current = cur
		field, def := 0, ""
		switch key {
		case "net.ipv4.tcp_rmem":
			field, def = 2, knobs.TCPRmem(e.Knobs)
		case "net.ipv4.tcp_wmem":
			field, def = 2, knobs.TCPWmem(e.Knobs)
		default:
			if kb, ok := knobs.Lookup(key); ok {
				def, _ = kb.Default(e.Knobs)
			}
		}
		curN, ok1 := knobs.Field(cur, field)
		defN, ok2 := knobs.Field(def, field)
		if !ok1 {
			k.Skipped = append(k.Skipped, fmt.Sprintf("all: %q is not a number in field %d", cur, field+1))
			out = append(out, k)
			continue
		}
		target := int64(p.Need)
		why := fmt.Sprintf("2 × BDP = %d", p.Need)
		if ok2 && defN > target {
			target, why = defN, fmt.Sprintf("the kernel default %d; 2 × BDP = %d is less", defN, p.Need)
		} else if c := int64(calc.RAMShareCap(e.RAMBytes)) &^ (64<<10 - 1); e.RAMBytes > 0 && target > c {
			// A few such streams must not take the box's memory.
			target, why = max(c, defN), fmt.Sprintf("2 × BDP = %d, capped at RAM/32 = %d", p.Need, c)
		}
		if curN >= target {
			k.Skipped = append(k.Skipped, fmt.Sprintf("any raise: %d already covers %s", curN, why))
			out = append(out, k)
			continue
		}
		if werr := e.Writable(path); werr != nil {
			if strings.HasPrefix(key, "net.core.") && (!e.InitNetNS || errors.Is(werr, unix.EACCES)) {
				k.Skipped = append(k.Skipped, fmt.Sprintf("%d: read-only in this network namespace (net.core buffer maxima are global; set it in the initial namespace, on the host). It caps only programs that set SO_RCVBUF/SO_SNDBUF themselves, not TCP autotuning", target))
			} else {
				k.Skipped = append(k.Skipped, fmt.Sprintf("%d: not writable: %v", target, werr))
			}
			out = append(out, k)
			continue
		}
		v := strconv.FormatInt(target, 10)
		if field > 0 {
			v = knobs.WithField(cur, field, target)
		}
		k.Values = []string{v}
		k.Why = why
		out = append(out, k)
	}
	return out
}
