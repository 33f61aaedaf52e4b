package probe

import (
	"errors"
	"syscall"

	"github.com/nastune/nastune/internal/facts"
)

// unsupported: the driver does not implement this request.
func unsupported(err error) bool {
	return errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV)
}

func (p *prober) liveEthtool(r *ethtoolReader, name string) *facts.Ethtool {
	if r.err != nil {
		p.skip("ethtool "+name, "no ethtool socket: "+r.err.Error())
		return nil
	}
	et := &facts.Ethtool{Source: "ioctl"}
	note := func(what string, err error) {
		if err != nil && !unsupported(err) {
			p.skip("ethtool "+what+name+" (ioctl)", WhyNotCollected(err))
		}
	}
	if d, err := r.driverInfo(name); err == nil {
		et.Driver, et.DriverVersion, et.Firmware, et.BusInfo = d.driver, d.version, d.firmware, d.bus
	} else {
		note("-i ", err)
	}
	if on, fixed, req, err := r.features(name); err == nil {
		addLegacyFeatures(on, fixed)
		addLegacyRequested(on, req)
		et.Features, et.Fixed, et.RequestedOn = on, fixedList(fixed), fixedList(req)
	} else {
		note("-k ", err)
	}
	if g, err := r.ring(name); err == nil && (g.rxMax > 0 || g.txMax > 0) {
		et.Ring = &facts.Ring{RX: g.rx, RXMax: g.rxMax, TX: g.tx, TXMax: g.txMax}
	} else {
		note("-g ", err)
	}
	if c, err := r.coalesce(name); err == nil {
		et.Coalesce = c
	} else {
		note("-c ", err)
	}
	if sup, adv, lp, an, err := r.linkModes(name); err == nil {
		et.Link = &facts.LinkModes{Supported: sup, Advertised: adv, Partner: lp, Autoneg: &an}
	} else {
		note("", err)
	}
	if st, err := r.stats(name); err == nil {
		for k, v := range st {
			if interestingStat(k) {
				if et.Stats == nil {
					et.Stats = map[string]uint64{}
				}
				et.Stats[k] = v
			}
		}
	} else {
		note("-S ", err)
	}
	return et
}
