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
	return s.share.OpenFile(s.p(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
}

func (s *smbFS) Open(name string) (shareFile, error) {
	return s.share.OpenFile(s.p(name), os.O_RDWR, 0)
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
type smbWire struct {
	net.Conn
	mu      sync.Mutex
	hdr     [4 + 72]byte // the frame's length prefix and the start of the frame
	have    int          // bytes of hdr filled
	left    int          // bytes of the current frame still to pass
	dialect atomic.Uint32
	// Data replies (CREATE and later commands) seen plain, plain and
	// signed, and frames seen encrypted.
	plain, signed, encrypted atomic.Int64
}

func (w *smbWire) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	w.mu.Lock()
	w.scan(b[:n])
	w.mu.Unlock()
	return n, err
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
