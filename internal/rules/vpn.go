package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// OpenVPN: KNOWLEDGE §11.
var vpnRules = []rule.Rule{
	{Meta: metaVPNBuffers, Check: checkVPNBuffers},
	{Meta: metaVPNMTU, Check: checkVPNMTU},
	{Meta: metaVPNFragment, Check: checkVPNFragment},
	{Meta: metaVPNCompression, Check: checkVPNCompression},
	{Meta: metaVPNTCP, Check: checkVPNTCP},
	{Meta: metaVPNCipher, Check: checkVPNCipher},
}

const refOpenVPN = "https://openvpn.net/community-resources/reference-manual-for-openvpn-2-6/"

func vpnEv(v facts.OpenVPN, opt string) rule.Evidence {
	return rule.Ev(fmt.Sprintf("%s:%d", v.File, v.Lines[opt]), strings.TrimSpace(opt+" "+v.Options[opt]))
}

func vpnHas(v facts.OpenVPN, opt string) bool { _, ok := v.Options[opt]; return ok }

var metaVPNBuffers = rule.Meta{
	ID: "vpn-buffers-capped", Family: "vpn", Severity: rule.Warn, Since: "0.4.0",
	Title: "OpenVPN asks for socket buffers the kernel caps",
	Doc: "sndbuf/rcvbuf set SO_SNDBUF/SO_RCVBUF, which the kernel silently caps at " +
		"net.core.wmem_max/rmem_max (and doubles for bookkeeping). Since OpenVPN 2.4 the default " +
		"is to leave buffers to the OS. Either drop the options, or, when UDP buffer errors show " +
		"drops, raise the caps so the request takes effect.",
	Refs: []string{refOpenVPN, refNetSysctl + "#rmem-max"},
}

func checkVPNBuffers(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, v := range h.OpenVPN {
		for _, b := range []struct{ opt, key string }{{"sndbuf", "net.core.wmem_max"}, {"rcvbuf", "net.core.rmem_max"}} {
			want, err := strconv.ParseInt(strings.Fields(v.Options[b.opt] + " x")[0], 10, 64)
			limit, ok := sysctlInt(h, b.key)
			if err != nil || !ok || want <= limit {
				continue
			}
			why := fmt.Sprintf("%s asks for %s %d but the kernel caps it at %d (%s): it gets %d bytes less than it asks for.",
				v.File, b.opt, want, limit, b.key, want-limit)
			ev := []rule.Evidence{vpnEv(v, b.opt), rule.Ev(sysctlSource(b.key), itoa(limit))}
			errs := uint64(0)
			if h.UDP != nil {
				errs = h.UDP.RcvbufErrors + h.UDP.SndbufErrors
				ev = append(ev, rule.Ev("/proc/net/snmp", fmt.Sprintf("Udp: RcvbufErrors %d SndbufErrors %d", h.UDP.RcvbufErrors, h.UDP.SndbufErrors)))
			}
			f := metaVPNBuffers.New(v.File+" "+b.opt, why, ev...)
			if errs > 0 {
				f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: b.key, Current: itoa(limit), Value: itoa(want),
					Basis: fmt.Sprintf("UDP buffer errors (%d) show drops: raise the cap to what OpenVPN asks (or remove %s to let the OS size it)", errs, b.opt)}
			} else {
				f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
					Target: fmt.Sprintf("remove '%s' from %s line %d (the OS sizes buffers since 2.4), or raise %s to %d", b.opt, v.File, v.Lines[b.opt], b.key, want),
					Basis:  "no UDP buffer errors recorded"}
			}
			out = append(out, f)
		}
	}
	return out
}

