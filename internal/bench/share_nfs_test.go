package bench

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	gonfs "github.com/willscott/go-nfs"
	"github.com/willscott/go-nfs-client/nfs/rpc"
	nfshelper "github.com/willscott/go-nfs/helpers"
)

// The NFS client against a real NFSv3 server on loopback: go-nfs, a
// server in Go (MOUNT and NFS on one port) serving a temp folder. The
// kernel's nfsd needs a kernel module the test machines may lack; the
// kernel lab is where that case belongs.
func TestRunShareNFS(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "sub", sharePrefix+"theirs.bin")
	if err := os.WriteFile(planted, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go gonfs.Serve(l, nfshelper.NewCachingHandler(nfshelper.NewNullAuthHandler(osfs.New(dir)), 4096))
	port := l.Addr().(*net.TCPAddr).Port
	u, err := ParseShareURL("nfs://127.0.0.1:" + strconv.Itoa(port) + "/export/sub")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := RunShare(ctx, ShareOptions{URL: u, Tests: []string{"seqwrite", "seqread", "smallfiles", "metadata"},
		Size: 16 << 20, Streams: 2, Time: time.Minute, Files: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Protocol != "nfs" || res.Dialect != "3" || res.Signing != "off" {
		t.Errorf("info %+v", res.ShareInfo)
	}
	checkShareTests(t, res, 16<<20, "seqwrite", "seqread", "smallfiles", "metadata")
	es, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(es) != 1 || es[0].Name() != filepath.Base(planted) {
		t.Errorf("left behind or removed in the export: %v", es)
	}
	if b, _ := os.ReadFile(planted); string(b) != "keep" {
		t.Errorf("the planted file changed: %q", b)
	}
}

// availHandler is go-nfs's handler reporting avail bytes free for the
// user in FSSTAT (abytes), as a nearly full export or a quota would.
type availHandler struct {
	gonfs.Handler
	avail uint64
}

func (h availHandler) FSStat(ctx context.Context, fs billy.Filesystem, st *gonfs.FSStat) error {
	st.AvailableSize = h.avail
	st.FreeSize = h.avail + 1<<30 // root's reserve: what the user may not write
	return nil
}

// seqwrite, seqread and smallfiles over NFS check the free space FSSTAT
// reports for this user before writing, as over SMB: the same runs as
// TestRunShareRefusesSizeBeyondFreeSpace against go-nfs reporting that
// much free.
func TestRunShareNFSRefusesSizeBeyondFreeSpace(t *testing.T) {
	for i, tc := range roomCases {
		if tc.free == 0 {
			continue // go-nfs always answers FSSTAT
		}
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			go gonfs.Serve(l, nfshelper.NewCachingHandler(availHandler{nfshelper.NewNullAuthHandler(osfs.New(dir)), uint64(tc.free)}, 4096))
			u, err := ParseShareURL("nfs://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + "/export")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			o := shareOpts(nil)
			o.URL, o.Tests, o.dial = u, tc.tests, nil
			_, err = RunShare(ctx, o)
			checkRoomRun(t, i, err, dir)
		})
	}
}

// TestNFSCallTimeout: a call waits as long as the Linux client before it
// is sent again (the library's 5 s re-sent every read one nfsd thread had
// queued longer, and the server read each again).
func TestNFSCallTimeout(t *testing.T) {
	nfsSetUp.Do(setUpNFS) // what mountNFS does first
	if rpc.DefaultReadTimeout != 60*time.Second {
		t.Errorf("go-nfs-client re-sends a call after %v; want the kernel client's timeo=600 (60 s)", rpc.DefaultReadTimeout)
	}
}
