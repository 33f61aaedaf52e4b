// Package inventory turns facts into the tables admins write scripts for:
// one row per interface, disk, array, pool or share. Pure functions of
// facts; renderers print them as text tables or JSON.
package inventory

import (
	"sort"

	"github.com/nastune/nastune/internal/facts"
)

// Net is `nastune inventory net -o json`.
type Net struct {
	Interfaces []NetRow `json:"interfaces"`
}

// NetRow is one interface.
type NetRow struct {
	Name       string          `json:"name"`
	Kind       string          `json:"kind,omitempty"`
	Operstate  string          `json:"operstate"`
	Carrier    *bool           `json:"carrier"`
	SpeedMbps  *int            `json:"speed_mbps"`
	Duplex     string          `json:"duplex,omitempty"`
	MTU        *int            `json:"mtu"`
	MAC        string          `json:"mac,omitempty"`
	Addresses  []string        `json:"addresses"`
	Driver     string          `json:"driver,omitempty"`
	BusInfo    string          `json:"bus_info,omitempty"`
	Firmware   string          `json:"firmware,omitempty"`
	TxQueueLen *int            `json:"txqueuelen"`
	Features   map[string]bool `json:"features,omitempty"`
	Rings      *facts.Ring     `json:"rings,omitempty"`
	Coalesce   map[string]int  `json:"coalesce,omitempty"`
	Bond       *BondRole       `json:"bond,omitempty"`
	Master     string          `json:"master,omitempty"`
}

// BondRole says how an interface takes part in a bond.
type BondRole struct {
	Role       string   `json:"role"` // master or slave
	Master     string   `json:"master,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	HashPolicy string   `json:"hash_policy,omitempty"`
	Slaves     []string `json:"slaves,omitempty"`
	PartnerMAC string   `json:"partner_mac,omitempty"`
	// AggregatorID is the slave's (role slave) or the active one (master).
	AggregatorID int `json:"aggregator_id,omitempty"`
}

// KeyFeatures are the offloads shown in the table and JSON, by the names
// `ethtool -k` prints.
var KeyFeatures = []string{
	"rx-checksumming", "tx-checksumming", "scatter-gather", "tcp-segmentation-offload",
	"generic-segmentation-offload", "generic-receive-offload", "large-receive-offload",
}

// NetTable builds the interface table, sorted by name.
func NetTable(h *facts.Host) Net {
	bondOf := map[string]*facts.Interface{}
	for i := range h.Interfaces {
		if b := h.Interfaces[i].Bond; b != nil {
			for _, s := range b.Slaves {
				bondOf[s.Name] = &h.Interfaces[i]
			}
		}
	}
	rows := []NetRow{}
	for _, i := range h.Interfaces {
		r := NetRow{
			Name: i.Name, Kind: i.Kind, Operstate: i.Operstate, Carrier: i.Carrier, SpeedMbps: i.SpeedMbps,
			Duplex: i.Duplex, MTU: i.MTU, MAC: i.MAC, Addresses: i.Addresses, TxQueueLen: i.TxQueue,
			Driver: i.Driver, Master: i.Master,
		}
		if r.Addresses == nil {
			r.Addresses = []string{}
		}
		if e := i.Ethtool; e != nil {
			if e.Driver != "" {
				r.Driver = e.Driver
			}
			r.BusInfo, r.Firmware, r.Rings, r.Coalesce = e.BusInfo, e.Firmware, e.Ring, e.Coalesce
			for _, k := range KeyFeatures {
				if v, ok := e.Features[k]; ok {
					if r.Features == nil {
						r.Features = map[string]bool{}
					}
					r.Features[k] = v
				}
			}
		}
		if b := i.Bond; b != nil {
			br := &BondRole{Role: "master", Mode: b.Mode, HashPolicy: b.HashPolicy, PartnerMAC: b.PartnerMAC, AggregatorID: b.AggregatorID}
			for _, s := range b.Slaves {
				br.Slaves = append(br.Slaves, s.Name)
			}
			r.Bond = br
		} else if m := bondOf[i.Name]; m != nil {
			br := &BondRole{Role: "slave", Master: m.Name, Mode: m.Bond.Mode}
			for _, s := range m.Bond.Slaves {
				if s.Name == i.Name {
					br.AggregatorID = s.AggregatorID
				}
			}
			r.Bond = br
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].Name < rows[b].Name })
	return Net{Interfaces: rows}
}
