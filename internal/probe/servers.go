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

// smbdVersion reads `smbd -V` ("Version 4.17.12-Debian").
func (p *prober) smbdVersion() string {
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
