package calc

import (
	"errors"
	"fmt"
	"strings"
)

// ErrVPN is wrapped by invalid VPN inputs.
var ErrVPN = errors.New("invalid VPN parameters")

// VPNInput describes an OpenVPN data channel (TLS mode, UDP).
type VPNInput struct {
	MSSFix int
	// Legacy: MSSFix is the UDP payload, as OpenVPN before 2.6 read it
	// (and 2.6 reads "mssfix N" without "mtu"); otherwise it is the whole
	// encapsulated packet on the wire, 2.6's "mssfix N mtu".
	Legacy bool
	Outer  string // "ipv4" or "ipv6"
	Proto  string // "udp" (default) or "tcp"
	Cipher string // AES-256-GCM, CHACHA20-POLY1305, AES-256-CBC, BF-CBC …
	Auth   string // SHA1, SHA256, SHA512 (CBC only)
	// Compression adds OpenVPN's one-byte compression header (comp-lzo,
	// compress lz4/stub).
	Compression bool
	TAP         bool // a tap device carries a 14-byte Ethernet header
	PeerID      bool // 2.6 servers push peer-id: 4-byte opcode header, else 1
}

// VPNPlan is the answer of `nastune calc vpn`: OpenVPN 2.6's
// frame_calculate_mssfix (src/openvpn/mss.c, mtu.c) step by step.
type VPNPlan struct {
	MSS int `json:"mss"`
	// The bytes subtracted from MSSFix, in order.
	OuterBytes   int    `json:"outer_header_bytes"` // IP + UDP/TCP, only with "mtu"
	OpcodeBytes  int    `json:"opcode_peer_id_bytes"`
	CryptoBytes  int    `json:"crypto_bytes"` // tag or IV + HMAC, + packet id outside CBC
	CBCPadding   int    `json:"cbc_rounding_bytes"`
	PayloadBytes int    `json:"payload_overhead_bytes"` // packet id (CBC), compression, Ethernet
	InnerBytes   int    `json:"inner_ip_tcp_bytes"`     // 40: IPv4 + TCP (IPv6 inner TCP gets 20 less)
	PacketOnWire int    `json:"packet_on_wire_bytes"`   // largest encapsulated packet for that MSS
	Semantics    string `json:"semantics"`
}

type cipherInfo struct {
	aead      bool
	block, iv int
	tag       int
	longPktID bool // OFB/CFB use the long packet id form
}

var ciphers = map[string]cipherInfo{
	"AES-128-GCM": {aead: true, tag: 16}, "AES-192-GCM": {aead: true, tag: 16}, "AES-256-GCM": {aead: true, tag: 16},
	"CHACHA20-POLY1305": {aead: true, tag: 16},
	"AES-128-CBC":       {block: 16, iv: 16}, "AES-192-CBC": {block: 16, iv: 16}, "AES-256-CBC": {block: 16, iv: 16},
	"BF-CBC": {block: 8, iv: 8}, "DES-EDE3-CBC": {block: 8, iv: 8},
	"AES-256-CFB": {iv: 16, longPktID: true}, "AES-256-OFB": {iv: 16, longPktID: true},
}

var digests = map[string]int{"SHA1": 20, "SHA224": 28, "SHA256": 32, "SHA384": 48, "SHA512": 64, "MD5": 16, "NONE": 0}

// VPNCiphers lists the ciphers PlanVPN knows, for help and errors.
func VPNCiphers() string {
	return "AES-128/192/256-GCM, CHACHA20-POLY1305, AES-128/192/256-CBC, BF-CBC, DES-EDE3-CBC, AES-256-CFB/OFB"
}

// PlanVPN computes the MSS OpenVPN clamps TCP to for an mssfix value.
func PlanVPN(in VPNInput) (VPNPlan, error) {
	c, ok := ciphers[strings.ToUpper(in.Cipher)]
	if !ok {
		return VPNPlan{}, fmt.Errorf("%w: cipher %q (known: %s)", ErrVPN, in.Cipher, VPNCiphers())
	}
	auth := strings.ToUpper(in.Auth)
	if auth == "" {
		auth = "SHA1" // OpenVPN's default --auth
	}
	md, ok := digests[auth]
	if !ok {
		return VPNPlan{}, fmt.Errorf("%w: auth %q (known: SHA1, SHA256, SHA384, SHA512)", ErrVPN, in.Auth)
	}
	if in.MSSFix < 576 || in.MSSFix > 65535 {
		return VPNPlan{}, fmt.Errorf("%w: mssfix %d (want 576-65535)", ErrVPN, in.MSSFix)
	}
	p := VPNPlan{Semantics: "OpenVPN 2.6 'mssfix N mtu': N is the whole packet on the wire"}
	if in.Legacy {
		p.Semantics = "'mssfix N' without 'mtu' (2.5 and earlier): N is the UDP payload, outer headers not counted"
	}
	var outer int
	switch strings.ToLower(in.Outer) {
	case "", "ipv4":
		outer = 20
	case "ipv6":
		outer = 40
	default:
		return VPNPlan{}, fmt.Errorf("%w: outer %q (want ipv4 or ipv6)", ErrVPN, in.Outer)
	}
	proto := strings.ToLower(in.Proto)
	switch proto {
	case "", "udp":
		outer += 8
	case "tcp":
		outer += 20
	default:
		return VPNPlan{}, fmt.Errorf("%w: proto %q (want udp or tcp)", ErrVPN, in.Proto)
	}
	// frame_calculate_protocol_header_size: TCP length field, opcode
	// (+ peer id), crypto overhead.
	header := 0
	if proto == "tcp" {
		header += 2
	}
	p.OpcodeBytes = 1
	if in.PeerID {
		p.OpcodeBytes = 4
	}
	header += p.OpcodeBytes
	pktID := 4
	if c.longPktID {
		pktID = 8
	}
	// calculate_crypto_overhead: packet id outside CBC; AEAD tag; else IV
	// and HMAC.
	if c.block == 0 || c.aead {
		p.CryptoBytes += pktID
	}
	if c.aead {
		p.CryptoBytes += c.tag
	} else {
		p.CryptoBytes += c.iv + md
	}
	header += p.CryptoBytes
	if !in.Legacy {
		p.OuterBytes = outer
		header += outer
	}
	target := in.MSSFix - header
	// adjust_payload_max_cbc: whole blocks, one byte of padding.
	adjusted := target
	if c.block > 0 && !c.aead {
		adjusted = target/c.block*c.block - 1
		p.CBCPadding = target - adjusted
	}
	// frame_calculate_payload_overhead: Ethernet (tap), compression
	// header, the packet id inside CBC plaintext.
	if in.TAP {
		p.PayloadBytes += 14
	}
	if in.Compression {
		p.PayloadBytes++
	}
	if c.block > 0 && !c.aead {
		p.PayloadBytes += pktID
	}
	p.InnerBytes = 40
	p.MSS = adjusted - p.PayloadBytes - p.InnerBytes
	if p.MSS < 200 {
		return p, fmt.Errorf("%w: mssfix %d leaves an MSS of %d", ErrVPN, in.MSSFix, p.MSS)
	}
	p.PacketOnWire = in.MSSFix
	if in.Legacy {
		p.PacketOnWire = in.MSSFix + outer
	}
	return p, nil
}
