//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/netns"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/parse/svcconf"
	"github.com/nastune/nastune/internal/safefile"
	"github.com/nastune/nastune/internal/watch"
)

// AttribRoot is what an attribution session samples: a hostfs root (nil:
// the live system).
type AttribRoot = *hostfs.Root

// attribSession runs one attribution session on c (the hello was read
// with br).
func (s *Server) attribSession(ctx context.Context, c net.Conn, br *bufio.Reader) {
	s.mu.Lock()
	if s.attribBusy {
		s.mu.Unlock()
		_ = sendJSON(c, AttribReport{Error: "busy: another attribution session runs"})
		return
	}
	s.attribBusy = true
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.attribBusy = false; s.mu.Unlock() }()
	root := s.Root
	if root == nil {
		root = hostfs.Live()
	}
	smp, err := watch.NewSampler(root)
	if err != nil {
		_ = sendJSON(c, AttribReport{Error: "sampling: " + err.Error()})
		return
	}
	defer smp.Close()
	self, _ := netns.Of("self")
	smp.Follow(func(pid int, comm string) bool {
		switch {
		case comm == "nfsd":
			return true
		case strings.HasPrefix(comm, "smbd"):
			// The smbd of this network namespace (other namespaces'
			// smbd serve other addresses). Read at each reading, not
			// cached by pid: smbd forks one process per connection, and
			// a pid reused by another namespace's smbd must not inherit
			// the first one's answer (one stat per smbd).
			ns, err := netns.Of(strconv.Itoa(pid))
			return err == nil && ns == self
		}
		return false
	})
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	if sendJSON(c, AttribReport{OK: true}) != nil {
		return
	}
	// The rest of the session: lines of at most maxHeader bytes.
	rd := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(peekAll(br)), c), maxHeader)
	s.log("attribution session from " + peerOf(c))
	for tests := 0; tests < attribMaxTests; tests++ {
		var m attribMsg
		if !readLine(c, rd, &m, attribIdle) || m.Begin == "" {
			return
		}
		rep := AttribReport{OK: true, Test: m.Begin, Settings: map[string]string{}}
		s.shareContext(root, m, &rep)
		_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
		if sendJSON(c, AttribReport{OK: true, Evicted: rep.Evicted, Error: ""}) != nil {
			return
		}
		samples, ok := s.sampleUntilEnd(ctx, c, rd, smp)
		if !ok {
			return
		}
		fillReport(&rep, samples)
		_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
		if sendJSON(c, rep) != nil {
			return
		}
	}
}

func peekAll(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	return append([]byte(nil), b...)
}

// sampleUntilEnd samples until the client's end line (false: the client
// left or the server stops).
func (s *Server) sampleUntilEnd(ctx context.Context, c net.Conn, rd *bufio.Reader, smp *watch.Sampler) ([]watch.Sample, bool) {
	if _, err := smp.Next(); err != nil { // the test starts from here
		return nil, false
	}
	end := make(chan bool, 1)
	go func() {
		var m attribMsg
		end <- readLine(c, rd, &m, attribMaxSamples*attribInterval+time.Minute) && m.End
	}()
	tick := time.NewTicker(attribInterval)
	defer tick.Stop()
	var out []watch.Sample
	for {
		select {
		case ok := <-end:
			if !ok {
				return nil, false
			}
			if x, err := smp.Next(); err == nil && (x.Interval > 0.05 || len(out) == 0) {
				out = append(out, x)
			}
			return out, true
		case <-tick.C:
			if len(out) >= attribMaxSamples {
				continue // keep the first ten minutes
			}
			if x, err := smp.Next(); err == nil {
				out = append(out, x)
			}
		case <-ctx.Done():
			c.Close()
			<-end
			return nil, false
		}
	}
}

// fillReport reasons over the samples of one test.
func fillReport(rep *AttribReport, samples []watch.Sample) {
	rep.Samples = len(samples)
	for _, x := range samples {
		rep.Seconds += x.Interval
		rep.SamplingCPUPct += x.Self.CPUPct * x.Interval
	}
	if rep.Seconds > 0 {
		rep.SamplingCPUPct = float64(int(rep.SamplingCPUPct/rep.Seconds*10+0.5)) / 10
	}
	rep.Bottlenecks = watch.Bottlenecks(samples)
	// Mean share of a core of each serving thread over the test.
	type acc struct {
		t      watch.ThreadSample
		cpu, w float64
	}
	m := map[int]*acc{}
	for _, x := range samples {
		for _, t := range x.Threads {
			if !serving(t.ProcessComm) {
				continue
			}
			a := m[t.TID]
			if a == nil {
				a = &acc{t: t}
				m[t.TID] = a
			}
			a.cpu += t.CPUPct * x.Interval
			a.w += t.WaitPct * x.Interval
		}
	}
	for _, a := range m {
		if rep.Seconds <= 0 {
			break
		}
		a.t.CPUPct = float64(int(a.cpu/rep.Seconds*10+0.5)) / 10
		a.t.WaitPct = float64(int(a.w/rep.Seconds*10+0.5)) / 10
		rep.Serving = append(rep.Serving, a.t)
	}
	sort.Slice(rep.Serving, func(i, j int) bool {
		return rep.Serving[i].CPUPct > rep.Serving[j].CPUPct || rep.Serving[i].CPUPct == rep.Serving[j].CPUPct && rep.Serving[i].TID < rep.Serving[j].TID
	})
	if len(rep.Serving) > 4 {
		rep.Serving = rep.Serving[:4]
	}
	if len(samples) > 0 {
		rep.Cgroups = samples[len(samples)-1].Cgroups
	}
}

