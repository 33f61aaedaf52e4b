package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// NetResult is the answer of `nastune bench net`.
type NetResult struct {
	Kind          string  `json:"kind"` // "net"
	Engine        string  `json:"engine"`
	Server        string  `json:"server"`
	Streams       int     `json:"streams"`
	Reverse       bool    `json:"reverse"`
	Seconds       float64 `json:"seconds"`
	Bytes         int64   `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	Retransmits   int64   `json:"retransmits"`
	// SpuriousRetransmits are retransmits the receiver reported as
	// duplicates (D-SACK, TCP_INFO tcpi_dsack_dups, Linux 5.3+): the
	// original arrived, late or reordered; not a loss.
	SpuriousRetransmits int64   `json:"retransmits_spurious,omitempty"`
	CPUClientPct        float64 `json:"cpu_client_percent"`
	CPUServerPct        float64 `json:"cpu_server_percent"`
	Date                string  `json:"date"`
	// Over --repeat runs (the result is the median run): runs and the
	// lowest and highest bits per second.
	Runs     int     `json:"runs,omitempty"`
	SpreadLo float64 `json:"spread_lo,omitempty"`
	SpreadHi float64 `json:"spread_hi,omitempty"`
	// Capped names the server's cap that ended the test early.
	Capped      string `json:"capped,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	// SockBuf is the buffer the kernel gave the first stream when
	// NetOptions.SockBuf asked for one (SO_SNDBUF sending, SO_RCVBUF
	// receiving; Linux reports twice the request, capped by
	// net.core.wmem_max/rmem_max); 0 when none was asked or it cannot be
	// read on this OS.
	SockBuf   int        `json:"sock_buf,omitempty"`
	Intervals []Interval `json:"intervals,omitempty"`
}

