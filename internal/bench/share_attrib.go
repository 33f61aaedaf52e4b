package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"
)

// The client's side of attribution: one session with `nastune bench net
// -s` on the share's host for the whole run (server_attrib.go); each
// test's timed part is framed by begin and end, and the server's report
// of the median run is kept with the test.

// ShareServerView is what the server saw during one test (its median run).
type ShareServerView struct {
	AttribReport
	// ClientCPUPct is this client's CPU use during the run, as a share of
	// all its cores.
	ClientCPUPct float64 `json:"client_cpu_pct"`
}

type attribRun struct {
	tr   TestResult
	view *ShareServerView
}

// shareLocation is the share name (SMB) or export path (NFS) and the
// folder inside it, as the server names them.
func shareLocation(fsys shareFS, u ShareURL) (share, dir string) {
	switch f := fsys.(type) {
	case *smbFS:
		if len(u.Path) > 0 {
			return u.Path[0], f.dir
		}
	case *nfsFS:
		return "/" + strings.Join(u.Path[:len(u.Path)-len(splitNonEmpty(f.dir))], "/"), f.dir
	}
	return "", ""
}

func splitNonEmpty(p string) []string {
	var out []string
	for _, x := range strings.Split(p, "/") {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// attrBegin starts the server's sampling of one run (after any untimed
// preparation); the read tests ask it to evict the test file first.
func (r *shareRun) attrBegin(test string) {
	r.cpu0 = processCPU()
	r.t0 = time.Now()
	if r.attr == nil {
		return
	}
	share, dir := shareLocation(r.fs, r.o.URL)
	m := attribMsg{Begin: test, Protocol: r.o.URL.Scheme, Share: share}
	if test == "seqread" && r.file != "" {
		m.File = strings.TrimPrefix(dir+"/"+r.file, "/")
		m.Evict = !r.o.Warm
	}
	rep, err := r.attr.begin(m)
	if err != nil || !rep.OK {
		r.attrErr = fmt.Sprintf("the bench server stopped sampling: %v%s", err, rep.Error)
		r.attr.Close()
		r.attr = nil
	}
}

// attrEnd ends the sampling of one run and keeps the server's report.
func (r *shareRun) attrEnd(test string, tr TestResult) {
	v := &ShareServerView{}
	if el := time.Since(r.t0).Seconds(); el > 0 {
		v.ClientCPUPct = float64(int((processCPU()-r.cpu0)/el/float64(runtime.NumCPU())*1000+0.5)) / 10
	}
	if r.attr != nil {
		rep, err := r.attr.end()
		bad := error(nil)
		if err == nil {
			bad = checkPeerReport(&rep)
		}
		switch {
		case err != nil:
			r.attrErr = fmt.Sprintf("the bench server stopped sampling: %v", err)
		case bad != nil:
			// A server that sends impossible numbers is not trusted
			// for the rest of the run either.
			r.attrErr = fmt.Sprintf("the bench server's report of %s was rejected, so no verdict uses it: %v", test, bad)
		default:
			v.AttribReport = rep
		}
		if r.attrErr != "" {
			r.attr.Close()
			r.attr = nil
		}
	}
	if r.views == nil {
		r.views = map[string][]attribRun{}
	}
	r.views[test] = append(r.views[test], attribRun{tr, v})
}

// viewOf is the server's view of the run the median picked.
func (r *shareRun) viewOf(m TestResult) *ShareServerView {
	for _, x := range r.views[m.Name] {
		if x.tr.Bytes == m.Bytes && x.tr.Seconds == m.Seconds && x.tr.IOPS == m.IOPS {
			return x.view
		}
	}
	return nil
}

// dialAttribFor opens the session for a run; "" and the client, or the
// reason attribution is off.
func dialAttribFor(ctx context.Context, o ShareOptions) (*attribClient, string) {
	a, err := dialAttrib(ctx, o.TCPServer, o.TCPToken)
	if err != nil {
		return nil, fmt.Sprintf("attribution needs `nastune bench net -s` on %s (%s: %v)", o.URL.Host, o.TCPServer, err)
	}
	return a, ""
}