func serving(comm string) bool { return comm == "nfsd" || strings.HasPrefix(comm, "smbd") }

// shareContext finds the share's folder and devices and its settings,
// and evicts the test file when asked.
func (s *Server) shareContext(root *hostfs.Root, m attribMsg, rep *AttribReport) {
	switch m.Protocol {
	case "smb":
		conf := s.SMBConf
		if conf == "" {
			conf = defaultSMBConf
		}
		p, settings, err := smbSharePath(conf, m.Share)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
			return
		}
		rep.SharePath, rep.Settings = p, settings
	case "nfs":
		p, err := nfsExportPath(s.ExportsDir, m.Share)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
			return
		}
		rep.SharePath = p
		if v, err := root.ReadString("/proc/fs/nfsd/threads"); err == nil {
			rep.Settings["nfsd threads"] = v
		}
	default:
		rep.Notes = append(rep.Notes, fmt.Sprintf("protocol %q: want smb or nfs", m.Protocol))
		return
	}
	if s.Devices == nil {
		rep.Notes = append(rep.Notes, "backing devices: not resolved by this server")
	} else if devs, err := s.Devices(rep.SharePath); err == nil {
		rep.Devices = devs
	} else {
		rep.Notes = append(rep.Notes, "backing devices: "+err.Error())
	}
	if m.Evict && m.File != "" {
		if f, err := evictTestFile(rep.SharePath, m.File); err != nil {
			rep.Notes = append(rep.Notes, "page cache not evicted: "+err.Error())
		} else {
			rep.Evicted = f
		}
	}
}

// smbSettings are the smb.conf parameters that change what a transfer
// costs the server.
var smbSettings = []string{"smbencrypt", "serversigning", "serversmbencrypt", "usesendfile", "aioreadsize", "aiowritesize", "serverminprotocol", "servermultichannelsupport", "socketoptions"}

// smbSharePath reads smb.conf (with its includes) for the share's path
// and the settings in effect for it as written ([share] over [global];
// unset ones are Samba's defaults).
func smbSharePath(conf, share string) (string, map[string]string, error) {
	b, err := os.ReadFile(conf)
	if err != nil {
		return "", nil, fmt.Errorf("the share's folder: %w (give the server --smb-conf)", err)
	}
	top, _ := smbconf.Parse(b)
	x := smbconf.Expand(conf, top, os.ReadFile, smbconf.DefaultLimits)
	set := map[string]string{}
	p := ""
	found := false
	for _, sec := range []string{"global", share} {
		for _, prm := range x.Config.Params {
			if !strings.EqualFold(prm.Section, sec) {
				continue
			}
			if sec != "global" {
				found = true
			}
			if prm.Key == "path" && sec != "global" {
				p = prm.Value
			}
			for _, k := range smbSettings {
				if prm.Key == k {
					set[prm.Name] = prm.Value
				}
			}
		}
	}
	for _, sec := range x.Config.Sections {
		found = found || strings.EqualFold(sec.Name, share)
	}
	if !found || p == "" || !filepath.IsAbs(p) || strings.Contains(p, "%") {
		return "", set, fmt.Errorf("the share's folder: no [%s] with an absolute path (without %% macros) in %s", share, conf)
	}
	return filepath.Clean(p), set, nil
}

// nfsExportPath checks that p is exported (exports and exports.d).
func nfsExportPath(dir, p string) (string, error) {
	if dir == "" {
		dir = defaultExportsDir
	}
	files := []string{filepath.Join(dir, "exports")}
	if ms, _ := filepath.Glob(filepath.Join(dir, "exports.d", "*.exports")); len(ms) > 0 {
		sort.Strings(ms)
		files = append(files, ms...)
	}
	want := path.Clean("/" + p)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		ex, _ := svcconf.Exports(b)
		for _, e := range ex {
			if path.Clean(e.Path) == want {
				return want, nil
			}
		}
	}
	return "", fmt.Errorf("the share's folder: %s is not in %s/exports or exports.d", want, dir)
}

// evictTestFile drops nastune's test file from the page cache: only a
// regular file named like one, inside the share, not a link, holding
// nastune's header. Dirty pages are written first (fdatasync): DONTNEED
// does not drop them.
func evictTestFile(share, rel string) (string, error) {
	clean := path.Clean("/" + rel)
	base := path.Base(clean)
	if !strings.HasPrefix(base, sharePrefix) || !strings.HasSuffix(base, ".bin") || strings.Contains(rel, "..") {
		return "", fmt.Errorf("%q is not a nastune test file", rel)
	}
	full := filepath.Join(share, filepath.FromSlash(clean))
	real, err := filepath.EvalSymlinks(filepath.Dir(full))
	if err != nil {
		return "", err
	}
	shareReal, err := filepath.EvalSymlinks(share)
	if err != nil {
		return "", err
	}
	if real != shareReal && !strings.HasPrefix(real, shareReal+"/") {
		return "", fmt.Errorf("%s leads outside the share", rel)
	}
	full = filepath.Join(real, base)
	// safefile opens nothing but a regular file (a device node or FIFO
	// planted under the test file's name is refused before any open).
	dir, err := safefile.OpenDir(real)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	f, err := dir.Open(base, unix.O_RDONLY)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fd := int(f.Fd())
	hdr := make([]byte, len(headerMagic))
	if n, _ := unix.Pread(fd, hdr, 0); n != len(hdr) || string(hdr) != headerMagic {
		return "", fmt.Errorf("%s does not start with nastune's header", full)
	}
	_ = unix.Fdatasync(fd)
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return "", fmt.Errorf("%s: posix_fadvise: %w", full, err)
	}
	return full, nil
}
