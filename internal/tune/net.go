package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/netns"
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
//     they are absent (before 6.11) or read-only. The streams tune measures
//     autotune (they set no buffer), so a trial of these could not show a
//     gain: they are offered only when NetEnv.SetsBuffers says the
//     measured streams set their buffers themselves, and tune says why.
//
// The rate (SizePath): a stream held back by a small window measures the
// window, not the path (64 KiB on a 20 ms path reads about 26 Mbit/s
// whatever the link). So besides the streams as found, one stream each way
// asks for the largest buffer a program may have (SO_SNDBUF / SO_RCVBUF
// up to net.core.wmem_max / rmem_max, as iperf3 -w), which tcp_wmem /
// tcp_rmem do not cap; --rate (the link or the WAN contract) counts when
// given. A measurement is window-limited when its rate × RTT reaches 80%
// of the window its buffer allows (about half the buffer); when the
// fastest one was (and no --rate), the rate is only a floor.
//
// The candidates (NetLadder) are the rungs of a ladder (Knob.Ladder, the
// one of the block knobs: ladder.go) around 2 × BDP, tried smallest
// first: the last rung that gains beyond the noise band is kept, and two
// rungs in a row that do not are the plateau (larger ones are not
// tried). So tune keeps the smallest maximum that reaches the plateau,
// not the largest the box allows — a larger buffer than the path needs
// only lets a queue in the path grow (a router's, a VPN's, the lab
// relay's), and it can measure less. Only values above the one found
// are tried, never one below the kernel's default (AtLeastDefault); only
// the maximum field of tcp_rmem/tcp_wmem changes (min and default stay as
// found).

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
	// found; WmemMax and RmemMax are the tcp_wmem / tcp_rmem maxima they
	// had (0: unknown).
	SendBPS    float64 `json:"send_bps"`
	ReceiveBPS float64 `json:"receive_bps"`
	WmemMax    int64   `json:"wmem_max,omitempty"`
	RmemMax    int64   `json:"rmem_max,omitempty"`
	// ProbeSendBPS and ProbeReceiveBPS are one stream each way that asked
	// for a large buffer itself (SO_SNDBUF / SO_RCVBUF), and
	// ProbeSendBuf / ProbeReceiveBuf the buffers the kernel gave them
	// (0: no probe, or it failed: ProbeError says why).
	ProbeSendBPS    float64 `json:"probe_send_bps,omitempty"`
	ProbeReceiveBPS float64 `json:"probe_receive_bps,omitempty"`
	ProbeSendBuf    int64   `json:"probe_send_buf,omitempty"`
	ProbeReceiveBuf int64   `json:"probe_receive_buf,omitempty"`
	ProbeError      string  `json:"probe_error,omitempty"`
	// HintBPS is --rate (0: none).
	HintBPS float64 `json:"hint_bps,omitempty"`
	// SizedBPS is the rate the path is sized for: --rate, else the
	// fastest measurement; SizedBy names it. Floor: that measurement was
	// window-limited and there is no --rate, so the path may be faster
	// (the ladder then goes on doubling until the gain stops).
	SizedBPS float64 `json:"sized_bps"`
	SizedBy  string  `json:"sized_by"`
	Floor    bool    `json:"floor,omitempty"`
	BDP      uint64  `json:"bdp_bytes"`
	Need     uint64  `json:"need_bytes"` // 2 × BDP, rounded up to 64 KiB
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

// WindowLimited says whether a stream of bps over a path of rtt was held
// back by a buffer of buf bytes: its rate × RTT reached 80% of the window
// the buffer allows, about half of it (the kernel counts its per-packet
// overhead against the buffer: tcp_adv_win_scale 1). buf ≤ 0 (unknown)
// counts as limited: nothing says it was not.
func WindowLimited(bps float64, rtt time.Duration, buf int64) bool {
	return buf <= 0 || float64(calc.BDP(bps, rtt)) >= 0.4*float64(buf)
}

// ProbeBuf is the buffer the probe streams ask for (SO_SNDBUF/SO_RCVBUF;
// the kernel caps it at net.core.wmem_max/rmem_max): 16 MiB, at most
// RAM/32 (ram 0: unknown).
func ProbeBuf(ram uint64) int {
	b := uint64(16 << 20)
	if ram > 0 {
		b = min(b, calc.RAMShareCap(ram))
	}
	return int(b)
}

// Probe measures one stream each way that asks for buf itself, so the
// tcp_wmem/tcp_rmem maxima do not cap its window (as iperf3 -w), and
// fills in p's probe fields; an error is kept in p.ProbeError (the sizing
// then goes by the streams as found).
func Probe(ctx context.Context, p *NetPath, o bench.NetOptions, d time.Duration, buf int) {
	for _, rev := range []bool{false, true} {
		oo := o
		oo.Duration, oo.Reverse, oo.Repeat, oo.Streams, oo.SockBuf = d, rev, 1, 1, buf
		r, err := bench.RunNet(ctx, oo)
		if err == nil && r.Capped != "" {
			err = fmt.Errorf("the server stopped the test early (%s)", r.Capped)
		}
		if err != nil {
			p.ProbeSendBPS, p.ProbeReceiveBPS, p.ProbeSendBuf, p.ProbeReceiveBuf = 0, 0, 0, 0
			p.ProbeError = err.Error()
			return
		}
		if rev {
			p.ProbeReceiveBPS, p.ProbeReceiveBuf = r.BitsPerSecond, int64(r.SockBuf)
		} else {
			p.ProbeSendBPS, p.ProbeSendBuf = r.BitsPerSecond, int64(r.SockBuf)
		}
	}
}

