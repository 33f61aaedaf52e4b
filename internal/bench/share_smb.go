package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"net"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	smb2 "github.com/cloudsoda/go-smb2"
)

// The SMB client is github.com/cloudsoda/go-smb2 (pure Go, BSD-2): SMB
// 2.0.2 to 3.1.1, NTLMv2, signing (HMAC-SHA256, AES-CMAC) when the server
// requires it, AES-CCM/GCM encryption when the server or share requires
// it, 1 MiB requests with large-MTU credits. It does not expose the
// dialect, signing or encryption in effect, so smbWire reads them from
// the replies: the dialect of the NEGOTIATE reply, the SIGNED flag of
// data replies, transform headers (encrypted frames).

// smbMaxCredits lets 1 MiB requests (16 credits each) from several
// streams be in flight: Samba grants up to 8192 (smb2 max credits).
const smbMaxCredits = 1024

type smbFS struct {
	sess  *smb2.Session
	share *smb2.Share
	dir   string
	wire  *smbWire
}

func dialSMB(ctx context.Context, o ShareOptions) (shareFS, error) {
	u := o.URL
	addr := u.Address(445)
	nd := net.Dialer{Timeout: 10 * time.Second}
	c, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", addr, err)
	}
	w := &smbWire{Conn: c}
	d := &smb2.Dialer{MaxCreditBalance: smbMaxCredits, Initiator: &smb2.NTLMInitiator{User: u.User, Password: o.Password}}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sess, err := d.DialConn(dctx, w, addr)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("SMB session with %s as %q: %w", addr, orGuest(u.User), err)
	}
	share, err := sess.Mount(u.Path[0])
	if err != nil {
		_ = sess.Logoff()
		c.Close()
		return nil, fmt.Errorf("SMB share %q on %s: %w", u.Path[0], addr, err)
	}
	fs := &smbFS{sess: sess, share: share, dir: strings.Join(u.Path[1:], "/"), wire: w}
	if fs.dir != "" {
		fi, err := share.Stat(fs.dir)
		if err != nil || !fi.IsDir() {
			fs.Close()
			return nil, fmt.Errorf("SMB share %q: folder %q: not found or not a folder", u.Path[0], fs.dir)
		}
	}
	return fs, nil
}

func orGuest(u string) string {
	if u == "" {
		return "guest"
	}
	return u
}

