package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nastune/nastune/internal/units"
)

// ShareTests are the `bench share` test names, in run order.
var ShareTests = []string{"seqwrite", "seqread", "smallfiles", "metadata"}

// ShareDefaultTests run when --tests is not given.
var ShareDefaultTests = []string{"seqwrite", "seqread"}

// shareFS is one protocol client behind `bench share` (share_smb.go,
// share_nfs.go): names are slash-separated and relative to the folder of
// the URL.
type shareFS interface {
	// Create makes a new file and fails when the name exists.
	Create(name string) (shareFile, error)
	// Open opens an existing file for reading and writing.
	Open(name string) (shareFile, error)
	Mkdir(name string) error
	List(dir string) ([]os.FileInfo, error)
	Stat(name string) (os.FileInfo, error)
	Remove(name string) error // a file or an empty folder
	Close() error
	// Info describes the session: protocol, dialect, signing, encryption.
	Info() ShareInfo
	// Free is the space the server says this user may still write in
	// the folder's filesystem; false when the protocol or the server does
	// not say.
	Free() (int64, bool)
}

// shareFile reads and writes at offsets; concurrent calls are allowed
// (each is one or more requests on the wire).
type shareFile interface {
	io.ReaderAt
	io.WriterAt
	Close() error
}

// ShareInfo is what the client knows of the session.
type ShareInfo struct {
	Protocol string `json:"protocol"`          // "smb" or "nfs"
	Dialect  string `json:"dialect,omitempty"` // "3.1.1", "3"
	// Signing and Encryption are "on", "off" or "unknown", as seen on the
	// wire (SMB: the SIGNED flag and transform headers of the replies).
	Signing    string `json:"signing"`
	Encryption string `json:"encryption"`
	// Notes say what the client library does differently from the usual
	// clients (e.g. NFS writes FILE_SYNC).
	Notes []string `json:"notes,omitempty"`
}

