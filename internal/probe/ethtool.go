package probe

import (
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	ethparse "github.com/nastune/nastune/internal/parse/ethtool"
)

// interesting ethtool -S counters: the ones that show lost packets.
func interestingStat(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"drop", "miss", "over", "fifo", "discard", "err", "no_buf", "nobuf", "no_dma"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// legacyFeatures are the composite names ethtool -k prints for groups of
// kernel features (ethtool.c off_flag_def); a group is on when any member is.
var legacyFeatures = map[string][]string{
	"rx-checksumming":              {"rx-checksum"},
	"tx-checksumming":              {"tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6", "tx-checksum-fcoe-crc", "tx-checksum-sctp"},
	"scatter-gather":               {"tx-scatter-gather", "tx-scatter-gather-fraglist"},
	"tcp-segmentation-offload":     {"tx-tcp-segmentation", "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation"},
	"generic-segmentation-offload": {"tx-generic-segmentation"},
	"generic-receive-offload":      {"rx-gro"},
	"large-receive-offload":        {"rx-lro"},
	"rx-vlan-offload":              {"rx-vlan-hw-parse"},
	"tx-vlan-offload":              {"tx-vlan-hw-insert"},
	"ntuple-filters":               {"rx-ntuple-filter"},
	"receive-hashing":              {"rx-hashing"},
}

// addLegacyFeatures derives ethtool's composite names from kernel feature
// names, so live (ioctl) and captured (ethtool -k) facts read alike.
func addLegacyFeatures(on map[string]bool, fixed map[string]bool) {
	for legacy, members := range legacyFeatures {
		_, printed := on[legacy]
		any, seen, allFixed := false, false, true
		for _, m := range members {
			v, ok := on[m]
			if !ok {
				continue
			}
			seen = true
			any = any || v
			allFixed = allFixed && fixed[m]
		}
		// ethtool -k prints the composite line without [fixed] even
		// when every member is fixed: derive it either way.
		if seen {
			if !printed {
				on[legacy] = any
			}
			if allFixed {
				fixed[legacy] = true
			}
		}
	}
}

// addLegacyRequested marks a composite feature as requested on when it is
// off and one of its members is "off [requested on]" (ethtool prints the
// tag on the member lines only).
func addLegacyRequested(on, req map[string]bool) {
	for legacy, members := range legacyFeatures {
		if on[legacy] {
			continue
		}
		for _, m := range members {
			if req[m] {
				req[legacy] = true
			}
		}
	}
}

func fixedList(fixed map[string]bool) []string {
	var out []string
	for k, v := range fixed {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// capturedEthtool fills Ethtool from captured `ethtool` runs.
func (p *prober) capturedEthtool(name string) *facts.Ethtool {
	var et facts.Ethtool
	found := false
	if b, src, ok := p.captured("ethtool", "-i", name); ok {
		found = true
		et.Source = src
		if d, err := ethparse.ParseDriver(b); err == nil {
			et.Driver, et.DriverVersion, et.Firmware, et.BusInfo = d.Driver, d.Version, d.Firmware, d.BusInfo
		} else {
			p.skip(src, err.Error())
		}
	}
	if b, src, ok := p.captured("ethtool", "-k", name); ok {
		found = true
		et.Source = firstNonEmpty(et.Source, src)
		f, err := ethparse.ParseFeatures(b)
		if err != nil {
			p.skip(src, err.Error())
		}
		if len(f.On) > 0 { // the lines that could be read
			addLegacyFeatures(f.On, f.Fixed)
			addLegacyRequested(f.On, f.Requested)
			et.Features, et.Fixed, et.RequestedOn = f.On, fixedList(f.Fixed), fixedList(f.Requested)
		}
	}
	if b, src, ok := p.captured("ethtool", "-g", name); ok {
		found = true
		if r, err := ethparse.ParseRing(b); err == nil {
			et.Ring = &facts.Ring{RX: r.RX, RXMax: r.RXMax, TX: r.TX, TXMax: r.TXMax}
		} else {
			p.skip(src, err.Error())
		}
	}
	if b, src, ok := p.captured("ethtool", "-c", name); ok {
		found = true
		if c, err := ethparse.ParseCoalesce(b); err == nil {
			et.Coalesce = c
		} else {
			p.skip(src, err.Error())
		}
	}
	if b, src, ok := p.captured("ethtool", name); ok {
		found = true
		if s, err := ethparse.ParseSettings(b); err == nil {
			et.Link = &facts.LinkModes{Supported: s.Supported, Advertised: s.Advertised, Partner: s.Partner, Autoneg: s.Autoneg}
		} else {
			p.skip(src, err.Error())
		}
	}
	if b, src, ok := p.captured("ethtool", "-S", name); ok {
		found = true
		if s, err := ethparse.ParseStats(b); err == nil {
			for k, v := range s {
				if interestingStat(k) {
					if et.Stats == nil {
						et.Stats = map[string]uint64{}
					}
					et.Stats[k] = v
				}
			}
		} else {
			p.skip(src, err.Error())
		}
	}
	if !found {
		return nil
	}
	return &et
}