// SizePath fills in the sizing of p from its measurements: --rate when
// given, else the fastest stream (as found or the probe), a floor when
// it was window-limited.
func SizePath(p *NetPath) {
	type m struct {
		bps     float64
		buf     int64
		by      string
		limited bool
	}
	ms := []m{
		{p.SendBPS, p.WmemMax, "the stream sending as found", false},
		{p.ReceiveBPS, p.RmemMax, "the stream receiving as found", false},
		{p.ProbeSendBPS, p.ProbeSendBuf, "the probe sending with SO_SNDBUF", false},
		{p.ProbeReceiveBPS, p.ProbeReceiveBuf, "the probe receiving with SO_RCVBUF", false},
	}
	// The fastest stream sizes the path; when its own window held it
	// back, the path may be faster still and its rate is only a floor
	// (another stream that reached less without filling its window, e.g.
	// the other direction, says nothing about this one's ceiling).
	p.SizedBPS, p.SizedBy, p.Floor = 0, "", false
	for i := range ms {
		if ms[i].bps <= 0 {
			continue
		}
		if ms[i].bps > p.SizedBPS {
			p.SizedBPS, p.SizedBy = ms[i].bps, ms[i].by
			p.Floor = WindowLimited(ms[i].bps, p.RTT, ms[i].buf)
		}
	}
	if p.HintBPS > 0 {
		p.SizedBPS, p.SizedBy, p.Floor = p.HintBPS, "--rate", false
	}
	p.BDP = calc.BDP(p.SizedBPS, p.RTT)
	p.Need = calc.TCPBufferMax(p.BDP)
}

