// Package probe reads a machine through a hostfs.Root and fills a
// facts.Host. There is one file per source. A source that is missing,
// unreadable or garbled is never a failure: the fact stays unknown and the
// reason is recorded in Host.NotCollected, named by the file it came from.
//
// Probes only read. They run no commands and open no sockets when the root
// is a captured tree, so `nastune audit --root DIR` replays exactly what was
// captured.
package probe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
)

// Collect probes every source and returns the host's facts.
func Collect(ctx context.Context, root *hostfs.Root) *facts.Host {
	p := &prober{ctx: ctx, root: root, h: &facts.Host{Sysctls: facts.Sysctls{}}}
	steps := []func(){p.system, p.cpu, p.memory, p.sysctls, p.sysctlConfig, p.udevLater, p.modprobeLater, p.interfaces, p.qdiscs, p.softnet, p.udp, p.packetSockets, p.block, p.md, p.mounts, p.filesystems, p.fstab, p.swaps, p.zfs, p.crypto, p.samba, p.nfs, p.openvpn, p.owners, p.health, p.benchResults}
	for _, step := range steps {
		if ctx.Err() != nil {
			p.skip("(remaining sources)", "interrupted: "+ctx.Err().Error())
			break
		}
		step()
	}
	sort.Slice(p.h.NotCollected, func(i, j int) bool { return p.h.NotCollected[i].Source < p.h.NotCollected[j].Source })
	return p.h
}

type prober struct {
	ctx  context.Context
	root *hostfs.Root
	h    *facts.Host
}

// skip records why a source gave nothing.
func (p *prober) skip(source, reason string) {
	p.h.NotCollected = append(p.h.NotCollected, facts.NotCollected{Source: source, Reason: reason})
}

// fail records a read error in words a user can act on.
func (p *prober) fail(source string, err error) {
	p.skip(source, WhyNotCollected(err))
}

// WhyNotCollected turns a read error into the short explanation a
// facts.NotCollected entry holds (its Reason field).
func WhyNotCollected(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, fs.ErrPermission) && os.Geteuid() == 0:
		return "permission denied even as root (a device policy or LSM blocks it)"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: run as root to collect it"
	case errors.Is(err, hostfs.ErrTooLarge):
		return "file too large to be a kernel attribute"
	case errors.Is(err, cmdrun.ErrNotInstalled):
		return "command not installed"
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENODEV):
		return "the kernel returned no value (device down or not supported)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// read returns a trimmed file, recording any failure.
func (p *prober) read(path string) (string, bool) {
	s, err := p.root.ReadString(path)
	if err != nil {
		p.fail(path, err)
		return "", false
	}
	return p.text(path, s)
}

// parseFile reads path and parses it with parse. A read failure is
// recorded and read is false. A parse error is recorded as a skip and
// returned beside what parse did read (kernfmt's parsers keep the good
// lines), for callers that drop a partial result.
func parseFile[T any](p *prober, path string, parse func([]byte) (T, error)) (v T, read bool, err error) {
	data, err := p.root.ReadFile(path)
	if err != nil {
		p.fail(path, err)
		return v, false, nil
	}
	if v, err = parse(data); err != nil {
		p.skip(path, err.Error())
	}
	return v, true, err
}

// text passes s, read from path, unless it holds a NUL byte: then it is
// not a text attribute, and the skip is recorded.
func (p *prober) text(path, s string) (string, bool) {
	if strings.IndexByte(s, 0) >= 0 {
		p.skip(path, "contains NUL bytes: not a text attribute")
		return "", false
	}
	return s, true
}

// dropIns lists the names in each folder of a drop-in hierarchy (sysctl.d,
// modprobe.d, udev rules.d) for confdirs.Order; a folder that does not
// exist is skipped: most of them do not on a given host.
func (p *prober) dropIns(dirs []string) map[string][]string {
	found := map[string][]string{}
	for _, d := range dirs {
		ents, err := p.root.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			found[d] = append(found[d], e.Name())
		}
	}
	return found
}

// readAfter reads the files of order (confdirs.Order) whose names sort
// after own, nastune's own file there (and none of nastune's "90-nastune*"
// files), each real file once (a link to a file already read is skipped),
// and hands each to fn with the real file when f is a symlink (link, ""
// otherwise): what the program reads after nastune's file can override it.
func (p *prober) readAfter(order []string, own string, fn func(file, link string, data []byte)) {
	seen := map[string]bool{}
	for _, f := range order {
		name := path.Base(f)
		if name <= own || strings.HasPrefix(name, "90-nastune") {
			continue
		}
		link := ""
		if real, err := p.root.RealPath(f); err == nil {
			if seen[real] {
				continue
			}
			seen[real] = true
			if real != f {
				link = real
			}
		}
		data, err := p.root.ReadFile(f)
		if err != nil {
			p.fail(f, err)
			continue
		}
		fn(f, link, data)
	}
}

// optional returns a trimmed file; a missing file is not recorded (the
// attribute does not exist on every kernel or device), other failures are.
func (p *prober) optional(path string) (string, bool) {
	s, err := p.root.ReadString(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENODEV) {
			p.fail(path, err)
		}
		return "", false
	}
	return p.text(path, s)
}

// optInt reads an integer attribute; garbage is recorded with the value.
func (p *prober) optInt(path string) (int, bool) {
	s, ok := p.optional(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v > 1<<40 || v < -1<<40 {
		p.skip(path, "not an integer: "+quoteClip(s))
		return 0, false
	}
	return int(v), true
}

func (p *prober) optUint(path string) (uint64, bool) {
	s, ok := p.optional(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		p.skip(path, "not an unsigned integer: "+quoteClip(s))
		return 0, false
	}
	return v, true
}

func quoteClip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

func intp(v int) *int    { return &v }
func boolp(v bool) *bool { return &v }

// hostname of the live machine, for a root that has no /proc.
func liveHostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
