package bench

import (
	"context"
	"errors"
	"syscall"

	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/willscott/go-nfs-client/nfs"
	"github.com/willscott/go-nfs-client/nfs/rpc"
	"github.com/willscott/go-nfs-client/nfs/util"
	"github.com/willscott/go-nfs-client/nfs/xdr"
)

// The NFS client is github.com/willscott/go-nfs-client (pure Go, BSD-2):
// NFSv3 over TCP with AUTH_SYS, mountd and nfsd found through the
// portmapper (port 111), several calls in flight on one connection. It
// writes FILE_SYNC (each write stable on the server's disk before the
// reply), where the Linux kernel client writes UNSTABLE and COMMITs once:
// seqwrite is the cautious number. A kernel mount in a private mount
// namespace measures the kernel client instead, but needs root, Linux and
// nfs-common's mount helper; this client runs anywhere the binary runs
// (laptops included), so it is the default.

// nfsCallTimeout is how long a call waits for its reply before the
// library sends it again: the Linux client's default over TCP (nfs(5):
// timeo=600, tenths of a second). The library's own 5 s re-sent every
// request a busy server had queued longer than that: with one nfsd
// thread and 32 reads of 1 MiB in flight, each waited over 10 s, was sent
// two or three times, and the server read it again each time (a READ is
// not in nfsd's duplicate reply cache) until the connection broke.
const nfsCallTimeout = 60 * time.Second

// setUpNFS configures the library before its first use (mountNFS). Not
// an init function: that code ran in every nastune command, and its page
// kept 64 KiB of the binary resident (the kernel maps the cached pages
// around a fault) in an audit that never mounts NFS.
func setUpNFS() {
	// The library logs server-chosen strings with log.Printf: silence it
	// (a value a peer chose never reaches the terminal unfiltered).
	util.DefaultLogger = quietLogger{}
	rpc.DefaultReadTimeout = nfsCallTimeout
}

var nfsSetUp sync.Once

type quietLogger struct{}

