package probe

import (
	"encoding/binary"
	"fmt"
	"net"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/netlink"
)

// addresses returns interface name → CIDR addresses: one netlink
// RTM_GETADDR dump on a live system (read-only), or the captured
// `ip -o addr` output of a captured tree.
func (p *prober) addresses() map[string][]string {
	if !p.root.IsLive() {
		b, src, ok := p.captured("ip", "-o", "addr")
		if !ok {
			p.skip(CommandFile("ip", "-o", "addr"), "missing: addresses not captured")
			return nil
		}
		out, err := parseIPAddr(b)
		if err != nil {
			p.skip(src, err.Error())
		}
		return out
	}
	out, err := liveAddresses()
	if err != nil {
		p.skip("netlink RTM_GETADDR", err.Error())
	}
	return out
}

// parseIPAddr reads `ip -o addr` lines:
// "2: eth0    inet 192.168.1.10/24 brd 192.168.1.255 scope global eth0\ ...".
func parseIPAddr(b []byte) (map[string][]string, error) {
	out := map[string][]string{}
	for i, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 || (f[2] != "inet" && f[2] != "inet6") {
			return out, fmt.Errorf("line %d: not `ip -o addr` output", i+1)
		}
		name := strings.TrimSuffix(f[1], ":")
		if at := strings.IndexByte(name, '@'); at > 0 {
			name = name[:at]
		}
		out[name] = append(out[name], f[3])
	}
	return out, nil
}

// liveAddresses asks rtnetlink (internal/netlink) for every address: an
// RTM_GETADDR dump, what `ip addr` prints.
func liveAddresses() (map[string][]string, error) {
	c, err := netlink.Dial(unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	byIndex := map[int][]string{}
	hdr := [unix.SizeofIfAddrmsg]byte{0: unix.AF_UNSPEC}
	err = c.Dump(unix.RTM_GETADDR, unix.RTM_NEWADDR, hdr[:], func(b []byte) {
		if len(b) < unix.SizeofIfAddrmsg {
			return
		}
		// struct ifaddrmsg: family, prefixlen, flags, scope (u8), index (u32).
		prefix, index := b[1], int(binary.NativeEndian.Uint32(b[4:]))
		var ip net.IP
		netlink.Attrs(b[unix.SizeofIfAddrmsg:], func(t uint16, v []byte) {
			// IFA_LOCAL is the address of a point-to-point link's own
			// end; otherwise IFA_ADDRESS is.
			if t == unix.IFA_LOCAL || (t == unix.IFA_ADDRESS && ip == nil) {
				ip = net.IP(v)
			}
		})
		if ip != nil {
			byIndex[index] = append(byIndex[index], fmt.Sprintf("%s/%d", ip, prefix))
		}
	})
	if err != nil {
		return nil, err
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, i := range ifs {
		if a := byIndex[i.Index]; a != nil {
			out[i.Name] = a
		}
	}
	return out, nil
}
