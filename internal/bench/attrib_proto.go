package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nastune/nastune/internal/watch/wire"
)

// Attribution: while `bench share` runs its tests, the client holds one
// control connection of its own kind (header "op":"attrib", the same
// token rules as a test) and the server samples the machine with watch's
// Sampler, following the serving processes (smbd in the server's network
// namespace, the nfsd kernel threads) and their cgroups. The client names
// only the test, the share and its test file; the server runs nothing it
// is told, and the one thing it does to a file is to drop the test file
// from its page cache before a read test (posix_fadvise DONTNEED), after
// checking that the file is inside the share, not a link and starts with
// nastune's header.
//
// Messages, one JSON line each way:
//
//	client: {"v":2,"token":…,"op":"attrib"}      server: {"ok":true}
//	client: {"begin":"seqread","protocol":"smb","share":"data","file":"dir/nastune-bench-x.bin","evict":true}
//	server: {"ok":true,"evicted":"…"}                (sampling runs)
//	client: {"end":true}                          server: AttribReport
//
// Samples are taken every attribInterval; one session at a time; a test
// samples at most attribMaxSamples intervals; a session idle for
// attribIdle ends.

const (
	opAttrib          = "attrib"
	attribInterval    = 500 * time.Millisecond
	attribMaxSamples  = 1200 // 10 minutes
	attribIdle        = 15 * time.Minute
	attribMaxTests    = 256
	defaultSMBConf    = "/etc/samba/smb.conf"
	defaultExportsDir = "/etc"
)

// attribMsg is a client line of an attribution session.
type attribMsg struct {
	Begin    string `json:"begin,omitempty"`
	Protocol string `json:"protocol,omitempty"` // smb or nfs
	// Share is the SMB share name, or the NFS export path (a server path).
	Share string `json:"share,omitempty"`
	// File is the test file relative to the share (slash-separated).
	File  string `json:"file,omitempty"`
	Evict bool   `json:"evict,omitempty"`
	End   bool   `json:"end,omitempty"`
}

// AttribReport is what the server saw during one test.
type AttribReport struct {
	OK      bool    `json:"ok,omitempty"`
	Error   string  `json:"error,omitempty"`
	Evicted string  `json:"evicted,omitempty"` // the file dropped from the page cache
	Test    string  `json:"test,omitempty"`
	Samples int     `json:"samples,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// SharePath is the share's folder on the server, found in smb.conf
	// (the share's path) or exports (the export itself), Devices the
	// block devices under it (tune's resolver: md, dm, loop, disks).
	SharePath string   `json:"share_path,omitempty"`
	Devices   []string `json:"devices,omitempty"`
	// Serving are the busiest threads of the serving processes (mean
	// share of one core over the test).
	Serving []wire.ThreadSample `json:"serving,omitempty"`
	// Bottlenecks are watch's verdicts over the test's samples.
	Bottlenecks []wire.Bottleneck   `json:"bottlenecks,omitempty"`
	Cgroups     []wire.CgroupSample `json:"cgroups,omitempty"`
	// Settings are the share's settings in effect as far as the server's
	// files say (smb.conf written values; nfsd threads).
	Settings map[string]string `json:"settings,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	// SamplingCPUPct is what the sampling cost the bench server (share of
	// one core, mean over the test).
	SamplingCPUPct float64 `json:"sampling_cpu_pct"`
}

// readLine reads one JSON line within d.
func readLine(c net.Conn, rd *bufio.Reader, v any, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return false
	}
	return json.Unmarshal(line, v) == nil
}

func sendJSON(c net.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.Write(append(b, '\n'))
	return err
}

// attribClient is the client's side of a session.
type attribClient struct {
	mu sync.Mutex
	c  net.Conn
	rd *bufio.Reader
}

// dialAttrib opens an attribution session with the bench server.
func dialAttrib(ctx context.Context, server, token string) (*attribClient, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := d.DialContext(dctx, "tcp", WithPort(server))
	if err != nil {
		return nil, err
	}
	a := &attribClient{c: c, rd: bufio.NewReaderSize(c, 1<<20)}
	h, _ := json.Marshal(header{V: protoVersion, Token: token, Op: opAttrib})
	var rep AttribReport
	if err := a.call(append(h, '\n'), &rep, 30*time.Second); err != nil {
		c.Close()
		return nil, err
	}
	if !rep.OK {
		c.Close()
		if rep.Error == "" {
			rep.Error = "refused"
		}
		return nil, fmt.Errorf("%s", rep.Error)
	}
	return a, nil
}

func (a *attribClient) call(line []byte, v any, d time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	_ = a.c.SetDeadline(time.Now().Add(d))
	if _, err := a.c.Write(line); err != nil {
		return err
	}
	b, err := a.rd.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("the bench server: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	cleanPeer(v)
	return nil
}

// begin starts sampling one test; end stops it and returns the report.
func (a *attribClient) begin(m attribMsg) (AttribReport, error) {
	b, _ := json.Marshal(m)
	var rep AttribReport
	err := a.call(append(b, '\n'), &rep, 60*time.Second)
	return rep, err
}

func (a *attribClient) end() (AttribReport, error) {
	var rep AttribReport
	err := a.call([]byte(`{"end":true}`+"\n"), &rep, 60*time.Second)
	return rep, err
}

func (a *attribClient) Close() error { return a.c.Close() }