func (quietLogger) SetDebug(bool)         {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Infof(string, ...any)  {}

type nfsFS struct {
	mount  *nfs.Mount
	target *nfs.Target
	auth   rpc.Auth
	dir    string
}

func dialNFS(ctx context.Context, o ShareOptions) (shareFS, error) {
	u := o.URL
	type dialed struct {
		fs  *nfsFS
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		fs, err := mountNFS(u)
		ch <- dialed{fs, err}
	}()
	select {
	case d := <-ch:
		return d.fs, d.err
	case <-ctx.Done():
		go func() { // the library's calls take no context: close it once done
			if d := <-ch; d.fs != nil {
				d.fs.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// mountNFS finds mountd through the portmapper (port 111), or, with a
// port in the URL, speaks MOUNT and NFS on that one connection (servers
// in user space serve both on one port; the kernel's nfsd on 2049 does
// not serve MOUNT: omit the port there).
func mountNFS(u ShareURL) (*nfsFS, error) {
	nfsSetUp.Do(setUpNFS)
	var m *nfs.Mount
	if u.Port != 0 {
		var c *rpc.Client
		err := retryAddrInUse(func() (err error) { c, err = nfs.DialServiceAtPort(u.Host, u.Port); return err })
		if err != nil {
			return nil, fmt.Errorf("NFS server at %s: %w", u.Address(2049), err)
		}
		m = &nfs.Mount{Client: c}
	} else {
		err := retryAddrInUse(func() (err error) { m, err = nfs.DialMount(u.Host, time.Second); return err })
		if err != nil {
			return nil, fmt.Errorf("NFS mountd on %s (through the portmapper, port 111): %w", u.Host, err)
		}
	}
	host, _ := os.Hostname()
	auth := rpc.NewAuthUnix(host, uint32(os.Geteuid()), uint32(os.Getegid()))
	// The export is the longest prefix of the path mountd accepts; the
	// rest is the folder inside it.
	var lastErr error
	for n := len(u.Path); n >= 1; n-- {
		export := "/" + strings.Join(u.Path[:n], "/")
		var t *nfs.Target
		err := retryAddrInUse(func() (err error) { t, err = m.Mount(export, auth.Auth()); return err })
		if err != nil {
			lastErr = err
			continue
		}
		fs := &nfsFS{mount: m, target: t, auth: auth.Auth(), dir: strings.Join(u.Path[n:], "/")}
		if fs.dir != "" {
			fi, _, err := t.Lookup(fs.dir)
			if err != nil || !fi.IsDir() {
				fs.Close()
				return nil, fmt.Errorf("NFS export %s: folder %q: not found or not a folder", export, fs.dir)
			}
		}
		return fs, nil
	}
	m.Close()
	hint := "see showmount -e " + u.Host
	if u.Port != 0 {
		hint = "a kernel nfsd does not serve MOUNT on its own port: omit the port to ask the portmapper"
	}
	return nil, fmt.Errorf("NFS: mountd on %s refused every prefix of /%s: %v (%s)", u.Host, strings.Join(u.Path, "/"), lastErr, hint)
}

func (s *nfsFS) p(name string) string { return path.Join(s.dir, name) }

func (s *nfsFS) Create(name string) (shareFile, error) {
	// NFSv3 CREATE in this library is UNCHECKED: look up first, so an
	// existing name is refused (the names are random, 64 bits).
	if _, _, err := s.target.Lookup(s.p(name)); err == nil {
		return nil, fmt.Errorf("%s: %w", name, os.ErrExist)
	}
	if _, err := s.target.Create(s.p(name), 0o644); err != nil {
		return nil, err
	}
	return s.Open(name)
}

func (s *nfsFS) Open(name string) (shareFile, error) {
	f, err := s.target.OpenFile(s.p(name), 0o644)
	if err != nil {
		return nil, err
	}
	return &nfsFile{f: f}, nil
}

func (s *nfsFS) Mkdir(name string) error {
	_, err := s.target.Mkdir(s.p(name), 0o755)
	return err
}

func (s *nfsFS) List(dir string) ([]os.FileInfo, error) {
	es, err := s.target.ReadDirPlus(s.p(dir))
	if err != nil {
		return nil, err
	}
	out := make([]os.FileInfo, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out, nil
}

func (s *nfsFS) Stat(name string) (os.FileInfo, error) {
	fi, _, err := s.target.Lookup(s.p(name))
	return fi, err
}

func (s *nfsFS) Remove(name string) error {
	fi, _, err := s.target.Lookup(s.p(name))
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return s.target.RmDir(s.p(name))
	}
	return s.target.Remove(s.p(name))
}

func (s *nfsFS) Close() error {
	err := s.mount.Unmount()
	s.target.Close()
	s.mount.Close()
	return err
}

// nfsProcFSStat is NFSv3's FSSTAT procedure (RFC 1813 3.3.18); the
// library has FSINFO but not this call, so it is sent through the
// library's RPC client.
const nfsProcFSStat = 18

// fsstat3resok (RFC 1813): the file system's sizes; abytes is what this
// user (AUTH_SYS uid) may still write.
type nfsFSStat struct {
	Attr                   nfs.PostOpAttr
	TBytes, FBytes, ABytes uint64
	TFiles, FFiles, AFiles uint64
	Invarsec               uint32
}

// Free asks the server with FSSTAT for the folder's file system: abytes,
// the bytes this user may still write (a root-reserved share or a quota
// counts). A server that does not answer it leaves the space unchecked.
func (s *nfsFS) Free() (int64, bool) {
	dir := s.dir
	if dir == "" {
		dir = "."
	}
	_, fh, err := s.target.Lookup(dir)
	if err != nil {
		return 0, false
	}
	type args struct {
		rpc.Header
		FH []byte
	}
	res, err := s.target.Call(&args{Header: rpc.Header{Rpcvers: 2, Prog: nfs.Nfs3Prog, Vers: nfs.Nfs3Vers, Proc: nfsProcFSStat, Cred: s.auth, Verf: rpc.AuthNull}, FH: fh})
	if err != nil {
		return 0, false
	}
	st, err := xdr.ReadUint32(res)
	if err != nil || nfs.NFS3Error(st) != nil {
		return 0, false
	}
	var r nfsFSStat
	if err := xdr.Read(res, &r); err != nil {
		return 0, false
	}
	return int64(min(r.ABytes, 1<<62)), true
}

func (s *nfsFS) Info() ShareInfo {
	return ShareInfo{Protocol: "nfs", Dialect: "3", Signing: "off", Encryption: "off",
		Notes: []string{"AUTH_SYS: neither signed nor encrypted", "writes are FILE_SYNC (the kernel client writes UNSTABLE, then COMMIT)"}}
}

// nfsFile: reads at offsets run concurrently; the library writes only at
// its own position, so writes on one handle go one at a time (each stream
// has its own handle).
type nfsFile struct {
	f  *nfs.File
	mu sync.Mutex
}

func (f *nfsFile) ReadAt(b []byte, off int64) (int, error) { return f.f.ReadAt(b, off) }

func (f *nfsFile) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.f.Seek(off, 0); err != nil {
		return 0, err
	}
	return f.f.Write(b)
}

func (f *nfsFile) Close() error { return f.f.Close() }

// retryAddrInUse runs dial again, up to 8 times, while it fails with
// EADDRINUSE: go-nfs-client binds a random local port (49152-65535, or
// below 1024 for a privileged client) and does not try another when that
// one is taken (a connection of the same four-tuple in TIME_WAIT; the
// kernel lab hit it after a run's many connections). Each try draws a new
// port.
func retryAddrInUse(dial func() error) error {
	var err error
	for i := 0; i < 8; i++ {
		if err = dial(); err == nil || !errors.Is(err, syscall.EADDRINUSE) {
			return err
		}
		time.Sleep(time.Duration(i+1) * time.Millisecond) // the port is drawn from the clock's nanoseconds
	}
	return err
}