var metaVPNMTU = rule.Meta{
	ID: "vpn-mtu-settings", Family: "vpn", Severity: rule.Info, Since: "0.4.0",
	Title: "OpenVPN MTU settings from before 2.6",
	Doc: "OpenVPN 2.6 defaults to `mssfix 1492 mtu` with tun-mtu 1500: the number counts the whole " +
		"encapsulated packet, and TCP's MSS follows from it. Older configs lower tun-mtu (1400) " +
		"and set mssfix without 'mtu', which meant the UDP payload and now silently changes " +
		"meaning by the outer 28-48 bytes. Measure the path MTU P once, set `mssfix P mtu` and keep " +
		"tun-mtu 1500.",
	Refs: []string{refOpenVPN, "https://github.com/OpenVPN/openvpn/blob/master/src/openvpn/mss.c"},
}

func checkVPNMTU(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, v := range in.Host.OpenVPN {
		tun := v.Options["tun-mtu"]
		mss := v.Options["mssfix"]
		legacyMSS := vpnHas(v, "mssfix") && mss != "" && !strings.Contains(mss, "mtu")
		if (tun == "" || tun == "1500") && !legacyMSS {
			continue
		}
		var ev []rule.Evidence
		why := v.File + " uses pre-2.6 MTU tuning:"
		if tun != "" && tun != "1500" {
			ev = append(ev, vpnEv(v, "tun-mtu"))
			why += fmt.Sprintf(" tun-mtu %s shrinks every tunnel packet;", tun)
		}
		if legacyMSS {
			n, _ := strconv.Atoi(strings.Fields(mss)[0])
			ev = append(ev, vpnEv(v, "mssfix"))
			p26, err1 := calc.PlanVPN(calc.VPNInput{MSSFix: n, Cipher: vpnCipher(v), Auth: v.Options["auth"], PeerID: true})
			old, err2 := calc.PlanVPN(calc.VPNInput{MSSFix: n, Legacy: true, Cipher: vpnCipher(v), Auth: v.Options["auth"], PeerID: true})
			if err1 == nil && err2 == nil {
				why += fmt.Sprintf(" mssfix %d gives MSS %d when read as the UDP payload (2.5 and 2.6 without 'mtu') and %d as the whole packet ('mssfix %d mtu');", n, old.MSS, p26.MSS, n)
			}
		}
		f := metaVPNMTU.New(v.File, strings.TrimSuffix(why, ";")+".", ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "measure the path MTU P (ping -M do -s SIZE), then use 'mssfix P mtu' and remove tun-mtu (1500)",
			Basis:  "OpenVPN 2.6 frame calculation (nastune calc vpn)"}
		out = append(out, f)
	}
	return out
}

func vpnCipher(v facts.OpenVPN) string {
	if c := strings.Split(v.Options["data-ciphers"], ":")[0]; c != "" {
		return c
	}
	if c := v.Options["cipher"]; c != "" {
		return c
	}
	return "AES-256-GCM"
}

var metaVPNFragment = rule.Meta{
	ID: "vpn-fragment", Family: "vpn", Severity: rule.Info, Since: "0.4.0",
	Title: "OpenVPN fragments packets itself",
	Doc: "`fragment` makes OpenVPN split packets in user space: it works over UDP only, costs CPU " +
		"on both ends, and turns off data-channel offload (DCO). mssfix keeps TCP from sending " +
		"oversized packets in the first place and is enough for almost all paths.",
	Refs: []string{refOpenVPN},
}

