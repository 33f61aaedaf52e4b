package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Limits of the network server: what a hostile or broken client can ask.
const (
	MaxStreams    = 16
	MaxSeconds    = 60
	maxHeader     = 4096
	headerTimeout = 5 * time.Second
	maxConns      = 2 * (MaxStreams + 1)
	dataMagic     = "NASTUNE-DATA "
	protoVersion  = 1
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
	CPUClientPct  float64 `json:"cpu_client_percent"`
	CPUServerPct  float64 `json:"cpu_server_percent"`
	Date          string  `json:"date"`
}

type header struct {
	V       int    `json:"v"`
	Token   string `json:"token,omitempty"`
	Streams int    `json:"streams"`
	Seconds int    `json:"seconds"`
	Reverse bool   `json:"reverse"`
}

type reply struct {
	OK    bool   `json:"ok,omitempty"`
	ID    string `json:"id,omitempty"`
	Error string `json:"error,omitempty"`
	// Filled at the end of a test.
	Bytes   int64   `json:"bytes,omitempty"`
	CPUPct  float64 `json:"cpu_percent,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// Server serves one test at a time on one address.
type Server struct {
	Addr  string
	Token string
	// Log receives one line per test or refused client (may be nil).
	Log   func(string)
	ln    net.Listener
	busy  sync.Mutex
	conns atomic.Int64
	mu    sync.Mutex
	test  *serverTest
}

type serverTest struct {
	id      string
	h       header
	bytes   atomic.Int64
	data    chan net.Conn
	started time.Time
}

// Listen binds the server's address (only that one).
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}

// Address is the bound address (useful with port 0).
func (s *Server) Address() string { return s.ln.Addr().String() }

// Serve accepts clients until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	go func() { <-ctx.Done(); s.ln.Close() }()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if s.conns.Add(1) > maxConns {
			s.conns.Add(-1)
			c.Close()
			s.log("refused a connection: too many open")
			continue
		}
		go func() {
			defer s.conns.Add(-1)
			defer func() {
				if r := recover(); r != nil {
					s.log(fmt.Sprintf("client %s: internal error %v", c.RemoteAddr(), r))
				}
			}()
			s.handle(ctx, c)
		}()
	}
}

func (s *Server) log(m string) {
	if s.Log != nil {
		s.Log(m)
	}
}

// handle reads the first line: a control header or a data hello.
func (s *Server) handle(ctx context.Context, c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(headerTimeout))
	br := bufio.NewReaderSize(io.LimitReader(c, maxHeader), 512)
	line, err := br.ReadSlice('\n')
	if err != nil {
		c.Close()
		return
	}
	if len(line) > len(dataMagic) && string(line[:len(dataMagic)]) == dataMagic {
		s.data(c, string(line[len(dataMagic):len(line)-1]))
		return
	}
	defer c.Close()
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		_ = s.send(c, reply{Error: "bad header"})
		return
	}
	switch {
	case h.V != protoVersion:
		_ = s.send(c, reply{Error: fmt.Sprintf("protocol version %d, want %d", h.V, protoVersion)})
		return
	case s.Token != "" && subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.Token)) != 1:
		_ = s.send(c, reply{Error: "bad token"})
		s.log("refused a client from " + c.RemoteAddr().String() + ": bad token")
		return
	case h.Streams < 1 || h.Streams > MaxStreams || h.Seconds < 1 || h.Seconds > MaxSeconds:
		_ = s.send(c, reply{Error: fmt.Sprintf("streams 1-%d and seconds 1-%d", MaxStreams, MaxSeconds)})
		return
	}
	if !s.busy.TryLock() {
		_ = s.send(c, reply{Error: "busy: one test at a time"})
		return
	}
	t := &serverTest{id: randID(), h: h, data: make(chan net.Conn, h.Streams)}
	s.mu.Lock()
	s.test = t
	s.mu.Unlock()
	// The slot is freed before the final reply, so a client that starts
	// its next test as soon as it has the result is never told "busy".
	var once sync.Once
	release := func() {
		once.Do(func() {
			s.mu.Lock()
			s.test = nil
			s.mu.Unlock()
			s.busy.Unlock()
		})
	}
	defer release()
	var ru0 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	if err := s.send(c, reply{OK: true, ID: t.id}); err != nil {
		return
	}
	// Run the data streams until the client says DONE (or the cap).
	limit := time.Duration(h.Seconds)*time.Second + 10*time.Second
	done := make(chan struct{})
	var wg sync.WaitGroup
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(limit))
		buf := make([]byte, 8)
		_, _ = c.Read(buf)
		close(done)
	}()
	t.started = time.Now()
	timeout := time.After(limit)
	for n := 0; n < h.Streams; n++ {
		select {
		case dc := <-t.data:
			wg.Add(1)
			go func() { defer wg.Done(); s.stream(dc, t, done) }()
		case <-done:
			n = h.Streams
		case <-timeout:
			n = h.Streams
		case <-ctx.Done():
			return
		}
	}
	select {
	case <-done:
	case <-timeout:
	case <-ctx.Done():
	}
	wg.Wait()
	elapsed := time.Since(t.started)
	var ru1 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	cpu := (tv(ru1.Utime) + tv(ru1.Stime) - tv(ru0.Utime) - tv(ru0.Stime)) / elapsed.Seconds() * 100
	release()
	_ = c.SetWriteDeadline(time.Now().Add(headerTimeout))
	_ = s.send(c, reply{Bytes: t.bytes.Load(), CPUPct: cpu, Seconds: elapsed.Seconds()})
	s.log(fmt.Sprintf("test from %s: %d streams, %d bytes", c.RemoteAddr(), h.Streams, t.bytes.Load()))
}

// data hands a data connection to the running test with that id.
func (s *Server) data(c net.Conn, id string) {
	s.mu.Lock()
	t := s.test
	s.mu.Unlock()
	if t == nil || subtle.ConstantTimeCompare([]byte(id), []byte(t.id)) != 1 {
		c.Close()
		return
	}
	select {
	case t.data <- c:
	default:
		c.Close() // more streams than announced
	}
}

// stream sinks (or, reversed, sources) one data connection.
func (s *Server) stream(c net.Conn, t *serverTest, done chan struct{}) {
	defer c.Close()
	limit := t.started.Add(time.Duration(t.h.Seconds)*time.Second + 10*time.Second)
	_ = c.SetDeadline(limit)
	go func() { <-done; _ = c.SetDeadline(time.Now()) }()
	buf := make([]byte, 128<<10)
	for {
		var n int
		var err error
		if t.h.Reverse {
			n, err = c.Write(buf)
		} else {
			n, err = c.Read(buf)
		}
		t.bytes.Add(int64(n))
		if err != nil {
			return
		}
	}
}

func (s *Server) send(c net.Conn, r reply) error {
	b, _ := json.Marshal(r)
	_, err := c.Write(append(b, '\n'))
	return err
}

func tv(t unix.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func randID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NetOptions configure a client run.
type NetOptions struct {
	Server   string
	Token    string
	Streams  int
	Duration time.Duration
	Reverse  bool
	Progress func(frac float64)
}

// RunNet measures TCP throughput against a nastune server.
func RunNet(ctx context.Context, o NetOptions) (*NetResult, error) {
	if o.Streams < 1 || o.Streams > MaxStreams {
		return nil, fmt.Errorf("streams must be 1-%d", MaxStreams)
	}
	secs := int(o.Duration.Seconds())
	if secs < 1 || secs > MaxSeconds {
		return nil, fmt.Errorf("time must be 1-%d s", MaxSeconds)
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	ctl, err := d.DialContext(ctx, "tcp", o.Server)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	b, _ := json.Marshal(header{V: protoVersion, Token: o.Token, Streams: o.Streams, Seconds: secs, Reverse: o.Reverse})
	_ = ctl.SetDeadline(time.Now().Add(headerTimeout))
	if _, err := ctl.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	br := bufio.NewReader(ctl)
	var r reply
	if err := readReply(br, &r); err != nil {
		return nil, err
	}
	if !r.OK {
		return nil, fmt.Errorf("server refused: %s", r.Error)
	}
	var ru0 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	conns := make([]*net.TCPConn, 0, o.Streams)
	for i := 0; i < o.Streams; i++ {
		c, err := d.DialContext(ctx, "tcp", o.Server)
		if err != nil {
			return nil, err
		}
		if _, err := c.Write([]byte(dataMagic + r.ID + "\n")); err != nil {
			return nil, err
		}
		conns = append(conns, c.(*net.TCPConn))
	}
	start := time.Now()
	end := start.Add(o.Duration)
	var recv atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func(c *net.TCPConn) {
			defer wg.Done()
			_ = c.SetDeadline(end)
			buf := make([]byte, 128<<10)
			for time.Now().Before(end) {
				var err error
				if o.Reverse {
					var n int
					n, err = c.Read(buf)
					recv.Add(int64(n))
				} else {
					_, err = c.Write(buf)
				}
				if err != nil {
					return
				}
			}
		}(c)
	}
	if o.Progress != nil {
		go func() {
			for t := time.NewTicker(200 * time.Millisecond); time.Now().Before(end); <-t.C {
				o.Progress(float64(time.Since(start)) / float64(o.Duration))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var retrans int64
	for _, c := range conns {
		if raw, err := c.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
					retrans += int64(info.Total_retrans)
				}
			})
		}
		c.Close()
	}
	var ru1 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	_ = ctl.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := ctl.Write([]byte("DONE\n")); err != nil {
		return nil, err
	}
	var fin reply
	if err := readReply(br, &fin); err != nil {
		return nil, fmt.Errorf("reading the server's result: %w", err)
	}
	bytes := fin.Bytes
	if o.Reverse {
		bytes = recv.Load()
	}
	return &NetResult{Kind: "net", Engine: "builtin", Server: o.Server, Streams: o.Streams, Reverse: o.Reverse,
		Seconds: elapsed.Seconds(), Bytes: bytes, BitsPerSecond: float64(bytes) * 8 / elapsed.Seconds(), Retransmits: retrans,
		CPUClientPct: (tv(ru1.Utime) + tv(ru1.Stime) - tv(ru0.Utime) - tv(ru0.Stime)) / elapsed.Seconds() * 100,
		CPUServerPct: fin.CPUPct, Date: time.Now().UTC().Format(time.RFC3339)}, nil
}

func readReply(br *bufio.Reader, r *reply) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, r)
}
