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

// netStats are the counters of /sys/class/net/IF/statistics the rules use.
var netStats = []string{
	"rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors", "tx_errors",
	"rx_dropped", "tx_dropped", "rx_missed_errors", "rx_fifo_errors", "rx_over_errors",
	"rx_crc_errors", "collisions", "tx_carrier_errors",
}

func (p *prober) interfaces() {
	ents, err := p.root.ReadDir(pathClassNet)
	if err != nil {
		p.fail(pathClassNet, err)
		return
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "bonding_masters" {
			continue
		}
		p.h.Interfaces = append(p.h.Interfaces, p.iface(name))
	}
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
	if _, err := p.root.Lstat(dir + "/device"); err == nil {
		ifc.Physical = true
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
	for _, s := range netStats {
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
	data, err := p.root.ReadFile(pathSoftnet)
	if err != nil {
		p.fail(pathSoftnet, err)
		return
	}
	rows, err := kernfmt.Softnet(data)
	if err != nil {
		p.skip(pathSoftnet, err.Error())
	}
	p.h.Softnet = rows
}