// NetLadder is the values tried for one buffer maximum found at cur, for a
// path that needs need bytes (2 × BDP), smallest first, each rounded up to
// 64 KiB: need/4, need/2, need and 2 × need (the rung that shows the
// plateau); when need is only a floor, on doubling past it up to
// 16 × need or 16 MiB, whichever is more (the ladder stops where the gain
// does). Only values above cur
// and at most limit (the RAM cap; ≤ 0: none; never above what the C int
// of tcp_rmem holds) are tried; a need above limit is tried at limit. When
// cur already covers need (and need is not a floor) nothing is tried.
func NetLadder(cur, need, limit int64, floor bool) []int64 {
	if need <= 0 || (!floor && cur >= need) {
		return nil
	}
	round := func(n int64) int64 { return (n + 65535) / 65536 * 65536 }
	if top := int64(math.MaxInt32) &^ 65535; limit <= 0 || limit > top {
		limit = top
	}
	mults := []float64{0.25, 0.5, 1, 2}
	if floor {
		for f := 4.0; float64(need)*f <= float64(max(16*need, 16<<20)); f *= 2 {
			mults = append(mults, f)
		}
	}
	var out []int64
	for _, f := range mults {
		v := round(int64(float64(need) * f))
		v = min(v, limit)
		if v <= cur || (len(out) > 0 && v <= out[len(out)-1]) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// AtLeastDefault raises the rungs of a ladder that lie below the kernel's
// default for the maximum to that default: a raise never stops below what
// the kernel itself would have set (the audit's net-tcp-buffers-small calls
// such a maximum capped, and a reboot with the file removed would give the
// default anyway). The rungs above it stay; an empty ladder (nothing to
// raise) stays empty.
func AtLeastDefault(ladder []int64, def int64) []int64 {
	if len(ladder) == 0 || def <= 0 || ladder[0] >= def {
		return ladder
	}
	out := []int64{def}
	for _, v := range ladder {
		if v > def {
			out = append(out, v)
		}
	}
	return out
}

// NetKeys are the sysctls `tune --net` sizes, in the order tried.
var NetKeys = []string{"net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem", "net.core.wmem_max", "net.core.rmem_max"}

// SysctlPath is the /proc/sys file of a dotted key.
func SysctlPath(key string) string { return "/proc/sys/" + strings.ReplaceAll(key, ".", "/") }

// NetEnv is what NetKnobs reads of the host: a key's value ("" and an
// error when it cannot be read), whether this process may write it (nil:
// yes), and whether it runs in the initial network namespace.
type NetEnv struct {
	Read     func(path string) (string, error)
	Writable func(path string) error
	NetNS    netns.State
	Knobs    knobs.Env
	// RAMBytes caps a candidate at RAM/32 (calc.RAMShareCap; 0: unknown,
	// no cap).
	RAMBytes uint64
	// SetsBuffers: the measured streams set SO_RCVBUF/SO_SNDBUF
	// themselves, so net.core.rmem_max/wmem_max cap them and are worth a
	// trial. bench net's streams autotune (false): tune --net never
	// offers them.
	SetsBuffers bool
}

// LiveNetEnv reads this host (read through read, which is apply's reader).
func LiveNetEnv(read func(string) (string, error), kenv knobs.Env, ram uint64) NetEnv {
	ns, _ := netns.Self()
	return NetEnv{Read: read, Writable: func(p string) error { return unix.Access(p, unix.W_OK) }, NetNS: ns, Knobs: kenv, RAMBytes: ram}
}

// Max is the maximum (third) field of a tcp_wmem/tcp_rmem key, or the
// value of a single-number key; 0 when it cannot be read.
func (e NetEnv) Max(key string) int64 {
	v, err := e.Read(SysctlPath(key))
	if err != nil {
		return 0
	}
	for _, n := range []int{3, 1} {
		if f, ok := knobs.Ints(v, n); ok {
			return f[n-1]
		}
	}
	return 0
}

// NetKnobs lists the socket buffer knobs with their candidates for path
// p: a ladder (NetLadder) per tcp_wmem/tcp_rmem maximum; net.core maxima
// only when the measured streams set their buffers (NetEnv.SetsBuffers).
func NetKnobs(p NetPath, e NetEnv) []Knob {
	var out []Knob
	for _, key := range NetKeys {
		path := SysctlPath(key)
		k := Knob{Path: path, Attr: key, Device: "net", Values: []string{}}
		core := strings.HasPrefix(key, "net.core.")
		cur, err := e.Read(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && e.NetNS != netns.Init {
				k.Skipped = append(k.Skipped, "all: absent in this network namespace (a global sysctl only the initial namespace shows before Linux 6.11); set it on the host")
			} else {
				k.Skipped = append(k.Skipped, "all: unreadable: "+err.Error())
			}
			out = append(out, k)
			continue
		}
		k.Current = cur
		if core && !e.SetsBuffers {
			// A trial could not show a gain: the streams measured never
			// ask for a buffer, so this maximum does not cap them.
			k.Skipped = append(k.Skipped, "any raise: it caps only buffers a program sets itself (SO_RCVBUF/SO_SNDBUF); the streams tune measures let TCP autotune, as most programs do (rsync, NFS, Samba without socket options), so a trial could not show a gain. Raise it on the host for programs that set a buffer (Samba's socket options, iperf3 -w, OpenVPN sndbuf/rcvbuf)")
			out = append(out, k)
			continue
		}
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
		curN, ok := knobs.Field(cur, field)
		if !ok {
			k.Skipped = append(k.Skipped, fmt.Sprintf("all: %q is not a number in field %d", cur, field+1))
			out = append(out, k)
			continue
		}
		limit := int64(0)
		if e.RAMBytes > 0 {
			// A few such streams must not take the box's memory.
			limit = int64(calc.RAMShareCap(e.RAMBytes)) &^ (64<<10 - 1)
		}
		need := int64(p.Need)
		why := fmt.Sprintf("2 × BDP = %d", need)
		if p.Floor {
			why += " at least (the fastest stream measured was window-limited): doubling until the gain stops"
		}
		if limit > 0 && need > limit {
			why += fmt.Sprintf(", capped at RAM/32 = %d", limit)
		}
		if defN, ok := knobs.Field(def, field); ok {
			why += fmt.Sprintf("; the kernel default is %d", defN)
		}
		ladder := NetLadder(curN, need, limit, p.Floor)
		if defN, ok := knobs.Field(def, field); ok {
			ladder = AtLeastDefault(ladder, defN)
		}
		if len(ladder) == 0 {
			k.Skipped = append(k.Skipped, fmt.Sprintf("any raise: %d already covers %s", curN, why))
			out = append(out, k)
			continue
		}
		if werr := e.Writable(path); werr != nil {
			if core && (e.NetNS != netns.Init || errors.Is(werr, unix.EACCES)) {
				k.Skipped = append(k.Skipped, "any raise: read-only in this network namespace (net.core buffer maxima are global; set it in the initial namespace, on the host)")
			} else {
				k.Skipped = append(k.Skipped, fmt.Sprintf("any raise: not writable: %v", werr))
			}
			out = append(out, k)
			continue
		}
		for _, n := range ladder {
			v := strconv.FormatInt(n, 10)
			if field > 0 {
				v = knobs.WithField(cur, field, n)
			}
			k.Values = append(k.Values, v)
		}
		k.Ladder, k.Field = true, field
		// A send buffer changes the stream this host sends, a receive
		// buffer the one it receives: each is judged by its own.
		k.Tests = []string{"send"}
		if strings.Contains(key, "rmem") {
			k.Tests = []string{"receive"}
		}
		k.Why = "smallest first, until the gain stops: " + why
		out = append(out, k)
	}
	return out
}
