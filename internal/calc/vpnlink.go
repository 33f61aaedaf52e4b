package calc

import "fmt"

// VPNLinkPlan answers "the link's MTU is N: which tun-mtu and mssfix?"
// for an OpenVPN data channel (OpenVPN 2.6's frame arithmetic, PlanVPN).
type VPNLinkPlan struct {
	LinkMTU int `json:"link_mtu"`
	// MSSFix is the value for OpenVPN 2.6's "mssfix N mtu": the whole
	// encapsulated packet, so the link MTU itself.
	MSSFix int `json:"mssfix_mtu"`
	// MSSFixLegacy is the same limit for "mssfix N" without "mtu" (and
	// OpenVPN 2.5 and older): the UDP/TCP payload, link MTU − outer IP
	// and UDP/TCP headers.
	MSSFixLegacy int `json:"mssfix_legacy"`
	// MSS is what TCP inside the tunnel is clamped to.
	MSS int `json:"mss"`
	// TunMTUNoFragment is the largest inner packet that fits the link
	// whole (MSS + 40): a tun-mtu of at most this, set on both ends,
	// means no packet (UDP, ICMP too) is fragmented outside.
	TunMTUNoFragment int `json:"tun_mtu_no_fragment"`
	// Breakdown is the arithmetic, as for an mssfix value.
	Breakdown VPNPlan `json:"breakdown"`
}

// PlanVPNLink computes mssfix and tun-mtu for a link MTU; in.MSSFix and
// in.Legacy are ignored.
func PlanVPNLink(in VPNInput, linkMTU int) (VPNLinkPlan, error) {
	if linkMTU < 576 || linkMTU > 65535 {
		return VPNLinkPlan{}, fmt.Errorf("%w: link MTU %d (want 576-65535)", ErrVPN, linkMTU)
	}
	in.MSSFix, in.Legacy = linkMTU, false
	p, err := PlanVPN(in)
	if err != nil {
		return VPNLinkPlan{}, err
	}
	return VPNLinkPlan{LinkMTU: linkMTU, MSSFix: linkMTU, MSSFixLegacy: linkMTU - p.OuterBytes,
		MSS: p.MSS, TunMTUNoFragment: p.MSS + p.InnerBytes, Breakdown: p}, nil
}
