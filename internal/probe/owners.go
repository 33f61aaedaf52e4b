package probe

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// owners finds other tools that set the same knobs nastune would: an
// active TuneD profile (sysctls, scheduler, read-ahead), NetworkManager
// connection [ethtool] sections and systemd-networkd .link files (offloads,
// rings, MTU, txqueuelen). nastune reports them instead of fighting them.
func (p *prober) owners() {
	if prof, ok := p.optional("/etc/tuned/active_profile"); ok && prof != "" {
		if _, err := p.root.Stat("/run/tuned/tuned.pid"); err == nil {
			p.h.Owners = append(p.h.Owners, facts.Owner{Tool: "tuned", Source: "/etc/tuned/active_profile",
				What: "profile " + prof + " sets sysctls and block queue settings"})
		}
	}
	const nm = "/etc/NetworkManager/system-connections"
	if ents, err := p.root.ReadDir(nm); err == nil {
		for _, e := range ents {
			b, err := p.root.ReadFile(nm + "/" + e.Name())
			if err == nil && strings.Contains(string(b), "[ethtool]") {
				p.h.Owners = append(p.h.Owners, facts.Owner{Tool: "NetworkManager", Source: nm + "/" + e.Name(), What: "ethtool offloads, rings or coalescing"})
			}
		}
	}
	for _, dir := range []string{"/etc/systemd/network", "/run/systemd/network"} {
		ents, err := p.root.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".link") {
				continue
			}
			b, err := p.root.ReadFile(dir + "/" + e.Name())
			if err != nil {
				continue
			}
			for _, k := range []string{"TransmitQueueLength", "MTUBytes", "RxBufferSize", "TxBufferSize", "GenericReceiveOffload", "TCPSegmentationOffload"} {
				if strings.Contains(string(b), k+"=") {
					p.h.Owners = append(p.h.Owners, facts.Owner{Tool: "systemd-networkd", Source: dir + "/" + e.Name(), What: "link settings (" + k + " …)"})
					break
				}
			}
		}
	}
}
