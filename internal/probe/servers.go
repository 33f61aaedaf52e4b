package probe

import "strings"

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
// samba package's version from dpkg-query: about 5 MiB and a few
// milliseconds, where `smbd -V` loads Samba's libraries (about 19 MiB, as
// much as the whole audit). Elsewhere `smbd -V` ("Version 4.17.12-Debian").
func (p *prober) smbdVersion() string {
	if fi, err := p.root.Stat(dpkgInfo + "/samba.list"); err == nil && fi.Mode().IsRegular() {
		if out, _, err := p.root.Command(p.ctx, "dpkg-query", "-W", "-f=${Version}", "samba"); err == nil {
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
