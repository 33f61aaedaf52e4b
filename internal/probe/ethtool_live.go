package probe

import (
	"errors"
	"strings"
	"syscall"

	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/facts"
)

// ethtoolReader asks the kernel through the SIOCETHTOOL ioctl, which every
// kernel nastune supports has (the ethtool netlink API needs 5.6+, and
// small ARM NAS boxes run 2.6-4.x). Only the Get* requests are used.
type ethtoolReader struct {
	e   *ethtool.Ethtool
	fd  int // our own socket for GLINKSETTINGS
	err error
}

func newEthtoolReader() *ethtoolReader {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return &ethtoolReader{err: err, fd: -1}
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		e.Close()
		return &ethtoolReader{err: err, fd: -1}
	}
	return &ethtoolReader{e: e, fd: fd}
}

func (r *ethtoolReader) close() {
	if r.e != nil {
		r.e.Close()
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
}

// unsupported: the driver does not implement this request.
func unsupported(err error) bool {
	return errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV)
}

func (p *prober) liveEthtool(r *ethtoolReader, name string) *facts.Ethtool {
	if r.err != nil {
		p.skip("ethtool "+name, "no ethtool socket: "+r.err.Error())
		return nil
	}
	e := r.e
	et := &facts.Ethtool{Source: "ioctl"}
	note := func(what string, err error) {
		if err != nil && !unsupported(err) {
			p.skip("ethtool "+what+" "+name+" (ioctl)", Reason(err))
		}
	}
	if d, err := e.DriverInfo(name); err == nil {
		et.Driver, et.DriverVersion, et.Firmware, et.BusInfo = d.Driver, d.Version, d.FwVersion, d.BusInfo
	} else {
		note("-i", err)
	}
	if fs, err := e.FeaturesWithState(name); err == nil && len(fs) > 0 {
		on, fixed := map[string]bool{}, map[string]bool{}
		for k, st := range fs {
			on[k] = st.Active
			if !st.Available {
				fixed[k] = true
			}
		}
		addLegacyFeatures(on, fixed)
		et.Features, et.Fixed = on, fixedList(fixed)
	} else {
		note("-k", err)
	}
	if g, err := e.GetRing(name); err == nil && (g.RxMaxPending > 0 || g.TxMaxPending > 0) {
		et.Ring = &facts.Ring{RX: int(g.RxPending), RXMax: int(g.RxMaxPending), TX: int(g.TxPending), TXMax: int(g.TxMaxPending)}
	} else {
		note("-g", err)
	}
	if c, err := e.GetCoalesce(name); err == nil {
		et.Coalesce = map[string]int{
			"rx-usecs": int(c.RxCoalesceUsecs), "rx-frames": int(c.RxMaxCoalescedFrames),
			"tx-usecs": int(c.TxCoalesceUsecs), "tx-frames": int(c.TxMaxCoalescedFrames),
			"adaptive-rx": int(c.UseAdaptiveRxCoalesce), "adaptive-tx": int(c.UseAdaptiveTxCoalesce),
		}
	} else {
		note("-c", err)
	}
	if sup, adv, lp, an, err := linkModes(r.fd, name); err == nil {
		et.Link = &facts.LinkModes{Supported: sup, Advertised: adv, Partner: lp, Autoneg: &an}
	} else if errors.Is(err, syscall.EOPNOTSUPP) {
		// Before Linux 4.6: the legacy ETHTOOL_GSET with 32-bit masks.
		var cmd ethtool.EthtoolCmd
		if _, err := e.CmdGet(&cmd, name); err == nil {
			an := cmd.Autoneg == 1
			et.Link = &facts.LinkModes{Supported: modeNames(ethtool.SupportedLinkModes(uint64(cmd.Supported))),
				Advertised: modeNames(ethtool.SupportedLinkModes(uint64(cmd.Advertising))),
				Partner:    modeNames(ethtool.SupportedLinkModes(uint64(cmd.Lp_advertising))), Autoneg: &an}
		} else {
			note("", err)
		}
	} else {
		note("", err)
	}
	if st, err := e.Stats(name); err == nil {
		for k, v := range st {
			if interestingStat(k) {
				if et.Stats == nil {
					et.Stats = map[string]uint64{}
				}
				et.Stats[k] = v
			}
		}
	} else {
		note("-S", err)
	}
	return et
}

// modeNames turns the library's "1000baseT_Full" into ethtool's "1000baseT/Full".
func modeNames(in []string) []string {
	var out []string
	for _, m := range in {
		if i := strings.LastIndexByte(m, '_'); i > 0 {
			m = m[:i] + "/" + m[i+1:]
		}
		out = append(out, m)
	}
	return out
}