func checkVPNFragment(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, v := range in.Host.OpenVPN {
		if !vpnHas(v, "fragment") {
			continue
		}
		f := metaVPNFragment.New(v.File, v.File+" fragments in user space, which costs CPU and rules out DCO.", vpnEv(v, "fragment"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("remove 'fragment' (line %d) and rely on 'mssfix P mtu'", v.Lines["fragment"]),
			Basis: "OpenVPN 2.6 manual"}
		out = append(out, f)
	}
	return out
}

var metaVPNCompression = rule.Meta{
	ID: "vpn-compression", Family: "vpn", Severity: rule.Warn, Since: "0.4.0",
	Title: "Compression in the VPN tunnel",
	Doc: "comp-lzo and compress lz4 compress before encrypting: an attacker who can inject traffic " +
		"learns secrets from the compressed sizes (VORACLE), and on NAS CPUs the compression costs " +
		"more than it saves on already-compressed media. OpenVPN 2.6 refuses it by default " +
		"(allow-compression no).",
	Refs: []string{refOpenVPN, "https://community.openvpn.net/openvpn/wiki/VORACLE"},
}

func checkVPNCompression(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, v := range in.Host.OpenVPN {
		opt := ""
		switch {
		case vpnHas(v, "comp-lzo") && v.Options["comp-lzo"] != "no":
			opt = "comp-lzo"
		case vpnHas(v, "compress") && v.Options["compress"] != "stub" && v.Options["compress"] != "stub-v2" && v.Options["compress"] != "migrate":
			opt = "compress"
		}
		if opt == "" {
			continue
		}
		f := metaVPNCompression.New(v.File, v.File+" compresses tunnel traffic before encryption.", vpnEv(v, opt))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("remove '%s' (line %d) on server and clients", opt, v.Lines[opt]),
			Basis: "VORACLE; 2.6 default allow-compression no"}
		out = append(out, f)
	}
	return out
}

var metaVPNTCP = rule.Meta{
	ID: "vpn-tcp-transport", Family: "vpn", Severity: rule.Info, Since: "0.4.0",
	Title: "OpenVPN over TCP",
	Doc: "Tunnelling TCP inside TCP stacks two retransmission loops: on any packet loss both " +
		"back off and throughput collapses (TCP meltdown). Use UDP unless a firewall allows nothing " +
		"else.",
	Refs: []string{refOpenVPN, "https://openvpn.net/faq/what-is-tcp-meltdown/"},
}

func checkVPNTCP(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, v := range in.Host.OpenVPN {
		if !strings.HasPrefix(v.Options["proto"], "tcp") {
			continue
		}
		f := metaVPNTCP.New(v.File, v.File+" carries the tunnel over TCP: TCP inside TCP collapses on packet loss.", vpnEv(v, "proto"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: "use proto udp where the network allows it", Basis: "TCP meltdown"}
		out = append(out, f)
	}
	return out
}

var metaVPNCipher = rule.Meta{
	ID: "vpn-cipher-no-aes", Family: "vpn", Severity: rule.Warn, Since: "0.4.0",
	Title: "Data cipher slower than CHACHA20-POLY1305 on this CPU",
	Doc: "OpenVPN encrypts in user space with OpenSSL. Without AES instructions (ARMv5-v7, old " +
		"Atoms) AES-GCM and AES-CBC run several times slower than CHACHA20-POLY1305, which was " +
		"designed for such CPUs; on a small NAS the cipher sets the VPN's throughput. BF-CBC is " +
		"slow too and its 64-bit blocks are open to SWEET32.",
	Refs: []string{refOpenVPN, "https://www.rfc-editor.org/rfc/rfc8439"},
}

func checkVPNCipher(in rule.Input) []rule.Finding {
	h := in.Host
	if h.CPU.HasFlag("aes") || h.CPU.Count == 0 {
		return nil
	}
	var out []rule.Finding
	for _, v := range h.OpenVPN {
		c := vpnCipher(v)
		if !strings.HasPrefix(strings.ToUpper(c), "AES") && !strings.HasPrefix(strings.ToUpper(c), "BF") {
			continue
		}
		opt := "cipher"
		if vpnHas(v, "data-ciphers") {
			opt = "data-ciphers"
		}
		ev := []rule.Evidence{rule.Ev("/proc/cpuinfo", "no aes flag ("+h.Arch+")")}
		if vpnHas(v, opt) {
			ev = append([]rule.Evidence{vpnEv(v, opt)}, ev...)
		}
		f := metaVPNCipher.New(v.File, fmt.Sprintf("%s uses %s on a CPU without AES instructions.", v.File, c), ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "put CHACHA20-POLY1305 first in data-ciphers on server and clients", Basis: "no AES instructions"}
		out = append(out, f)
	}
	return out
}
