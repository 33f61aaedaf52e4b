package probe

import (
	"path"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

const (
	pathClassNet = "/sys/class/net"
	pathSoftnet  = "/proc/net/softnet_stat"
)

// hwStats are the counters /proc/net/dev folds into sums; they are read
// from /sys/class/net/IF/statistics for physical NICs only.
var hwStats = []string{"rx_missed_errors", "rx_over_errors", "rx_crc_errors"}

const pathNetDev = "/proc/net/dev"

func (p *prober) interfaces() {
	ents, err := p.root.ReadDir(pathClassNet)
	if err != nil {
		p.fail(pathClassNet, err)
		p.procOnlyBonds()
		return
	}
	defer p.procOnlyBonds()
	addrs := p.addresses()
	var counters map[string]map[string]uint64
	if data, err := p.root.ReadFile(pathNetDev); err != nil {
		p.fail(pathNetDev, err)
	} else if counters, err = kernfmt.NetDev(data); err != nil {
		p.skip(pathNetDev, err.Error()+" (other lines used)")
	}
	var et *ethtoolReader
	if p.root.IsLive() {
		et = newEthtoolReader()
		defer et.close()
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "bonding_masters" {
			continue
		}
		ifc := p.iface(name)
		ifc.Addresses = addrs[name]
		if c, ok := counters[name]; ok {
			if ifc.Stats == nil {
				ifc.Stats = map[string]uint64{}
			}
			for k, v := range c {
				ifc.Stats[k] = v
			}
		}
		if ifc.Type != 772 { // loopback has nothing for ethtool to tell
			if et != nil {
				ifc.Ethtool = p.liveEthtool(et, name)
			} else if ifc.Ethtool = p.capturedEthtool(name); ifc.Ethtool == nil && ifc.Physical {
				p.skip(CommandFile("ethtool", "-i", name), "missing: ethtool output not captured")
			}
		}
		if ifc.Kind == "" && ifc.Ethtool != nil {
			switch d := ifc.Ethtool.Driver; d {
			case "veth", "tun", "macvlan", "dummy", "ifb", "vxlan", "bridge", "bonding":
				ifc.Kind = d
			}
		}
		if ifc.Kind == "bond" || ifc.Kind == "bonding" {
			ifc.Kind = "bond"
			ifc.Bond = p.bond(name)
		}
		p.h.Interfaces = append(p.h.Interfaces, ifc)
	}
}

// bond reads /proc/net/bonding/NAME.
func (p *prober) bond(name string) *facts.Bond {
	src := "/proc/net/bonding/" + name
	b, read, err := parseFile(p, src, kernfmt.Bonding)
	if !read || err != nil {
		return nil
	}
	if b.Mode == "802.3ad" && !b.PartnerInfo {
		p.skip(src+" (802.3ad partner)", "not collected: needs root (the kernel shows the Active Aggregator Info block only to CAP_NET_ADMIN)")
	}
	return &b
}

func (p *prober) iface(name string) facts.Interface {
	dir := pathClassNet + "/" + name
	ifc := facts.Interface{Name: name}
	ifc.Operstate, _ = p.optional(dir + "/operstate")
	if v, ok := p.optInt(dir + "/carrier"); ok {
		ifc.Carrier = boolp(v == 1)
	}
	// speed is -1 or EINVAL when the link is down or the driver has no idea.
	if v, ok := p.optInt(dir + "/speed"); ok && v > 0 && v != 65535 {
		ifc.SpeedMbps = intp(v)
	}
	if d, ok := p.optional(dir + "/duplex"); ok && d != "unknown" {
		ifc.Duplex = d
	}
	if v, ok := p.optInt(dir + "/mtu"); ok {
		ifc.MTU = intp(v)
	}
	if v, ok := p.optInt(dir + "/tx_queue_len"); ok {
		ifc.TxQueue = intp(v)
	}
	ifc.MAC, _ = p.optional(dir + "/address")
	ifc.Type, _ = p.optInt(dir + "/type")
	ifc.IfIndex, _ = p.optInt(dir + "/ifindex")
	if ue, ok := p.optional(dir + "/uevent"); ok {
		for _, l := range strings.Split(ue, "\n") {
			if v, ok := strings.CutPrefix(l, "DEVTYPE="); ok {
				ifc.Kind = v
			}
		}
	}
	if _, err := p.root.Lstat(dir + "/device"); err == nil {
		ifc.Physical = true
		if real, err := p.root.RealPath(dir + "/device"); err == nil {
			ifc.PCIPath = p.pciPath(real)
		}
		if l, err := p.root.Readlink(dir + "/device/driver"); err == nil {
			ifc.Driver = path.Base(l)
		}
	}
	if _, err := p.root.Lstat(dir + "/wireless"); err == nil {
		ifc.Wireless = true
	} else if _, err := p.root.Lstat(dir + "/phy80211"); err == nil {
		ifc.Wireless = true
	}
	if l, err := p.root.Readlink(dir + "/master"); err == nil {
		ifc.Master = path.Base(l)
	}
	switch {
	case ifc.Kind != "":
	case ifc.Type == 772:
		ifc.Kind = "loopback"
	case ifc.Wireless:
		ifc.Kind = "wlan"
	case ifc.Physical:
		ifc.Kind = "ether"
	}
	for _, s := range hwStats {
		if !ifc.Physical {
			break
		}
		if v, ok := p.optUint(dir + "/statistics/" + s); ok {
			if ifc.Stats == nil {
				ifc.Stats = map[string]uint64{}
			}
			ifc.Stats[s] = v
		}
	}
	return ifc
}

func (p *prober) softnet() {
	p.h.Softnet, _, _ = parseFile(p, pathSoftnet, kernfmt.Softnet)
}
