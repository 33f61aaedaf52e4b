package bench

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of the network server: what a hostile or broken client can ask
// or hold.
const (
	MaxStreams  = 16
	MaxSeconds  = 60
	DefaultPort = "5201" // iperf3's port: firewall rules for it usually exist
	// DefaultMaxBytes caps the bytes one test may move (--max-bytes): a
	// minute at 10 Gbit/s is 75 GB.
	DefaultMaxBytes = 128 << 30
	maxHeader       = 4096
	helloTimeout    = 3 * time.Second // a connection must say who it is within this
	maxPerPeer      = 20              // connections per remote address
	maxConns        = 64              // connections in all
	maxQueue        = 8               // clients waiting for their turn
	stallTimeout    = 10 * time.Second
	// A wrong token costs a delay, and a few in a row lock that address
	// (an IPv6 /64) out for a while: guessing runs at a few tries a
	// minute, not thousands a second, and the log gets one line per
	// lockout, not one per try.
	badTokenDelay   = time.Second
	maxBadTokens    = 5
	badTokenWindow  = 10 * time.Minute
	badTokenLockout = time.Minute
	graceAfterTest  = 2 * time.Second
	dataMagic       = "NASTUNE-DATA "
	protoVersion    = 2
)

type header struct {
	V       int    `json:"v"`
	Token   string `json:"token,omitempty"`
	Streams int    `json:"streams"`
	Seconds int    `json:"seconds"`
	Reverse bool   `json:"reverse"`
	// Op is "" for a test, "attrib" for an attribution session
	// (server_attrib.go).
	Op string `json:"op,omitempty"`
}