func (s *smbFS) p(name string) string {
	// go-smb2 takes backslash or slash paths relative to the share.
	return strings.ReplaceAll(path.Join(s.dir, name), "/", `\`)
}

func (s *smbFS) Create(name string) (shareFile, error) {
	return s.file(s.share.OpenFile(s.p(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644))
}

func (s *smbFS) Open(name string) (shareFile, error) {
	return s.file(s.share.OpenFile(s.p(name), os.O_RDWR, 0))
}

func (s *smbFS) file(f *smb2.File, err error) (shareFile, error) {
	if err != nil {
		return nil, err
	}
	return smbFile{File: f, wire: s.wire}, nil
}

// smbFile tells the wire when a read's reply has been taken (copied out of
// the library's receive buffer).
type smbFile struct {
	*smb2.File
	wire *smbWire
}

func (f smbFile) ReadAt(b []byte, off int64) (int, error) {
	f.wire.readStart(len(b))
	defer f.wire.readDone()
	return f.File.ReadAt(b, off)
}

func (s *smbFS) Mkdir(name string) error                { return s.share.Mkdir(s.p(name), 0o755) }
func (s *smbFS) List(dir string) ([]os.FileInfo, error) { return s.share.ReadDir(s.p(dir)) }
func (s *smbFS) Stat(name string) (os.FileInfo, error)  { return s.share.Stat(s.p(name)) }
func (s *smbFS) Remove(name string) error               { return s.share.Remove(s.p(name)) }

func (s *smbFS) Close() error {
	_ = s.share.Umount()
	err := s.sess.Logoff()
	s.wire.Close()
	return err
}

func (s *smbFS) Info() ShareInfo { return s.wire.info() }

// Free asks for the folder's FileFsFullSizeInformation: the allocation
// units available to this user times their size (saturating: a server's
// numbers are not trusted to fit).
func (s *smbFS) Free() (int64, bool) {
	f, err := s.share.Open(strings.ReplaceAll(s.dir, "/", `\`))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fi, err := f.Statfs()
	if err != nil {
		return 0, false
	}
	hi, lo := bits.Mul64(fi.AvailableBlockCount(), fi.BlockSize())
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(lo), true
}

// smbWire watches the SMB2 frames the server sends (4-byte direct-TCP
// length, then the SMB2 header) to tell the dialect, signing and
// encryption in effect; it reads no payload beyond the header.
//
// It also keeps the library's receive buffers few. go-smb2's receiver
// reads every reply into a buffer of its own (1 MiB for a 1 MiB read) and
// the caller copies it out later; when the reading goroutines lag (a busy
// client CPU), a reply per request in flight waits in memory: 8 MiB more
// with -P 8. So once smbReadsAhead replies of whole reads wait to be
// taken, the wire reads no further frame (the kernel's socket buffer and
// TCP's window hold the data, as they do for any slow reader) until a
// read returns, or smbReadsAheadWait passes: a miscount costs time, never
// a hang. A reply counts when reads are in progress, are of at least 64
// KiB, and the frame carries one whole read (a server that splits reads
// into smaller replies is not held back).
type smbWire struct {
	net.Conn
	// Reads (smbFile.ReadAt) in progress, their size, and replies of
	// whole reads read from the socket and not yet taken (at most reads).
	gate                    sync.Mutex
	reads, readLen, waiting int
	taken                   chan struct{}
	holdMax                 time.Duration // tests; 0: smbReadsAheadWait

	mu      sync.Mutex
	hdr     [4 + 72]byte // the frame's length prefix and the start of the frame
	have    int          // bytes of hdr filled
	left    int          // bytes of the current frame still to pass
	dialect atomic.Uint32
	// Data replies (CREATE and later commands) seen plain, plain and
	// signed, and frames seen encrypted.
	plain, signed, encrypted atomic.Int64
}

const (
	smbReadsAhead     = 2
	smbReadsAheadWait = 50 * time.Millisecond
)

func (w *smbWire) Read(b []byte) (int, error) {
	w.mu.Lock()
	boundary := w.left == 0 && w.have == 0
	w.mu.Unlock()
	if boundary {
		w.hold()
	}
	n, err := w.Conn.Read(b)
	w.mu.Lock()
	w.scan(b[:n])
	w.mu.Unlock()
	return n, err
}

// hold waits, before the next frame, while smbReadsAhead replies wait.
func (w *smbWire) hold() {
	var timer *time.Timer
	for {
		w.gate.Lock()
		wait := w.waiting >= smbReadsAhead
		if w.taken == nil {
			w.taken = make(chan struct{}, 1)
		}
		taken := w.taken
		w.gate.Unlock()
		if !wait {
			break
		}
		if timer == nil {
			d := smbReadsAheadWait
			if w.holdMax > 0 {
				d = w.holdMax
			}
			timer = time.NewTimer(d)
		}
		select {
		case <-taken:
		case <-timer.C:
			timer = nil
			return
		}
	}
	if timer != nil {
		timer.Stop()
	}
}

func (w *smbWire) readStart(n int) {
	w.gate.Lock()
	w.reads++
	w.readLen = n
	w.gate.Unlock()
}

func (w *smbWire) readDone() {
	w.gate.Lock()
	w.reads--
	w.waiting = max(min(w.waiting-1, w.reads), 0)
	taken := w.taken
	w.gate.Unlock()
	if taken != nil {
		select {
		case taken <- struct{}{}:
		default:
		}
	}
}

// replyStarts counts a frame of size bytes (its length prefix just read).
func (w *smbWire) replyStarts(size int) {
	w.gate.Lock()
	if w.reads > 0 && w.readLen >= 64<<10 && size >= w.readLen {
		w.waiting = min(w.waiting+1, w.reads)
	}
	w.gate.Unlock()
}

func (w *smbWire) scan(b []byte) {
	for len(b) > 0 {
		if w.left > 0 {
			k := min(w.left, len(b))
			if w.have < len(w.hdr) {
				c := copy(w.hdr[w.have:], b[:k])
				w.have += c
				if w.have == len(w.hdr) {
					w.frame()
				}
			}
			w.left -= k
			b = b[k:]
			if w.left == 0 && w.have < len(w.hdr) && w.have >= 4 {
				w.frame() // a short frame
			}
			if w.left == 0 {
				w.have = 0
			}
			continue
		}
		// Reading the 4-byte length prefix.
		c := copy(w.hdr[w.have:4], b)
		w.have += c
		b = b[c:]
		if w.have == 4 {
			w.left = int(binary.BigEndian.Uint32(w.hdr[:4]) & 0xffffff)
			w.replyStarts(w.left)
			if w.left == 0 {
				w.have = 0
			}
		}
	}
}

// frame looks at one reply's header (w.hdr[4:w.have]).
func (w *smbWire) frame() {
	h := w.hdr[4:w.have]
	if len(h) < 4 {
		return
	}
	switch string(h[:4]) {
	case "\xfdSMB":
		w.encrypted.Add(1)
	case "\xfeSMB":
		if len(h) < 64 {
			return
		}
		cmd := binary.LittleEndian.Uint16(h[12:])
		flags := binary.LittleEndian.Uint32(h[16:])
		status := binary.LittleEndian.Uint32(h[8:])
		switch {
		case cmd == 0 && len(h) >= 70 && status == 0: // NEGOTIATE reply: DialectRevision
			w.dialect.Store(uint32(binary.LittleEndian.Uint16(h[68:])))
		case cmd >= 5 && status != 0x103: // CREATE and later; not an interim STATUS_PENDING
			w.plain.Add(1)
			if flags&0x8 != 0 { // SMB2_FLAGS_SIGNED
				w.signed.Add(1)
			}
		}
	}
}

func (w *smbWire) info() ShareInfo {
	in := ShareInfo{Protocol: "smb", Signing: "unknown", Encryption: "off"}
	switch w.dialect.Load() {
	case 0x0202:
		in.Dialect = "2.0.2"
	case 0x0210:
		in.Dialect = "2.1"
	case 0x0300:
		in.Dialect = "3.0"
	case 0x0302:
		in.Dialect = "3.0.2"
	case 0x0311:
		in.Dialect = "3.1.1"
	case 0:
		in.Dialect = "unknown"
	default:
		in.Dialect = fmt.Sprintf("0x%04x", w.dialect.Load())
	}
	switch {
	case w.encrypted.Load() > 0:
		in.Encryption = "on"
		in.Signing = "n/a (encrypted: AES-CCM/GCM authenticates every message)"
	case w.plain.Load() > 0 && w.signed.Load() == w.plain.Load():
		in.Signing = "on"
	case w.plain.Load() > 0 && w.signed.Load() == 0:
		in.Signing = "off"
	case w.plain.Load() > 0:
		in.Signing = "partly"
	default:
		in.Encryption = "unknown"
	}
	return in
}
