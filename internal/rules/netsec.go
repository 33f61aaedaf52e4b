package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/rule"
)

// Packet sockets bypass the firewall: KNOWLEDGE §12.
var netsecRules = []rule.Rule{
	{Meta: metaPacketSocket, Check: checkPacketSockets},
}

var metaPacketSocket = rule.Meta{
	ID: "netsec-packet-socket", Family: "netsec", Severity: rule.Info, Since: "0.2.0",
	Title: "A program receives frames before the firewall",
	Doc: "AF_PACKET sockets get a copy of frames as the driver hands them up, before netfilter: " +
		"iptables and nftables INPUT rules never filter what they see. DHCP clients and servers, " +
		"LLDP and capture tools use them legitimately; anything else listening this way on a NAS " +
		"deserves a look. /proc/net/packet lists the sockets, /proc/PID/fd maps them to programs.",
	Refs: []string{"https://man7.org/linux/man-pages/man7/packet.7.html", "https://docs.kernel.org/networking/packet_mmap.html"},
}

func checkPacketSockets(in rule.Input) []rule.Finding {
	h := in.Host
	names := map[int]string{}
	for _, i := range h.Interfaces {
		names[i.IfIndex] = i.Name
	}
	var out []rule.Finding
	for _, s := range h.PacketSockets {
		iface := "all interfaces"
		if s.IfIndex != 0 {
			iface = names[s.IfIndex]
			if iface == "" {
				iface = fmt.Sprintf("interface %d", s.IfIndex)
			}
		}
		kind := map[int]string{2: "SOCK_DGRAM", 3: "SOCK_RAW"}[s.Type]
		ev := []rule.Evidence{rule.Ev("/proc/net/packet", fmt.Sprintf("inode %d type %d proto %s iface %d uid %d", s.Inode, s.Type, s.Proto, s.IfIndex, s.UID))}
		subject := fmt.Sprintf("socket inode %d", s.Inode)
		who := "an unknown process (run as root to see which)"
		if len(s.Processes) > 0 {
			var ps []string
			for _, p := range s.Processes {
				ps = append(ps, fmt.Sprintf("%s (pid %d)", p.Comm, p.PID))
				ev = append(ev, rule.Ev(fmt.Sprintf("/proc/%d/fd", p.PID), fmt.Sprintf("socket:[%d] held by %s: %s", s.Inode, p.Comm, p.Cmdline)))
			}
			who = strings.Join(ps, ", ")
			subject = s.Processes[0].Comm + " " + fmt.Sprint(s.Processes[0].PID)
		}
		f := metaPacketSocket.New(subject, fmt.Sprintf(
			"%s holds a %s packet socket (ethertype 0x%s) on %s: it sees those frames before any iptables/nftables rule.",
			who, strings.TrimSpace(kind+" "), strings.ToLower(s.Proto), iface), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "confirm the program is expected (DHCP, LLDP, capture); firewall rules do not protect it",
			Basis:  "AF_PACKET receives before netfilter"}
		out = append(out, f)
	}
	return out
}
