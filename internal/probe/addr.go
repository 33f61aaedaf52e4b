package probe

import (
	"fmt"
	"net"
	"strings"
	"syscall"
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

func liveAddresses() (map[string][]string, error) {
	rib, err := syscall.NetlinkRIB(syscall.RTM_GETADDR, syscall.AF_UNSPEC)
	if err != nil {
		return nil, err
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return nil, err
	}
	byIndex := map[int][]string{}
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWADDR || len(m.Data) < syscall.SizeofIfAddrmsg {
			continue
		}
		ifa := (*syscall.IfAddrmsg)(unsafePointer(&m.Data[0]))
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			continue
		}
		var ip net.IP
		for _, a := range attrs {
			// IFA_LOCAL is the address of a point-to-point link's own
			// end; otherwise IFA_ADDRESS is.
			if a.Attr.Type == syscall.IFA_LOCAL || (a.Attr.Type == syscall.IFA_ADDRESS && ip == nil) {
				ip = net.IP(a.Value)
			}
		}
		if ip != nil {
			byIndex[int(ifa.Index)] = append(byIndex[int(ifa.Index)], fmt.Sprintf("%s/%d", ip, ifa.Prefixlen))
		}
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
