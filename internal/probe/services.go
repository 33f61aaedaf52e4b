package probe

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/parse/svcconf"
)

const pathSmbConf = "/etc/samba/smb.conf"

// samba reads smb.conf (and the files it includes) for where each setting
// is written, and computes the effective values from the file and Samba's
// documented defaults (smbconf.Defaults). A captured tree that holds the
// output of `testparm -s -v` (older snapshots and fixtures) is read with
// it instead.
//
// The live audit does not run testparm: it costs ~30 ms and a 15 MiB
// process (measured with Samba 4.17), more than the whole audit's budget
// of 10 ms and 10 MiB, for the two dozen values the rules read. Those are
// checked against the real testparm in the tests of internal/parse/smbconf
// (every smb.conf of the corpus and the fixtures), and testparm stays the
// validator of every smb.conf edit (internal/apply).
func (p *prober) samba() {
	data, err := p.root.ReadFile(pathSmbConf)
	if err != nil {
		return // no Samba configured
	}
	s := &facts.Samba{ConfigFile: pathSmbConf}
	cfg, perr := smbconf.Parse(data)
	var pe *smbconf.Error
	switch {
	case errors.As(perr, &pe) && pe.Fatal:
		s.LoadError = &facts.ConfigError{File: pathSmbConf, Line: pe.Line, Msg: pe.Msg}
	case perr != nil:
		p.skip(pathSmbConf, perr.Error()+" (line skipped, as Samba does)")
	}
	exp := p.sambaIncludes(cfg)
	for i, x := range exp.Config.Params {
		s.Settings = append(s.Settings, facts.SambaSetting{Section: x.Section, FileSection: x.FileSection, Name: x.Name, Key: x.Key, Value: x.Value, File: exp.Files[i], Line: x.Line, Text: x.Text})
	}
	if s.LoadError == nil {
		// An illegal yes/no, enum or size value makes Samba's loader fail
		// ("Error loading services."): smbd does not start with the file.
		for _, x := range s.Settings {
			if smbconf.Known(x.Key) && !smbconf.Valid(x.Key, x.Value) {
				s.LoadError = &facts.ConfigError{File: x.File, Line: x.Line, InvalidValue: true,
					Msg: fmt.Sprintf("%q is not a legal value for %s", x.Value, x.Name)}
				break
			}
		}
	}
	s.Server, s.ServerMissing = p.serverPresence(smbdPaths, "samba")
	if s.ServerMissing == "" {
		s.Version = p.smbdVersion()
	}
	eff := exp.Config.EffectiveFor(s.Version)
	s.Source = "smb.conf + documented defaults"
	if s.Version != "" {
		s.Source = "smb.conf + documented defaults of Samba " + s.Version
	}
	if p.root.IsLive() {
		s.Global, s.Shares = eff.Global, eff.Shares
		p.h.Samba = s
		return
	}
	if out, src, ok := p.command("testparm", "-s", "-v", "--suppress-prompt"); ok {
		if t, err := smbconf.FromTestparm(out); err == nil && len(t.Global) > 0 {
			// testparm prints its own debug level as "log level".
			t.Global["loglevel"] = eff.Global["loglevel"]
			eff, s.Source = t, src
		}
	}
	s.Global, s.Shares = eff.Global, eff.Shares
	p.h.Samba = s
}

// nfs reads the running nfsd thread count, the configured one and
// /etc/exports.
func (p *prober) nfs() {
	n := &facts.NFS{}
	found := false
	if v, ok := p.optInt("/proc/fs/nfsd/threads"); ok {
		n.Threads, n.ThreadsSource, found = v, "/proc/fs/nfsd/threads", true
		p.nfsPools(n)
	} else if b, err := p.root.ReadFile("/proc/net/rpc/nfsd"); err == nil {
		if th, ok := kernfmt.NFSDThreads(b); ok {
			n.Threads, n.ThreadsSource, found = th, "/proc/net/rpc/nfsd (th)", true
		}
	}
	if b, err := p.root.ReadFile("/etc/nfs.conf"); err == nil {
		ini, err := svcconf.INI(b)
		if err != nil {
			p.skip("/etc/nfs.conf", err.Error())
		}
		if v, ok := ini["nfsd"]["threads"]; ok {
			if t, err := strconv.Atoi(v.Value); err == nil {
				n.ConfigThreads, n.ConfigFile, n.ConfigLine = t, "/etc/nfs.conf", v.Line
			}
		}
	}
	if n.ConfigFile == "" {
		if b, err := p.root.ReadFile("/etc/default/nfs-kernel-server"); err == nil {
			if v, ok := svcconf.ShellVars(b)["RPCNFSDCOUNT"]; ok {
				if t, err := strconv.Atoi(v.Value); err == nil {
					n.ConfigThreads, n.ConfigFile, n.ConfigLine = t, "/etc/default/nfs-kernel-server", v.Line
				}
			}
		}
	}
	// exportfs reads /etc/exports, then the *.exports files of
	// /etc/exports.d in name order (exports(5), nfs-utils exportfs.c).
	files := []string{"/etc/exports"}
	if ents, err := p.root.ReadDir("/etc/exports.d"); err == nil {
		var names []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".exports") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, name := range names {
			files = append(files, "/etc/exports.d/"+name)
		}
	}
	for i, file := range files {
		b, err := p.root.ReadFile(file)
		if err != nil {
			if i > 0 {
				p.fail(file, err)
			}
			continue
		}
		ex, err := svcconf.Exports(b)
		if err != nil {
			p.skip(file, err.Error())
		}
		for j := range ex {
			if i > 0 {
				ex[j].File = file
			}
		}
		n.Exports = append(n.Exports, ex...)
		found = found || len(ex) > 0
	}
	if found || n.ConfigFile != "" {
		if n.ThreadsSource == "" {
			// nfsd's /proc files exist once the module is loaded.
			if present, missing := p.serverPresence(nfsdPaths, "nfs-kernel-server"); present == "" {
				n.ServerMissing = missing
			}
		}
		p.h.NFS = n
	}
}

// openvpnDirs hold OpenVPN configs (Debian's layout and the older flat one).
var openvpnDirs = []string{"/etc/openvpn", "/etc/openvpn/server", "/etc/openvpn/client"}

func (p *prober) openvpn() {
	var files []string
	for _, d := range openvpnDirs {
		ents, err := p.root.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".conf") && !e.IsDir() {
				files = append(files, path.Join(d, e.Name()))
			}
		}
	}
	if len(files) == 0 {
		return
	}
	version := ""
	if out, _, err := p.root.Command(p.ctx, "openvpn", "--version"); err == nil {
		if f := strings.Fields(string(out)); len(f) >= 2 && f[0] == "OpenVPN" {
			version = f[1]
		}
	}
	for _, f := range files {
		b, err := p.root.ReadFile(f)
		if err != nil {
			p.fail(f, err)
			continue
		}
		opts, lines, err := svcconf.OpenVPNConfig(b)
		if err != nil {
			p.skip(f, err.Error())
		}
		p.h.OpenVPN = append(p.h.OpenVPN, facts.OpenVPN{File: f, Version: version, Options: opts, Lines: lines})
	}
}