type reply struct {
	OK    bool   `json:"ok,omitempty"`
	ID    string `json:"id,omitempty"`
	Error string `json:"error,omitempty"`
	Wait  int    `json:"wait,omitempty"` // queued: clients ahead
	// Filled at the end of a test.
	Bytes   int64   `json:"bytes,omitempty"`
	CPUPct  float64 `json:"cpu_percent,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	Capped  string  `json:"capped,omitempty"`
}

// Server serves one test at a time on one address; clients that arrive
// meanwhile wait their turn in arrival order.
//
// Every connection must send its first line (a control hello with the
// token, or a data hello with the running test's id) within 3 s. Each
// remote address may hold 20 connections and all together 64; when either
// is full, the oldest connection that has not yet said hello is dropped to
// make room, so an idle flood cannot lock out a real client. A test ends
// at its announced length (at most 60 s) plus 2 s, or at MaxBytes, or when
// the client leaves; a stream that moves nothing for 10 s is dropped.
type Server struct {
	Addr string
	// SharePassword, when set, lets the server run share tests on request
	// (share_remote.go) and gives the SMB password for a share from this
	// machine's own configuration; nil refuses share requests.
	SharePassword func(ShareURL) (string, error)

	Token string
	// MaxBytes caps one test (0: DefaultMaxBytes).
	MaxBytes int64
	// Log receives one line per test or refused client (may be nil).
	Log func(string)
	// Attribution sessions (server_attrib.go): SMBConf is smb.conf
	// (default /etc/samba/smb.conf), ExportsDir the folder of exports and
	// exports.d (default /etc), Root what is sampled (default the live
	// system).
	SMBConf    string
	ExportsDir string
	Root       AttribRoot
	// Devices resolves a share's folder to the block devices under it,
	// top first (the CLI passes tune's resolver: bench cannot import it).
	Devices    func(path string) ([]string, error)
	attribBusy bool

	ln    net.Listener
	mu    sync.Mutex
	conns map[*tracked]struct{}
	peers map[string]int
	test  *serverTest
	queue []*waiter
	busy  bool
	fails map[string]*tokenFails // by peerBlock
	now   func() time.Time       // tests move the clock
}

// tokenFails counts wrong tokens from one address block.
type tokenFails struct {
	n     int
	first time.Time // of the current window
	until time.Time // locked out until then
}

type tracked struct {
	c      net.Conn
	peer   string
	since  time.Time
	helloD bool // said a valid hello: not evictable
}

type waiter struct {
	peer string
	turn chan struct{}
}

type serverTest struct {
	id      string
	peer    string
	h       header
	bytes   atomic.Int64
	data    chan net.Conn
	started time.Time
	closed  bool // no more data connections accepted (under Server.mu)
	stop    chan struct{}
	capped  atomic.Value
}

// Listen binds the server's address (only that one); a missing port is 5201.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", WithPort(s.Addr))
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}

// WithPort adds the default port 5201 to an address without one.
func WithPort(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	if len(addr) > 1 && addr[0] == '[' && addr[len(addr)-1] == ']' {
		addr = addr[1 : len(addr)-1]
	}
	return net.JoinHostPort(addr, DefaultPort)
}

// Address is the bound address (useful with port 0).
func (s *Server) Address() string { return s.ln.Addr().String() }

// Open reports whether the server listens beyond loopback without a token.
func (s *Server) Open() bool {
	a, ok := s.ln.Addr().(*net.TCPAddr)
	return s.Token == "" && ok && !a.IP.IsLoopback()
}

// Serve accepts clients until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	s.mu.Lock()
	s.conns, s.peers = map[*tracked]struct{}{}, map[string]int{}
	s.mu.Unlock()
	go func() { <-ctx.Done(); s.ln.Close() }()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				s.closeAll()
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		tc := s.admit(c)
		if tc == nil {
			continue
		}
		go func() {
			defer s.release(tc)
			defer func() {
				if r := recover(); r != nil {
					s.log(fmt.Sprintf("client %s: internal error %v", c.RemoteAddr(), r))
				}
			}()
			s.handle(ctx, tc)
		}()
	}
}

func peerOf(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

// admit counts a new connection, evicting the oldest silent one (of this
// peer first) when a cap is reached; nil when every slot is held by
// connections that said hello.
func (s *Server) admit(c net.Conn) *tracked {
	t := &tracked{c: c, peer: peerOf(c), since: time.Now()}
	why := ""
	s.mu.Lock()
	switch {
	case s.peers[t.peer] >= maxPerPeer && !s.evict(t.peer):
		why = fmt.Sprintf("busy: %d connections open from %s", maxPerPeer, t.peer)
	case len(s.conns) >= maxConns && !s.evict(""):
		why = "busy: too many connections open"
	default:
		s.conns[t] = struct{}{}
		s.peers[t.peer]++
	}
	s.mu.Unlock()
	if why == "" {
		return t
	}
	// Say why (a fresh socket takes these few bytes without blocking).
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_ = send(c, reply{Error: why})
	c.Close()
	s.log("refused a connection from " + t.peer + ": " + why)
	return nil
}

// evict closes the oldest connection that has not said hello (of peer, or
// of anyone when peer is ""). Its handler then releases the slot; the
// count is dropped here so the new connection fits at once.
func (s *Server) evict(peer string) bool {
	var old *tracked
	for t := range s.conns {
		if !t.helloD && (peer == "" || t.peer == peer) && (old == nil || t.since.Before(old.since)) {
			old = t
		}
	}
	if old == nil {
		return false
	}
	delete(s.conns, old)
	s.peers[old.peer]--
	old.c.Close()
	return true
}

// peerBlock is the unit wrong tokens are counted by: the IPv4 address,
// or the /64 of an IPv6 address (one host usually holds a whole /64).
func peerBlock(peer string) string {
	ip := net.ParseIP(peer)
	if ip == nil || ip.To4() != nil {
		return peer
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

func (s *Server) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// checkToken compares token with the server's, counting wrong ones by
// address block in the same locked step, so concurrent guesses cannot all
// slip in before the count. A block with a lockout running gets its
// remaining time and no comparison.
func (s *Server) checkToken(peer, token string) (locked time.Duration, ok bool) {
	block := peerBlock(peer)
	now := s.clock()
	msg := ""
	defer func() {
		if msg != "" {
			s.log(msg)
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.fails[block]; f != nil && f.until.After(now) {
		return f.until.Sub(now), false
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.Token)) == 1 {
		return 0, true
	}
	if s.fails == nil {
		s.fails = map[string]*tokenFails{}
	}
	// Forget blocks whose window and lockout are over (bounded memory).
	for b, f := range s.fails {
		if now.Sub(f.first) > badTokenWindow && !f.until.After(now) {
			delete(s.fails, b)
		}
	}
	f := s.fails[block]
	if f == nil {
		f = &tokenFails{first: now}
		s.fails[block] = f
	}
	f.n++
	switch {
	case f.n >= maxBadTokens:
		f.until = now.Add(badTokenLockout)
		msg = fmt.Sprintf("refused a client from %s: %d wrong tokens, %s locked out for %v", peer, f.n, block, badTokenLockout)
		f.n, f.first = 0, now
	case f.n == 1:
		msg = "refused a client from " + peer + ": bad token"
	}
	return 0, false
}

// authorize applies the token rules of a test header to a request from
// peer: a lockout refuses, a wrong token costs badTokenDelay. It says why
// on c when it refuses.
func (s *Server) authorize(ctx context.Context, c net.Conn, peer, token string, refuse func(string)) bool {
	if s.Token == "" {
		return true
	}
	switch locked, ok := s.checkToken(peer, token); {
	case locked > 0:
		// Refused whatever the token: a right guess during the lockout
		// tells nothing.
		refuse(fmt.Sprintf("too many wrong tokens from %s: try again in %d s", peer, int(locked.Seconds())+1))
		return false
	case !ok:
		pause(ctx, badTokenDelay)
		_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
		refuse("bad token")
		return false
	}
	return true
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
	}
}

func (s *Server) release(t *tracked) {
	t.c.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[t]; ok {
		delete(s.conns, t)
		if s.peers[t.peer]--; s.peers[t.peer] <= 0 {
			delete(s.peers, t.peer)
		}
	}
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.conns {
		t.c.Close()
	}
}

func (s *Server) log(m string) {
	if s.Log != nil {
		s.Log(m)
	}
}

func (s *Server) hello(t *tracked) {
	s.mu.Lock()
	t.helloD = true
	s.mu.Unlock()
}

// handle reads the first line: a control hello or a data hello.
func (s *Server) handle(ctx context.Context, t *tracked) {
	c := t.c
	_ = c.SetReadDeadline(time.Now().Add(helloTimeout))
	br := bufio.NewReaderSize(io.LimitReader(c, maxHeader), 512)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return
	}
	if len(line) > len(dataMagic) && string(line[:len(dataMagic)]) == dataMagic {
		s.data(t, string(line[len(dataMagic):len(line)-1]))
		return
	}
	if rest, ok := strings.CutPrefix(string(line), shareMagic); ok {
		s.shareSession(ctx, t, rest)
		return
	}
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		_ = send(c, reply{Error: "bad header"})
		return
	}
	switch {
	case h.V != protoVersion:
		_ = send(c, reply{Error: fmt.Sprintf("protocol version %d, want %d: use the same nastune version on both ends", h.V, protoVersion)})
		return
	case !s.authorize(ctx, c, t.peer, h.Token, func(why string) { _ = send(c, reply{Error: why}) }):
		return
	}
	if h.Op == opAttrib {
		s.hello(t)
		s.attribSession(ctx, c, br)
		return
	}
	switch {
	case h.Streams < 1 || h.Streams > MaxStreams || h.Seconds < 1 || h.Seconds > MaxSeconds:
		_ = send(c, reply{Error: fmt.Sprintf("streams 1-%d and seconds 1-%d", MaxStreams, MaxSeconds)})
		return
	}
	s.hello(t)
	gone := watchGone(c)
	if !s.waitTurn(ctx, c, t.peer, gone, func(wait int, refusal string) error { return send(c, reply{Wait: wait, Error: refusal}) }) {
		return
	}
	s.runTest(ctx, c, t.peer, h, gone)
}

// watchGone is the one reader for the rest of a session's connection:
// the client sends nothing until DONE (or leaves), so any return means
// "stop": the channel closes.
func watchGone(c net.Conn) chan struct{} {
	_ = c.SetReadDeadline(time.Time{})
	gone := make(chan struct{})
	go func() {
		buf := make([]byte, 8)
		_, _ = c.Read(buf)
		close(gone)
	}()
	return gone
}

// waitTurn takes the test slot, queueing behind earlier clients (FIFO, one
// place per address). Clients that just finished go to the back: turns
// are fair. tell sends the client, in its session's reply, its place in
// the queue (wait) or why it is refused.
func (s *Server) waitTurn(ctx context.Context, c net.Conn, peer string, gone chan struct{}, tell func(wait int, refusal string) error) bool {
	s.mu.Lock()
	if !s.busy && len(s.queue) == 0 {
		s.busy = true
		s.mu.Unlock()
		return true
	}
	refusal := ""
	if slices.ContainsFunc(s.queue, func(w *waiter) bool { return w.peer == peer }) {
		refusal = "busy: this address is already waiting for a turn"
	} else if len(s.queue) >= maxQueue {
		refusal = "busy: too many clients waiting"
	}
	if refusal != "" {
		s.mu.Unlock()
		_ = tell(0, refusal)
		return false
	}
	w := &waiter{peer: peer, turn: make(chan struct{})}
	s.queue = append(s.queue, w)
	pos := len(s.queue)
	s.mu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	if tell(pos, "") != nil {
		s.leaveQueue(w)
		return false
	}
	select {
	case <-w.turn:
		return true
	case <-gone:
	case <-ctx.Done():
	}
	s.leaveQueue(w)
	return false
}

// leaveQueue drops w; when its turn had come meanwhile, passes it on.
func (s *Server) leaveQueue(w *waiter) {
	s.mu.Lock()
	for i, x := range s.queue {
		if x == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.mu.Unlock()
			return
		}
	}
	s.mu.Unlock()
	// Not queued any more: it had been given the slot.
	s.nextTurn()
}

// nextTurn hands the slot to the first waiter, or frees it.
func (s *Server) nextTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.test = nil
	if len(s.queue) == 0 {
		s.busy = false
		return
	}
	w := s.queue[0]
	s.queue = s.queue[1:]
	close(w.turn)
}

func (s *Server) runTest(ctx context.Context, c net.Conn, peer string, h header, gone chan struct{}) {
	maxBytes := s.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	t := &serverTest{id: randID(), peer: peer, h: h, data: make(chan net.Conn, h.Streams), stop: make(chan struct{})}
	s.mu.Lock()
	s.test = t
	s.mu.Unlock()
	var once sync.Once
	finish := func() {
		once.Do(func() {
			s.mu.Lock()
			t.closed = true
			s.mu.Unlock()
			close(t.stop)
			for {
				select {
				case dc := <-t.data:
					dc.Close() // announced but never started
				default:
					return
				}
			}
		})
	}
	var turnOnce sync.Once
	passTurn := func() { turnOnce.Do(s.nextTurn) }
	defer func() { finish(); passTurn() }()
	cpu0 := processCPU()
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	if err := send(c, reply{OK: true, ID: t.id}); err != nil {
		return
	}
	t.started = time.Now()
	limit := time.NewTimer(time.Duration(h.Seconds)*time.Second + graceAfterTest)
	defer limit.Stop()
	var wg sync.WaitGroup
	capped := make(chan struct{})
	var capOnce sync.Once
	onCap := func() { capOnce.Do(func() { t.capped.Store("max-bytes"); close(capped) }) }
	started := 0
loop:
	for {
		var dc net.Conn
		if started < h.Streams {
			select {
			case dc = <-t.data:
			case <-gone:
				break loop
			case <-limit.C:
				t.capped.Store("time")
				break loop
			case <-capped:
				break loop
			case <-ctx.Done():
				break loop
			}
			started++
			wg.Add(1)
			go func() { defer wg.Done(); s.stream(dc, t, maxBytes, onCap) }()
			continue
		}
		select {
		case <-gone:
		case <-limit.C:
			t.capped.Store("time")
		case <-capped:
		case <-ctx.Done():
		}
		break
	}
	finish()
	wg.Wait()
	elapsed := time.Since(t.started)
	cpu1 := processCPU()
	cpu := (cpu1 - cpu0) / elapsed.Seconds() * 100
	// The slot is freed before the final reply, so the next client in
	// line starts while this one reads its result.
	passTurn()
	capNote, _ := t.capped.Load().(string)
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	_ = send(c, reply{Bytes: t.bytes.Load(), CPUPct: cpu, Seconds: elapsed.Seconds(), Capped: capNote})
	s.log(fmt.Sprintf("test from %s: %d streams, %d bytes%s", peer, h.Streams, t.bytes.Load(), map[bool]string{true: ", stopped at the " + capNote + " cap", false: ""}[capNote != ""]))
}

// data hands a data connection to the running test with that id; it must
// come from the address that started the test.
func (s *Server) data(t *tracked, id string) {
	s.mu.Lock()
	test := s.test
	if test == nil || test.closed || t.peer != test.peer || subtle.ConstantTimeCompare([]byte(id), []byte(test.id)) != 1 {
		s.mu.Unlock()
		return
	}
	t.helloD = true
	select {
	case test.data <- t.c:
		s.mu.Unlock()
	default:
		s.mu.Unlock()
		return // more streams than announced
	}
	// The stream goroutine owns the conn now; keep the slot counted
	// until the test is over.
	<-test.stop
}

// stream sinks (or, reversed, sources) one data connection until the test
// stops, the byte cap is reached or the stream stalls.
func (s *Server) stream(c net.Conn, t *serverTest, maxBytes int64, onCap func()) {
	defer c.Close()
	end := t.started.Add(time.Duration(t.h.Seconds)*time.Second + graceAfterTest)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-t.stop:
			_ = c.SetDeadline(time.Now())
		case <-stopped:
		}
	}()
	buf := make([]byte, 128<<10)
	for {
		d := time.Now().Add(stallTimeout)
		if end.Before(d) {
			d = end
		}
		var n int
		var err error
		if t.h.Reverse {
			_ = c.SetWriteDeadline(d)
			n, err = c.Write(buf)
		} else {
			_ = c.SetReadDeadline(d)
			n, err = c.Read(buf)
		}
		if t.bytes.Add(int64(n)) >= maxBytes {
			onCap()
			return
		}
		if err != nil {
			return
		}
	}
}

func send(c net.Conn, r reply) error {
	b, _ := json.Marshal(r)
	_, err := c.Write(append(b, '\n'))
	return err
}
