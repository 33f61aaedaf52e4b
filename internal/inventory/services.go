package inventory

import (
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Services is `nastune inventory services -o json`.
type Services struct {
	Shares     []ShareRow     `json:"shares"`
	SambaFrom  string         `json:"samba_values_from,omitempty"`
	NFSThreads int            `json:"nfs_threads,omitempty"`
	Exports    []facts.Export `json:"exports"`
	VPN        []VPNRow       `json:"vpn"`
}

// ShareRow is one Samba share with its key options (effective values).
type ShareRow struct {
	Name    string            `json:"name"`
	Path    string            `json:"path"`
	Options map[string]string `json:"options"`
}

// ShareKeys are the share options shown, by smb.conf name and canonical key.
var ShareKeys = []struct{ Name, Key string }{
	{"read only", "readonly"}, {"guest ok", "guestok"}, {"browseable", "browseable"}, {"use sendfile", "usesendfile"},
	{"strict locking", "strictlocking"}, {"oplocks", "oplocks"}, {"follow symlinks", "followsymlinks"}, {"wide links", "widelinks"},
}

// VPNRow is one OpenVPN instance.
type VPNRow struct {
	File        string `json:"file"`
	Role        string `json:"role"` // server or client
	Proto       string `json:"proto"`
	Port        int    `json:"port,omitempty"`
	Dev         string `json:"dev,omitempty"`
	Cipher      string `json:"cipher"`
	Sndbuf      string `json:"sndbuf,omitempty"`
	Rcvbuf      string `json:"rcvbuf,omitempty"`
	TunMTU      string `json:"tun_mtu,omitempty"`
	MSSFix      string `json:"mssfix,omitempty"`
	Fragment    string `json:"fragment,omitempty"`
	Compression string `json:"compression,omitempty"`
	Version     string `json:"version,omitempty"`
}

// ServiceTable builds the services inventory.
func ServiceTable(h *facts.Host) Services {
	out := Services{Shares: []ShareRow{}, Exports: []facts.Export{}, VPN: []VPNRow{}}
	if s := h.Samba; s != nil {
		out.SambaFrom = s.Source
		names := make([]string, 0, len(s.Shares))
		for n := range s.Shares {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			val := func(k string) string {
				if v, ok := s.Shares[n][k]; ok {
					return v
				}
				return s.Global[k]
			}
			r := ShareRow{Name: n, Path: val("path"), Options: map[string]string{}}
			for _, k := range ShareKeys {
				r.Options[k.Name] = val(k.Key)
			}
			out.Shares = append(out.Shares, r)
		}
	}
	if n := h.NFS; n != nil {
		out.NFSThreads = n.Threads
		if n.Exports != nil {
			out.Exports = n.Exports
		}
	}
	for _, v := range h.OpenVPN {
		o := v.Options
		r := VPNRow{File: v.File, Role: "server", Proto: firstWord(o["proto"], "udp"), Dev: o["dev"], Version: v.Version,
			Cipher: firstWord(strings.Split(o["data-ciphers"], ":")[0], firstWord(o["cipher"], "(default)")),
			Sndbuf: o["sndbuf"], Rcvbuf: o["rcvbuf"], TunMTU: o["tun-mtu"], MSSFix: o["mssfix"], Fragment: o["fragment"]}
		if _, ok := o["client"]; ok {
			r.Role = "client"
		}
		r.Port, _ = strconv.Atoi(firstWord(o["port"], "1194"))
		if f := strings.Fields(o["remote"]); r.Role == "client" && len(f) > 1 {
			r.Port, _ = strconv.Atoi(f[1])
		}
		switch {
		case o["comp-lzo"] != "" || hasKey(o, "comp-lzo"):
			r.Compression = "comp-lzo " + o["comp-lzo"]
		case hasKey(o, "compress"):
			r.Compression = strings.TrimSpace("compress " + o["compress"])
		}
		out.VPN = append(out.VPN, r)
	}
	return out
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func firstWord(s, def string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return def
}