// ShareResult is the answer of `nastune bench share`.
type ShareResult struct {
	Kind string `json:"kind"` // "share"
	URL  string `json:"url"`  // never with a password
	ShareInfo
	Size      int64        `json:"size"`
	BlockSize int          `json:"block_size"`
	Streams   int          `json:"streams"`
	InFlight  int          `json:"requests_in_flight"` // per stream
	Files     int          `json:"files"`              // smallfiles and metadata
	Tests     []TestResult `json:"tests"`
	// TCP is raw TCP to the host in the same run (when a nastune bench
	// server answered there), Limit the verdict per test, Server what the
	// server sampled during each test (its median run), by test name.
	TCP    *ShareTCP                   `json:"tcp,omitempty"`
	Limit  []ShareLimit                `json:"limit,omitempty"`
	Server map[string]*ShareServerView `json:"server,omitempty"`
	// Attribution says what the limit attribution still needs.
	Attribution string `json:"attribution,omitempty"`
	// ShortTests are the tests too short for the server's sampling.
	ShortTests  []string `json:"too_short_to_attribute,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	Date        string   `json:"date"`
}

// ShareOptions configure a run.
type ShareOptions struct {
	URL      ShareURL
	Password string
	Tests    []string
	Size     int64
	Block    int           // request size (default 1 MiB)
	Streams  int           // parallel streams (handles) or workers
	InFlight int           // requests in flight per stream (default: inFlightPerStream)
	Time     time.Duration // limit per test
	Repeat   int
	Files    int // smallfiles and metadata (default 100)
	// TCPServer is the nastune bench server (HOST:PORT) to measure raw TCP
	// against after the share tests; "" skips it. TCPToken is its token.
	TCPServer, TCPToken string
	TCPTime             time.Duration // per direction (default 5 s)
	// Warm keeps the test file in the server's page cache before seqread
	// (by default the server evicts it: the read measures the disk path).
	Warm bool
	// OnInterval gets one line per second of a seq test.
	OnInterval func(test string, run int, iv Interval)
	Progress   func(test string, frac float64)

	dial func(ctx context.Context, o ShareOptions) (shareFS, error) // tests
}

// Share file names start with sharePrefix and hold the 4 KiB header of
// bench disk: nastune removes only what it made in this run, and checks
// the header before it removes a test file.
const (
	sharePrefix   = "nastune-bench-"
	smallFileSize = 64 << 10
	stampSize     = 16
	stampEvery    = 4096
)

// A stream keeps up to 4 requests in flight, and all streams together
// keep up to inFlightBudget bytes of them (at least one request per
// stream): each request in flight holds a buffer of its size here and
// another in the SMB library until its reply is copied, and the client's
// memory goal is 30 MiB of RSS on a 128 MiB NAS. 8 MiB in flight is more
// than a LAN's bandwidth-delay product (10 Gbit/s × 6 ms), so it does not
// bound the rate: -P 1 and -P 2 keep 4 requests of 1 MiB per stream, -P 3
// and -P 4 two, -P 5 and more one (make bench: -P 8 moved as much with 8
// requests in flight as with 32, in half the memory).
const (
	maxInFlightPerStream = 4
	inFlightBudget       = 8 << 20
)

// inFlightPerStream is the requests in flight per stream for streams
// streams of block bytes.
func inFlightPerStream(streams, block int) int {
	return min(max(inFlightBudget/(max(streams, 1)*max(block, 1)), 1), maxInFlightPerStream)
}

// ErrNoRoom is a run whose files would take more than half of the
// share's free space.
var ErrNoRoom = errors.New("not enough free space on the share")

// ErrContent is a share that returned other bytes than nastune wrote.
var ErrContent = errors.New("content mismatch")

// pattern is the test data: one random block (incompressible), each 4 KiB
// stamped with the file id and the offset, so a read can verify every byte
// cheaply and a misplaced or stale block is caught.
type pattern struct {
	id   uint64
	tmpl []byte
}

func newPattern(block int) *pattern {
	p := &pattern{id: rand.Uint64(), tmpl: make([]byte, block)}
	fillRandom(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), p.tmpl)
	return p
}

// fill writes the data of [off, off+len(b)) into b; off and len(b) are
// multiples of stampEvery and b is at most one block.
func (p *pattern) fill(b []byte, off int64) {
	copy(b, p.tmpl)
	for i := 0; i+stampSize <= len(b); i += stampEvery {
		binary.LittleEndian.PutUint64(b[i:], p.id)
		binary.LittleEndian.PutUint64(b[i+8:], uint64(off)+uint64(i))
	}
}

func (p *pattern) verify(b []byte, off int64) error {
	for i := 0; i < len(b); i += stampEvery {
		end := min(i+stampEvery, len(b))
		if end-i >= stampSize && (binary.LittleEndian.Uint64(b[i:]) != p.id || binary.LittleEndian.Uint64(b[i+8:]) != uint64(off)+uint64(i)) ||
			end-i > stampSize && !bytes.Equal(b[i+stampSize:end], p.tmpl[i+stampSize:end]) {
			return fmt.Errorf("%w at offset %d: the share returned other bytes than nastune wrote", ErrContent, off+int64(i))
		}
	}
	return nil
}

// RunShare runs the tests against a share. On a cancelled ctx it returns
// the tests finished so far with ErrInterrupted; the files it made are
// removed in every case.
func RunShare(ctx context.Context, o ShareOptions) (res *ShareResult, err error) {
	if o.Block == 0 {
		o.Block = seqBlock
	}
	if o.Block < stampEvery || o.Block%stampEvery != 0 || o.Block > 16<<20 {
		return nil, fmt.Errorf("block size %d: give a multiple of 4 KiB up to 16 MiB", o.Block)
	}
	o.Streams = max(o.Streams, 1)
	if o.InFlight <= 0 {
		o.InFlight = inFlightPerStream(o.Streams, o.Block)
	}
	if o.Time <= 0 {
		o.Time = 10 * time.Second
	}
	if o.Files <= 0 {
		o.Files = 100
	}
	o.Repeat = max(o.Repeat, 1)
	if len(o.Tests) == 0 {
		o.Tests = ShareDefaultTests
	}
	o.Size = o.Size / int64(o.Block) * int64(o.Block)
	if o.Size < int64(o.Block)*int64(o.Streams) {
		return nil, fmt.Errorf("--size %s is below one request of --bs %s per stream (-P %d): give a larger --size, a smaller --bs or a smaller -P",
			units.Bytes(uint64(o.Size)), units.Bytes(uint64(o.Block)), o.Streams)
	}
	// Run in the canonical order whatever order --tests gave.
	var tests []string
	for _, t := range ShareTests {
		for _, w := range o.Tests {
			if w == t && !contains(tests, t) {
				tests = append(tests, t)
			}
		}
	}
	for _, w := range o.Tests {
		if !contains(ShareTests, w) {
			return nil, fmt.Errorf("unknown share test %q", w)
		}
	}
	dial := o.dial
	if dial == nil {
		dial = dialShare
	}
	fsys, err := dial(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, err
	}
	defer fsys.Close()
	if err := checkRoom(fsys, o, tests); err != nil {
		return nil, err
	}
	res = &ShareResult{Kind: "share", URL: o.URL.String(), ShareInfo: fsys.Info(), Size: o.Size, BlockSize: o.Block,
		Streams: o.Streams, InFlight: o.InFlight, Files: o.Files, Date: time.Now().UTC().Format(time.RFC3339),
		Attribution: "attribution needs `nastune bench net -s` on " + o.URL.Host}
	r := &shareRun{o: o, fs: fsys, pat: newPattern(o.Block)}
	if o.TCPServer != "" {
		r.attr, r.attrErr = dialAttribFor(ctx, o)
		defer func() {
			if r.attr != nil {
				r.attr.Close()
			}
		}()
	}
	defer func() {
		if cerr := r.cleanup(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	for _, t := range tests {
		var runs []TestResult
		for i := 0; i < o.Repeat; i++ {
			tr, terr := r.one(ctx, t, i)
			if ctx.Err() != nil {
				res.Interrupted = true
				return res, ErrInterrupted
			}
			if terr != nil {
				return res, fmt.Errorf("%s: %w", t, terr)
			}
			runs = append(runs, tr)
		}
		if t == "metadata" {
			res.Tests = append(res.Tests, medianOps(runs))
		} else {
			res.Tests = append(res.Tests, median(runs))
		}
	}
	// The info may have learnt more once data flowed (signing seen on reads).
	res.ShareInfo = fsys.Info()
	if r.attr != nil {
		r.attr.Close() // before raw TCP: the server samples nothing meanwhile
		r.attr = nil
	}
	for _, t := range res.Tests {
		if v := r.viewOf(t); v != nil && v.Samples > 0 {
			if res.Server == nil {
				res.Server = map[string]*ShareServerView{}
			}
			res.Server[t.Name] = v
		}
	}
	if o.TCPServer != "" {
		if err := shareTCP(ctx, o, res); err != nil {
			if ctx.Err() != nil {
				res.Interrupted = true
				return res, ErrInterrupted
			}
			res.Attribution = fmt.Sprintf("attribution needs `nastune bench net -s` on %s (raw TCP to %s: %v)", o.URL.Host, o.TCPServer, err)
		}
	}
	switch {
	case r.attrErr != "":
		res.Attribution = r.attrErr
	case res.Server != nil && res.TCP != nil:
		res.Attribution = ""
	}
	res.Limit = shareLimits(res)
	return res, nil
}

// checkRoom refuses a run whose files would take more than half of the
// free space the server reports: seqread completes a short seqwrite
// untimed (the reads need the whole file), so --time does not bound what
// is written, and a --size beyond the free space would fill the NAS's
// disk (other writers failing) before nastune removes its file.
func checkRoom(fsys shareFS, o ShareOptions, tests []string) error {
	free, ok := fsys.Free()
	if !ok {
		return nil
	}
	var need int64
	if contains(tests, "seqwrite") || contains(tests, "seqread") {
		need += o.Size + headerSize
	}
	if contains(tests, "smallfiles") {
		need += int64(o.Files) * smallFileSize
	}
	if need <= free/2 {
		return nil
	}
	hint := "give a smaller --size"
	if contains(tests, "smallfiles") {
		hint = "give a smaller --size or --files"
	}
	return fmt.Errorf("%w: the run writes up to %s and the server reports %s free for this user; nastune uses at most half of it: %s",
		ErrNoRoom, units.Bytes(uint64(need)), units.Bytes(uint64(free)), hint)
}

// shareRun holds the files of one run: what it made, so it removes only those.
type shareRun struct {
	o       ShareOptions
	fs      shareFS
	pat     *pattern
	bufs    [][]byte // one per request in flight (Streams × InFlight), made once for every seq test
	file    string   // the big test file, once created
	written int64    // bytes of it known to hold the pattern
	dirs    []string
	// Attribution (share_attrib.go).
	attr    *attribClient
	attrErr string
	views   map[string][]attribRun
	cpu0    float64 // processCPU seconds at the run's start
	t0      time.Time
}

func (r *shareRun) one(ctx context.Context, test string, run int) (TestResult, error) {
	var timed func() (TestResult, error)
	switch test {
	case "seqwrite":
		if err := r.ensureFile(); err != nil {
			return TestResult{}, err
		}
		timed = func() (TestResult, error) { return r.seq(ctx, test, run, true) }
	case "seqread":
		if err := r.ensureFile(); err != nil {
			return TestResult{}, err
		}
		if r.written < r.o.Size {
			// The reads need the whole file: write what a short
			// seqwrite (--time) left out, untimed.
			if _, err := r.seqRange(ctx, "preparing the test file", -1, true, r.written); err != nil {
				return TestResult{}, err
			}
		}
		timed = func() (TestResult, error) { return r.seq(ctx, test, run, false) }
	case "smallfiles":
		timed = func() (TestResult, error) { return r.smallFiles(ctx, run) }
	case "metadata":
		timed = func() (TestResult, error) { return r.metadata(ctx, run) }
	default:
		return TestResult{}, fmt.Errorf("unknown test %q", test)
	}
	// The server samples the timed part (and the evicting of the test
	// file before a read).
	r.attrBegin(test)
	tr, err := timed()
	if err == nil {
		r.attrEnd(test, tr)
	}
	return tr, err
}

// ensureFile creates the test file with its header (never opening a name
// that exists: Create fails then).
func (r *shareRun) ensureFile() error {
	if r.file != "" {
		return nil
	}
	name := sharePrefix + randID() + ".bin"
	f, err := r.fs.Create(name)
	if err != nil {
		return fmt.Errorf("creating the test file %s: %w%s", name, err, writeHint(err))
	}
	if err := writeHeader(f); err != nil {
		// Made exclusively a moment ago and still without a header: ours
		// all the same, removed by name.
		f.Close()
		_ = r.fs.Remove(name)
		return fmt.Errorf("writing the header of %s: %w", name, err)
	}
	r.file = name
	return f.Close()
}

func writeHeader(f shareFile) error {
	hdr := make([]byte, headerSize)
	copy(hdr, headerMagic)
	copy(hdr[len(headerMagic):], fmt.Sprintf("created %s by nastune bench share\n", time.Now().UTC().Format(time.RFC3339)))
	_, err := f.WriteAt(hdr, 0)
	return err
}

// writeHint says what a refused create means: every test writes.
func writeHint(err error) string {
	if errors.Is(err, os.ErrPermission) {
		return " (the share is read-only or this user may not write in this folder: every test writes its own files; give a folder the user may write to, smb://USER@HOST/SHARE/DIR)"
	}
	return ""
}

// isOurShareFile checks the header before a remove.
func isOurShareFile(fsys shareFS, name string) bool {
	f, err := fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(headerMagic))
	n, _ := f.ReadAt(b, 0)
	return n == len(b) && string(b) == headerMagic
}

func (r *shareRun) seq(ctx context.Context, test string, run int, write bool) (TestResult, error) {
	return r.seqRange(ctx, test, run, write, 0)
}

// seqRange writes or reads [from, Size) of the data region with Streams
// handles, each on its own contiguous part, InFlight requests of Block
// bytes in flight per handle, until done or Time (run < 0: untimed).
func (r *shareRun) seqRange(ctx context.Context, test string, run int, write bool, from int64) (TestResult, error) {
	o := r.o
	blocks := (o.Size - from) / int64(o.Block)
	first := from / int64(o.Block)
	handles := make([]shareFile, o.Streams)
	defer func() {
		for _, h := range handles {
			if h != nil {
				h.Close()
			}
		}
	}()
	for i := range handles {
		h, err := r.fs.Open(r.file)
		if err != nil {
			return TestResult{}, err
		}
		handles[i] = h
	}
	start := time.Now()
	deadline := start.Add(o.Time)
	if run < 0 {
		deadline = start.Add(24 * time.Hour)
	}
	var moved, ios atomic.Int64
	hists := make([]hist, o.Streams*o.InFlight)
	var firstErr error
	var errOnce sync.Once
	stop := make(chan struct{})
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; close(stop) })
	}
	var wg sync.WaitGroup
	per := blocks / int64(o.Streams)
	// doneTo[s]: the first block of stream s not yet written (all before it
	// are): what a later read may use.
	doneTo := make([]atomic.Int64, o.Streams)
	ends := make([]int64, o.Streams)
	for s := 0; s < o.Streams; s++ {
		lo, hiB := first+int64(s)*per, first+int64(s+1)*per
		if s == o.Streams-1 {
			hiB = first + blocks
		}
		ends[s] = hiB
		var next atomic.Int64
		next.Store(lo)
		var doneMu sync.Mutex
		doneSet := map[int64]bool{}
		doneTo[s].Store(lo)
		for q := 0; q < o.InFlight; q++ {
			wg.Add(1)
			go func(h shareFile, hs *hist, buf []byte) {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-ctx.Done():
						return
					default:
					}
					if time.Now().After(deadline) {
						return
					}
					b := next.Add(1) - 1
					if b >= hiB {
						return
					}
					off := int64(b) * int64(o.Block)
					t0 := time.Now()
					var err error
					if write {
						r.pat.fill(buf, off)
						_, err = h.WriteAt(buf, headerSize+off)
					} else {
						var n int
						n, err = readFull(h, buf, headerSize+off)
						if err == nil && n != len(buf) {
							err = fmt.Errorf("short read at offset %d: %d of %d bytes (was the file truncated?)", off, n, len(buf))
						}
						if err == nil {
							err = r.pat.verify(buf, off)
						}
					}
					hs.add(time.Since(t0))
					if err != nil {
						if ctx.Err() == nil {
							fail(err)
						}
						return
					}
					moved.Add(int64(o.Block))
					ios.Add(1)
					if write {
						doneMu.Lock()
						doneSet[b] = true
						cur := doneTo[s].Load()
						for doneSet[cur] {
							delete(doneSet, cur)
							cur++
						}
						doneTo[s].Store(cur)
						doneMu.Unlock()
					}
				}
			}(handles[s], &hists[s*o.InFlight+q], r.buf(s*o.InFlight+q))
		}
	}
	ivDone := make(chan struct{})
	tickStop := make(chan struct{})
	go func() {
		defer close(ivDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		prog := time.NewTicker(200 * time.Millisecond)
		defer prog.Stop()
		last, lastBytes := start, int64(0)
		for {
			select {
			case <-tickStop:
				return
			case <-prog.C:
				if o.Progress != nil {
					frac := float64(moved.Load()) / float64(max(blocks*int64(o.Block), 1))
					if run >= 0 {
						frac = max(frac, float64(time.Since(start))/float64(o.Time))
					}
					o.Progress(test, frac)
				}
			case now := <-tick.C:
				b := moved.Load()
				if run >= 0 && o.OnInterval != nil {
					d := now.Sub(last).Seconds()
					o.OnInterval(test, run, Interval{Start: last.Sub(start).Seconds(), End: now.Sub(start).Seconds(), Bytes: b - lastBytes, BitsPerSecond: float64(b-lastBytes) * 8 / d})
				}
				last, lastBytes = now, b
			}
		}
	}()
	wg.Wait()
	elapsed := time.Since(start)
	close(tickStop)
	<-ivDone
	if write {
		// Contiguous from the start of the data region: what a read can use.
		if from <= r.written {
			w := doneTo[0].Load()
			for s := 1; s < o.Streams && doneTo[s-1].Load() == ends[s-1]; s++ {
				w = doneTo[s].Load()
			}
			r.written = max(r.written, w*int64(o.Block))
		}
	}
	if ctx.Err() != nil {
		return TestResult{}, ctx.Err()
	}
	if firstErr != nil {
		return TestResult{}, firstErr
	}
	var h hist
	for i := range hists {
		h.merge(&hists[i])
	}
	tr := result(test, moved.Load(), elapsed, ios.Load(), &h)
	tr.Verified = !write
	return tr, nil
}

// buf is the request buffer of worker i, the same in every seq test and
// run: a test does not leave Streams × InFlight blocks of garbage for the
// next one to pile on.
func (r *shareRun) buf(i int) []byte {
	if r.bufs == nil {
		r.bufs = make([][]byte, r.o.Streams*r.o.InFlight)
	}
	if r.bufs[i] == nil {
		r.bufs[i] = make([]byte, r.o.Block)
	}
	return r.bufs[i]
}

// readFull reads len(b) bytes at off (a client may return less per call).
func readFull(f io.ReaderAt, b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.ReadAt(b[n:], off+int64(n))
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.ErrUnexpectedEOF
		}
	}
	return n, nil
}

// newDir makes a folder of this run (removed at the end, when empty).
func (r *shareRun) newDir() (string, error) {
	d := sharePrefix + randID() + ".d"
	if err := r.fs.Mkdir(d); err != nil {
		return "", fmt.Errorf("creating the folder %s: %w%s", d, err, writeHint(err))
	}
	r.dirs = append(r.dirs, d)
	return d, nil
}

// parallel runs job(i) for i in [0, n) on Streams workers; it stops at the
// first error or a cancelled ctx.
func (r *shareRun) parallel(ctx context.Context, n int, hs []hist, job func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for w := 0; w < r.o.Streams; w++ {
		wg.Add(1)
		go func(h *hist) {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				mu.Lock()
				stop := first != nil
				mu.Unlock()
				if i >= n || stop || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				err := job(i)
				h.add(time.Since(t0))
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}(&hs[w])
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

// smallFiles: create, write, read back (verified) and delete Files files of
// 64 KiB ("a folder of photos"). MiB/s counts the bytes written and read;
// IOPS is files per second.
func (r *shareRun) smallFiles(ctx context.Context, run int) (TestResult, error) {
	dir, err := r.newDir()
	if err != nil {
		return TestResult{}, err
	}
	n := r.o.Files
	hs := make([]hist, r.o.Streams)
	name := func(i int) string { return path.Join(dir, fmt.Sprintf("%sphoto-%05d.jpg", sharePrefix, i)) }
	pat := newPattern(smallFileSize)
	start := time.Now()
	var created sync.Map
	defer func() { // an error or Ctrl-C midway: remove what was made
		created.Range(func(k, _ any) bool { _ = r.fs.Remove(k.(string)); return true })
	}()
	err = r.parallel(ctx, n, hs, func(i int) error {
		f, err := r.fs.Create(name(i))
		if err != nil {
			return err
		}
		created.Store(name(i), true)
		b := make([]byte, smallFileSize)
		pat.fill(b, int64(i)*smallFileSize)
		if _, err := f.WriteAt(b, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err == nil {
		err = r.parallel(ctx, n, hs, func(i int) error {
			f, err := r.fs.Open(name(i))
			if err != nil {
				return err
			}
			defer f.Close()
			b := make([]byte, smallFileSize)
			m, err := readFull(f, b, 0)
			if err != nil {
				return err
			}
			if m != len(b) {
				return fmt.Errorf("%s: short read, %d of %d bytes", name(i), m, len(b))
			}
			return pat.verify(b, int64(i)*smallFileSize)
		})
	}
	if err == nil {
		err = r.parallel(ctx, n, hs, func(i int) error {
			if err := r.fs.Remove(name(i)); err != nil {
				return err
			}
			created.Delete(name(i))
			return nil
		})
	}
	elapsed := time.Since(start)
	if err != nil {
		return TestResult{}, err
	}
	var h hist
	for i := range hs {
		h.merge(&hs[i])
	}
	tr := result("smallfiles", int64(n)*2*smallFileSize, elapsed, int64(n), &h)
	tr.Verified = true
	return tr, nil
}

// metadata: list and stat a folder of Files entries (made untimed, once).
// IOPS is entries per second (one listing plus one stat per entry).
func (r *shareRun) metadata(ctx context.Context, run int) (TestResult, error) {
	dir, err := r.newDir()
	if err != nil {
		return TestResult{}, err
	}
	n := r.o.Files
	name := func(i int) string { return path.Join(dir, fmt.Sprintf("%sentry-%05d", sharePrefix, i)) }
	hs := make([]hist, r.o.Streams)
	var created sync.Map
	defer func() {
		created.Range(func(k, _ any) bool { _ = r.fs.Remove(k.(string)); return true })
	}()
	if r.o.Progress != nil {
		r.o.Progress("preparing the folder", 0)
	}
	if err := r.parallel(ctx, n, hs, func(i int) error {
		f, err := r.fs.Create(name(i))
		if err != nil {
			return err
		}
		created.Store(name(i), true)
		return f.Close()
	}); err != nil {
		return TestResult{}, err
	}
	hs = make([]hist, r.o.Streams)
	start := time.Now()
	list, err := r.fs.List(dir)
	if err != nil {
		return TestResult{}, err
	}
	seen := 0
	for _, fi := range list {
		if len(fi.Name()) > len(sharePrefix) && fi.Name()[:len(sharePrefix)] == sharePrefix {
			seen++
		}
	}
	if seen != n {
		return TestResult{}, fmt.Errorf("listing %s: %d of the %d entries nastune made", dir, seen, n)
	}
	if err := r.parallel(ctx, n, hs, func(i int) error {
		fi, err := r.fs.Stat(name(i))
		if err != nil {
			return err
		}
		if fi.IsDir() || fi.Size() != 0 {
			return fmt.Errorf("stat %s: not the empty file nastune made", name(i))
		}
		return nil
	}); err != nil {
		return TestResult{}, err
	}
	elapsed := time.Since(start)
	var h hist
	for i := range hs {
		h.merge(&hs[i])
	}
	tr := result("metadata", 0, elapsed, int64(n), &h)
	tr.Verified = true
	return tr, nil
}

// cleanup removes the test file (after checking its header) and the
// folders of the run, with a fresh timeout: Ctrl-C must not leave them.
func (r *shareRun) cleanup() error {
	var errs []error
	if r.file != "" {
		if isOurShareFile(r.fs, r.file) {
			if err := r.fs.Remove(r.file); err != nil {
				errs = append(errs, fmt.Errorf("removing the test file %s: %w", r.file, err))
			}
		} else {
			errs = append(errs, fmt.Errorf("the test file %s no longer holds nastune's header: left in place", r.file))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(r.dirs)))
	for _, d := range r.dirs {
		if err := r.fs.Remove(d); err != nil {
			errs = append(errs, fmt.Errorf("removing the folder %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shareTCP measures raw TCP to the host in both directions with one
// stream (a share session is one TCP connection) and judges the
// sequential tests against it.
func shareTCP(ctx context.Context, o ShareOptions, res *ShareResult) error {
	d := o.TCPTime
	if d <= 0 {
		d = 5 * time.Second
	}
	tcp := &ShareTCP{Server: o.TCPServer, Streams: 1, Seconds: d.Seconds()}
	for _, rev := range []bool{false, true} {
		if o.Progress != nil {
			o.Progress(map[bool]string{false: "raw TCP up", true: "raw TCP down"}[rev], 0)
		}
		n, err := RunNet(ctx, NetOptions{Server: o.TCPServer, Token: o.TCPToken, Streams: 1, Duration: d, Reverse: rev,
			Progress: func(f float64) {
				if o.Progress != nil {
					o.Progress(map[bool]string{false: "raw TCP up", true: "raw TCP down"}[rev], f)
				}
			}})
		if err != nil {
			return err
		}
		if rev {
			tcp.DownBitsPerSecond = n.BitsPerSecond
		} else {
			tcp.UpBitsPerSecond = n.BitsPerSecond
		}
	}
	res.TCP = tcp
	return nil
}

// medianOps is median by operations per second (metadata moves no
// bytes): its spread is in entries per second.
func medianOps(runs []TestResult) TestResult {
	sort.Slice(runs, func(i, j int) bool { return runs[i].IOPS < runs[j].IOPS })
	m := runs[(len(runs)-1)/2]
	if len(runs) > 1 {
		m.Runs, m.SpreadLo, m.SpreadHi = len(runs), runs[0].IOPS, runs[len(runs)-1].IOPS
	}
	return m
}

// dialShare connects with the protocol of the URL.
func dialShare(ctx context.Context, o ShareOptions) (shareFS, error) {
	if o.URL.Scheme == "nfs" {
		return dialNFS(ctx, o)
	}
	return dialSMB(ctx, o)
}