// Interval is one reporting period of a run (iperf3's per-second lines).
type Interval struct {
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Bytes         int64   `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	Retransmits   int64   `json:"retransmits"`
}

func randID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NetOptions configure a client run.
type NetOptions struct {
	Server   string // HOST or HOST:PORT (default port 5201)
	Token    string
	Streams  int
	Duration time.Duration
	Reverse  bool
	Repeat   int
	// Interval between OnInterval calls (0: one second).
	Interval   time.Duration
	OnInterval func(run int, iv Interval)
	// OnWait is called when the server queues the client behind others.
	OnWait   func(ahead int)
	Progress func(frac float64)
	// SockBuf, when > 0, makes each stream ask for this buffer itself on
	// this end (SO_SNDBUF sending, SO_RCVBUF receiving), as iperf3 -w
	// does: the window is then capped by net.core.wmem_max/rmem_max, not
	// by tcp_wmem/tcp_rmem. 0 leaves the kernel's autotuning (the default,
	// what most programs get).
	SockBuf int
}

// RunNet measures TCP throughput against a nastune server, --repeat times
// (the median run, with the spread). On a cancelled ctx it returns the
// runs finished so far with ErrInterrupted.
func RunNet(ctx context.Context, o NetOptions) (*NetResult, error) {
	return repeatNet(ctx, o, runNetOnce)
}

func repeatNet(ctx context.Context, o NetOptions, once func(context.Context, NetOptions, int) (*NetResult, error)) (*NetResult, error) {
	if o.Streams < 1 || o.Streams > MaxStreams {
		return nil, fmt.Errorf("streams must be 1-%d", MaxStreams)
	}
	if secs := int(o.Duration.Seconds()); secs < 1 || secs > MaxSeconds {
		return nil, fmt.Errorf("time must be 1-%d s", MaxSeconds)
	}
	var runs []*NetResult
	for r := 0; r < max(o.Repeat, 1); r++ {
		res, err := once(ctx, o, r)
		if ctx.Err() != nil {
			if len(runs) == 0 {
				return nil, ErrInterrupted
			}
			m := medianNet(runs)
			m.Interrupted = true
			return m, ErrInterrupted
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, res)
	}
	return medianNet(runs), nil
}

func medianNet(runs []*NetResult) *NetResult {
	sorted := append([]*NetResult(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].BitsPerSecond < sorted[j].BitsPerSecond })
	m := *sorted[(len(sorted)-1)/2] // the lower median with an even count
	if len(runs) > 1 {
		m.Runs, m.SpreadLo, m.SpreadHi = len(runs), sorted[0].BitsPerSecond, sorted[len(sorted)-1].BitsPerSecond
	}
	return &m
}

func runNetOnce(ctx context.Context, o NetOptions, run int) (*NetResult, error) {
	server := WithPort(o.Server)
	secs := int(o.Duration.Seconds())
	d := net.Dialer{Timeout: 5 * time.Second}
	ctl, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	stopCtl := context.AfterFunc(ctx, func() { ctl.Close() })
	defer stopCtl()
	b, _ := json.Marshal(header{V: protoVersion, Token: o.Token, Streams: o.Streams, Seconds: secs, Reverse: o.Reverse})
	_ = ctl.SetDeadline(time.Now().Add(helloTimeout))
	if _, err := ctl.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(ctl, 4096)
	var r reply
	lastWait := 0
	for {
		if err := readReply(br, &r); err != nil {
			return nil, fmt.Errorf("%s: %w (is a nastune bench server running there? an iperf3 server needs --engine iperf3)", server, err)
		}
		if r.Wait == 0 {
			break
		}
		// A queue position only moves forward, and the wait is bounded
		// once, by the first position: a server that keeps saying "wait"
		// (or moves back) cannot hold this client forever.
		if r.Wait < 0 || (lastWait > 0 && r.Wait >= lastWait) {
			return nil, fmt.Errorf("%s: the server sent queue position %d after %d: not a nastune bench server, or a broken one", server, r.Wait, lastWait)
		}
		if o.OnWait != nil {
			o.OnWait(r.Wait)
		}
		if lastWait == 0 {
			// Each test ahead takes at most 60 s plus the grace.
			_ = ctl.SetDeadline(time.Now().Add(time.Duration(min(r.Wait, maxQueue)) * (MaxSeconds + 5) * time.Second))
		}
		lastWait = r.Wait
	}
	if !r.OK {
		return nil, fmt.Errorf("server refused: %s", r.Error)
	}
	cpu0 := processCPU()
	conns := make([]*net.TCPConn, 0, o.Streams)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < o.Streams; i++ {
		c, err := d.DialContext(ctx, "tcp", server)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c.(*net.TCPConn))
		tuneStream(conns[i], o.Reverse, o.SockBuf)
		_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
		if _, err := c.Write([]byte(dataMagic + r.ID + "\n")); err != nil {
			return nil, err
		}
	}
	stopConns := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			_ = c.SetDeadline(time.Now())
		}
	})
	defer stopConns()
	start := time.Now()
	end := start.Add(o.Duration)
	var moved atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func(c *net.TCPConn) {
			defer wg.Done()
			_ = c.SetDeadline(end)
			buf := make([]byte, streamBuf)
			for {
				var n int
				var err error
				if o.Reverse {
					n, err = c.Read(buf)
				} else {
					n, err = c.Write(buf)
				}
				moved.Add(int64(n))
				if err != nil {
					return
				}
			}
		}(c)
	}
	var intervals []Interval
	ivDone := make(chan struct{})
	go func() {
		defer close(ivDone)
		every := o.Interval
		if every <= 0 {
			every = time.Second
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		prog := time.NewTicker(200 * time.Millisecond)
		defer prog.Stop()
		last, lastBytes, lastRe := start, int64(0), int64(0)
		for {
			select {
			case <-tick.C:
			case <-prog.C:
				if o.Progress != nil {
					o.Progress(float64(time.Since(start)) / float64(o.Duration))
				}
				continue
			case <-ctx.Done():
				return
			}
			now := time.Now()
			if now.After(end) {
				now = end
			}
			if !now.After(last) {
				return
			}
			bytes := moved.Load()
			re, _ := retrans(conns)
			iv := Interval{Start: last.Sub(start).Seconds(), End: now.Sub(start).Seconds(), Bytes: bytes - lastBytes, Retransmits: re - lastRe}
			iv.BitsPerSecond = float64(iv.Bytes) * 8 / now.Sub(last).Seconds()
			intervals = append(intervals, iv)
			if o.OnInterval != nil {
				o.OnInterval(run, iv)
			}
			last, lastBytes, lastRe = now, bytes, re
			if !now.Before(end) {
				return
			}
		}
	}()
	wg.Wait()
	elapsed := time.Since(start)
	<-ivDone
	re, spurious := retrans(conns)
	gotBuf := 0
	if o.SockBuf > 0 && len(conns) > 0 {
		gotBuf = sockBuf(conns[0], o.Reverse)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	cpu1 := processCPU()
	_ = ctl.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := ctl.Write([]byte("DONE\n")); err != nil {
		return nil, err
	}
	var fin reply
	if err := readReply(br, &fin); err != nil {
		return nil, fmt.Errorf("reading the server's result: %w", err)
	}
	if err := peerRange("cpu_percent", fin.CPUPct, 0, 100*maxPeerCores, "a CPU share of the server's process"); err != nil {
		return nil, fmt.Errorf("the server's result was rejected: %w", err)
	}
	// Sending, the server's count is the result; it cannot have read more
	// than this client wrote (nor less than nothing): a server that claims
	// more would size buffers and judge trials by a rate that never was.
	bytes := min(max(fin.Bytes, 0), moved.Load())
	if o.Reverse {
		bytes = moved.Load()
	}
	return &NetResult{Kind: "net", Engine: "builtin", Server: server, Streams: o.Streams, Reverse: o.Reverse,
		Seconds: elapsed.Seconds(), Bytes: bytes, BitsPerSecond: float64(bytes) * 8 / elapsed.Seconds(), Retransmits: re, SpuriousRetransmits: min(spurious, re),
		CPUClientPct: (cpu1 - cpu0) / elapsed.Seconds() * 100,
		CPUServerPct: fin.CPUPct, Capped: fin.Capped, Intervals: intervals, SockBuf: gotBuf, Date: time.Now().UTC().Format(time.RFC3339)}, nil
}

// streamBuf is the size of each read or write on a data stream.
const streamBuf = 128 << 10

// tuneStream sets per-stream socket options (see docs/benchmarks.md on
// retransmits): none by default, the kernel's autotuning as iperf3 uses
// it; with buf > 0 the buffer of this end's direction, as iperf3 -w. It is
// set after connect: Linux sized the window scale at the SYN for the
// larger of tcp_rmem[2] and net.core.rmem_max, which covers any buffer
// SO_RCVBUF can get.
func tuneStream(c *net.TCPConn, reverse bool, buf int) {
	if buf <= 0 {
		return
	}
	if reverse {
		_ = c.SetReadBuffer(buf)
	} else {
		_ = c.SetWriteBuffer(buf)
	}
}

func readReply(br *bufio.Reader, r *reply) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	*r = reply{}
	if err := json.Unmarshal(line, r); err != nil {
		return err
	}
	cleanPeer(r)
	return nil
}
