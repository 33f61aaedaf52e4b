package probe

import (
	"strings"

	"github.com/nastune/nastune/internal/parse/dpkgstatus"
)

// Where distributions and source builds install the servers.
var (
	smbdPaths = []string{"/usr/sbin/smbd", "/usr/local/sbin/smbd", "/usr/local/samba/sbin/smbd", "/sbin/smbd"}
	nfsdPaths = []string{"/usr/sbin/rpc.nfsd", "/sbin/rpc.nfsd", "/usr/local/sbin/rpc.nfsd"}
)

const dpkgInfo = "/var/lib/dpkg/info"

// serverPresence says whether a server is installed: present names the
// binary or package found; missing names what shows it is absent. On a
// live system a missing binary is proof enough; a captured tree holds
// only what was read, so there only Debian's package database (the
// server package's .list file absent while the tree has the database)
// proves absence.
func (p *prober) serverPresence(paths []string, pkg string) (present, missing string) {
	for _, b := range paths {
		if fi, err := p.root.Stat(b); err == nil && fi.Mode().IsRegular() {
			return b, ""
		}
	}
	list := dpkgInfo + "/" + pkg + ".list"
	if _, err := p.root.Stat(list); err == nil {
		return "Debian package " + pkg + " (" + list + ")", ""
	}
	if p.root.IsLive() {
		return "", "no " + strings.Join(paths, ", ")
	}
	if fi, err := p.root.Stat(dpkgInfo); err == nil && fi.IsDir() {
		return "", "Debian package " + pkg + " is not installed (" + list + " absent)"
	}
	return "", ""
}

// smbdVersion is the installed Samba's version ("4.17.12"). Where Debian's
// package database is (Debian, Ubuntu, Armbian, OpenMediaVault), the
// samba package's version as `dpkg-query -W -f=${Version} samba` prints
// it: on the live system read from /var/lib/dpkg/status itself (streamed,
// about 1 ms, where running dpkg-query cost a child of about 5 MiB and
// 10-20 ms the audit waited for) and recorded as that command's output, so
// a snapshot replays it from the same file as before; in a captured tree
// from that file. Elsewhere `smbd -V` ("Version 4.17.12-Debian"), which
// loads Samba's libraries (about 19 MiB, as much as the whole audit).
func (p *prober) smbdVersion() string {
	if fi, err := p.root.Stat(dpkgInfo + "/samba.list"); err == nil && fi.Mode().IsRegular() {
		argv := []string{"dpkg-query", "-W", "-f=${Version}", "samba"}
		var out []byte
		var err error
		if p.root.IsLive() {
			if out, err = p.dpkgVersion("samba"); err == nil {
				p.root.RecordCommand(argv, out)
			}
		} else {
			out, _, err = p.root.Command(p.ctx, argv...)
		}
		if err == nil {
			if v := debianUpstream(strings.TrimSpace(string(out))); v != "" {
				return v
			}
		}
	}
	out, _, err := p.root.Command(p.ctx, "smbd", "-V")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(out))
	if len(f) >= 2 && f[0] == "Version" {
		return f[1]
	}
	return ""
}

// dpkgVersion is what `dpkg-query -W -f=${Version} pkg` prints, read from
// the package database.
func (p *prober) dpkgVersion(pkg string) ([]byte, error) {
	f, err := p.root.Stream(dpkgstatus.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := dpkgstatus.Version(f, pkg)
	return []byte(v), err
}

// debianUpstream is the upstream part of a Debian version
// ("2:4.17.12+dfsg-0+deb12u4" → "4.17.12"): the epoch dropped, then the
// leading run of digits and dots (deb-version(7)); "" when there is none.
func debianUpstream(v string) string {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	n := 0
	for n < len(v) && (v[n] >= '0' && v[n] <= '9' || v[n] == '.') {
		n++
	}
	v = strings.TrimRight(v[:n], ".")
	if !strings.Contains(v, ".") {
		return ""
	}
	return v
}
