package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Samba: KNOWLEDGE §9. Values are the effective ones (testparm when it is
// installed); evidence names the file and line that set them.
var sambaRules = []rule.Rule{
	{Meta: metaSmbInvalid, Check: checkSmbInvalid},
	{Meta: metaSendfile, Check: checkSendfile},
	{Meta: metaSMB1Dead, Check: checkSMB1Dead},
	{Meta: metaAIOSize, Check: checkAIOSize},
	{Meta: metaSockOpts, Check: checkSockOpts},
	{Meta: metaStrictLocking, Check: checkStrictLocking},
	{Meta: metaWideLinks, Check: checkWideLinks},
	{Meta: metaFollowSymlinks, Check: checkFollowSymlinks},
	{Meta: metaMultichannel, Check: checkMultichannel},
	{Meta: metaSMB1Enabled, Check: checkSMB1Enabled},
	{Meta: metaSigningNoAES, Check: checkSigningNoAES},
	{Meta: metaLogLevel, Check: checkLogLevel},
}

const refSmbConf = "https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html"

func smbRef(anchor string) string { return refSmbConf + "#" + anchor }

// sambaSetting is the line that sets key in section (global: "global").
func sambaSetting(s *facts.Samba, section, key string) *facts.SambaSetting {
	var last *facts.SambaSetting
	for i := range s.Settings {
		x := &s.Settings[i]
		if x.Key == key && strings.EqualFold(x.Section, section) {
			last = x
		}
	}
	return last
}

func sambaEv(s *facts.Samba, section, key, value string) rule.Evidence {
	if x := sambaSetting(s, section, key); x != nil {
		return rule.Ev(fmt.Sprintf("%s:%d", x.File, x.Line), fmt.Sprintf("[%s] %s = %s", x.Section, x.Name, x.Value))
	}
	return rule.Ev(s.Source, fmt.Sprintf("[%s] %s = %s (default)", section, key, value))
}

// sambaTarget is the config recommendation target FILE:[section]:key.
func sambaTarget(s *facts.Samba, section, name string) string {
	file := s.ConfigFile
	if x := sambaSetting(s, section, canonicalName(name)); x != nil {
		file = x.File
	}
	return fmt.Sprintf("%s:[%s]:%s", file, section, name)
}

func canonicalName(name string) string { return strings.ToLower(strings.ReplaceAll(name, " ", "")) }

func shareNames(s *facts.Samba) []string {
	out := make([]string, 0, len(s.Shares))
	for n := range s.Shares {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func shareValue(s *facts.Samba, share, key string) string {
	if v, ok := s.Shares[share][key]; ok {
		return v
	}
	return s.Global[key]
}

var metaSendfile = rule.Meta{
	ID: "smb-sendfile-off", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "Samba copies file data through user space",
	Doc: "With `use sendfile = yes` smbd lets the kernel move file data from the page cache to " +
		"the socket without copying it through smbd. On slow CPUs (ARM NAS boxes) that copy is the " +
		"bottleneck of every read. The default is no; sendfile is not used on signed or encrypted " +
		"connections, so enabling it is safe.",
	Refs: []string{smbRef("USESENDFILE"), "https://man7.org/linux/man-pages/man2/sendfile.2.html"},
}

func checkSendfile(in rule.Input) []rule.Finding {
	h := in.Host
	s := h.Samba
	if s == nil || s.Global["usesendfile"] == "yes" || !slowCPU(h) && h.CPU.Count > 2 {
		return nil
	}
	f := metaSendfile.New("use sendfile", fmt.Sprintf(
		"On this %s with %d core(s), smbd copies every byte it reads through user space; sendfile would let the kernel send it straight from the page cache.",
		h.Arch, h.CPU.Count), sambaEv(s, "global", "usesendfile", s.Global["usesendfile"]))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "use sendfile"),
		Current: s.Global["usesendfile"], Value: "yes", Basis: "slow CPU; not used on signed or encrypted connections"}
	return []rule.Finding{f}
}

var metaSMB1Dead = rule.Meta{
	ID: "smb-smb1-dead-option", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "Setting that only affects SMB1",
	Doc: "`read raw`, `write raw` and `max xmit` tune the SMB1 protocol, which Samba disables by " +
		"default since 4.11 (server min protocol = SMB2_02). Copied from old tuning guides they do " +
		"nothing for SMB2/3 clients.",
	Refs: []string{smbRef("READRAW"), smbRef("SERVERMINPROTOCOL")},
}

func smb1Allowed(s *facts.Samba) bool {
	switch s.Global["serverminprotocol"] {
	case "nt1", "lanman1", "lanman2", "core", "coreplus":
		return true
	}
	return false
}

func checkSMB1Dead(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil || smb1Allowed(s) {
		return nil
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"readraw", "read raw"}, {"writeraw", "write raw"}, {"maxxmit", "max xmit"}} {
		x := sambaSetting(s, "global", k.key)
		if x == nil {
			continue
		}
		f := metaSMB1Dead.New(k.name, fmt.Sprintf("%s only applies to SMB1, which this server does not speak (server min protocol = %s).",
			k.name, s.Global["serverminprotocol"]), sambaEv(s, "global", k.key, ""))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("remove '%s' from %s line %d", x.Name, x.File, x.Line),
			Basis: "SMB1 disabled"}
		out = append(out, f)
	}
	return out
}

var metaAIOSize = rule.Meta{
	ID: "smb-aio-size", Family: "samba", Severity: rule.Warn, Since: "0.4.0",
	Title: "aio read/write size other than 0 or 1",
	Doc: "`aio read size` and `aio write size` used to be byte thresholds; current Samba only " +
		"distinguishes 0 (synchronous) and anything else (asynchronous, the default 1). Guides " +
		"that set 16384 date from Samba 3 and mislead the reader.",
	Refs: []string{smbRef("AIOREADSIZE"), smbRef("AIOWRITESIZE")},
}

func checkAIOSize(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"aioreadsize", "aio read size"}, {"aiowritesize", "aio write size"}} {
		v := s.Global[k.key]
		if v == "0" || v == "1" || v == "" {
			continue
		}
		f := metaAIOSize.New(k.name, fmt.Sprintf("%s = %s: Samba only reads it as 'asynchronous: yes'; the number means nothing.", k.name, v),
			sambaEv(s, "global", k.key, v))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", k.name), Current: v, Value: "1",
			Basis: "only 0 and 1 are meaningful"}
		out = append(out, f)
	}
	return out
}

var metaSockOpts = rule.Meta{
	ID: "smb-socket-options-buffers", Family: "samba", Severity: rule.Warn, Since: "0.4.0",
	Title: "socket options set SO_RCVBUF/SO_SNDBUF",
	Doc: "A socket whose program sets SO_RCVBUF or SO_SNDBUF loses TCP autotuning: its buffers " +
		"stay at that size (capped by net.core.rmem_max/wmem_max) whatever the link needs. The " +
		"folklore `socket options = SO_RCVBUF=65536 SO_SNDBUF=65536` caps every SMB connection at " +
		"a few MB/s on long paths and does nothing good on a LAN. testparm itself warns about it.",
	Refs: []string{smbRef("SOCKETOPTIONS"), refTCP7},
}

func checkSockOpts(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	v := s.Global["socketoptions"]
	var keep []string
	found := false
	for _, o := range strings.Fields(v) {
		u := strings.ToUpper(o)
		if strings.HasPrefix(u, "SO_RCVBUF") || strings.HasPrefix(u, "SO_SNDBUF") {
			found = true
			continue
		}
		keep = append(keep, strings.ToUpper(o))
	}
	if !found {
		return nil
	}
	written := v
	if x := sambaSetting(s, "global", "socketoptions"); x != nil {
		written = x.Value
	}
	f := metaSockOpts.New("socket options", "socket options fixes smbd's socket buffers, which turns off TCP autotuning for every SMB connection.",
		sambaEv(s, "global", "socketoptions", v))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "socket options"), Current: written,
		Value: strings.Join(keep, " "), Basis: "SO_RCVBUF/SO_SNDBUF removed, other options kept"}
	return []rule.Finding{f}
}

var metaStrictLocking = rule.Meta{
	ID: "smb-strict-locking", Family: "samba", Severity: rule.Warn, Since: "0.4.0",
	Title: "strict locking = yes",
	Doc: "With strict locking = yes smbd checks byte-range locks on every read and write instead of " +
		"only when a client asks; the default Auto follows the client's expectations. yes costs a " +
		"lock database lookup per I/O and slows every file transfer.",
	Refs: []string{smbRef("STRICTLOCKING")},
}

func checkStrictLocking(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	var out []rule.Finding
	check := func(section, v string) {
		if v != "yes" {
			return
		}
		f := metaStrictLocking.New("["+section+"] strict locking", fmt.Sprintf("[%s] checks locks on every read and write.", section),
			sambaEv(s, section, "strictlocking", v))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, section, "strict locking"), Current: v, Value: "Auto",
			Basis: "Samba default"}
		out = append(out, f)
	}
	check("global", s.Global["strictlocking"])
	for _, sh := range shareNames(s) {
		if v, ok := s.Shares[sh]["strictlocking"]; ok {
			check(sh, v)
		}
	}
	return out
}

var metaWideLinks = rule.Meta{
	ID: "smb-wide-links-insecure", Family: "samba", Severity: rule.Crit, Since: "0.4.0",
	Title: "wide links together with unix extensions",
	Doc: "With `wide links = yes` smbd follows symlinks out of a share. With SMB1 unix extensions " +
		"on, a client can create such symlinks itself and read any file smbd can (the 2010 " +
		"symlink-traversal hole). Samba therefore ignores wide links while unix extensions are on, " +
		"unless `allow insecure wide links = yes` overrides it: then the hole is open.",
	Refs: []string{smbRef("WIDELINKS"), smbRef("ALLOWINSECUREWIDELINKS")},
}

func checkWideLinks(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	var out []rule.Finding
	for _, sh := range shareNames(s) {
		if shareValue(s, sh, "widelinks") != "yes" || s.Global["smb1unixextensions"] != "yes" {
			continue
		}
		ev := []rule.Evidence{sambaEv(s, sh, "widelinks", "yes"), sambaEv(s, "global", "smb1unixextensions", "yes")}
		if s.Global["allowinsecurewidelinks"] == "yes" {
			ev = append(ev, sambaEv(s, "global", "allowinsecurewidelinks", "yes"))
			f := metaWideLinks.New("["+sh+"]", fmt.Sprintf(
				"[%s] follows symlinks out of the share and clients may create symlinks (unix extensions), with the safety override on: any file smbd can read is reachable.", sh), ev...)
			f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, sh, "wide links"), Current: "yes", Value: "no",
				Basis: "wide links with unix extensions and allow insecure wide links"}
			out = append(out, f)
			continue
		}
		f := metaWideLinks.New("["+sh+"]", fmt.Sprintf(
			"[%s] asks for wide links, but Samba ignores it while unix extensions are on: the setting misleads, and someone may 'fix' it with allow insecure wide links.", sh), ev...)
		f.Severity = rule.Info
		f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, sh, "wide links"), Current: "yes", Value: "no",
			Basis: "has no effect while unix extensions are on"}
		out = append(out, f)
	}
	return out
}

var metaFollowSymlinks = rule.Meta{
	ID: "smb-follow-symlinks-off", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "follow symlinks = no",
	Doc: "Some vendor firmwares ship `follow symlinks = no`: symlinks inside a share then show up " +
		"as broken files for Windows and macOS clients. The default yes only follows links that " +
		"stay inside the share (wide links = no).",
	Refs: []string{smbRef("FOLLOWSYMLINKS")},
}

func checkFollowSymlinks(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	var out []rule.Finding
	for _, sh := range shareNames(s) {
		if shareValue(s, sh, "followsymlinks") != "no" {
			continue
		}
		section := sh
		if _, own := s.Shares[sh]["followsymlinks"]; !own {
			section = "global"
		}
		f := metaFollowSymlinks.New("["+sh+"]", fmt.Sprintf("[%s] shows every symlink as a broken file to clients.", sh),
			sambaEv(s, section, "followsymlinks", "no"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, section, "follow symlinks"), Current: "no", Value: "yes",
			Basis: "Samba default; links still stay inside the share"}
		out = append(out, f)
	}
	return out
}

var metaMultichannel = rule.Meta{
	ID: "smb-multichannel-off", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "SMB3 multichannel is off on a multi-NIC server",
	Doc: "SMB3 multichannel lets one client open several connections, over several NICs or RSS " +
		"queues, and is the supported way to exceed one link for a single client (a bond hashes one " +
		"client's flow onto one link). It is on by default since Samba 4.15.",
	Refs: []string{smbRef("SERVERMULTICHANNELSUPPORT")},
}

func checkMultichannel(in rule.Input) []rule.Finding {
	h := in.Host
	s := h.Samba
	if s == nil || s.Global["servermultichannelsupport"] != "no" {
		return nil
	}
	up := 0
	for _, i := range h.Interfaces {
		if wiredUp(i) && i.Master == "" {
			up++
		}
	}
	bonded := false
	for _, i := range h.Interfaces {
		bonded = bonded || i.Bond != nil
	}
	if up < 2 && !bonded {
		return nil
	}
	f := metaMultichannel.New("server multi channel support", fmt.Sprintf(
		"%d wired links are up (bond: %v), yet one client gets one TCP connection and so at most one link.", up, bonded),
		sambaEv(s, "global", "servermultichannelsupport", "no"))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "server multi channel support"),
		Current: "no", Value: "yes", Basis: "several links; default since Samba 4.15"}
	return []rule.Finding{f}
}

var metaSMB1Enabled = rule.Meta{
	ID: "smb-smb1-enabled", Family: "samba", Severity: rule.Warn, Since: "0.4.0",
	Title: "SMB1 is allowed",
	Doc: "server min protocol below SMB2_02 lets clients speak SMB1 (NT1), the protocol behind " +
		"WannaCry and disabled by default since Samba 4.11. It also keeps old, slow code paths in " +
		"use. Only very old clients (Windows XP, old printers) need it.",
	Refs: []string{smbRef("SERVERMINPROTOCOL"), "https://www.samba.org/samba/history/samba-4.11.0.html"},
}

func checkSMB1Enabled(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil || !smb1Allowed(s) {
		return nil
	}
	v := s.Global["serverminprotocol"]
	f := metaSMB1Enabled.New("server min protocol", fmt.Sprintf("server min protocol = %s accepts SMB1 clients.", strings.ToUpper(v)),
		sambaEv(s, "global", "serverminprotocol", v))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "server min protocol"),
		Current: strings.ToUpper(v), Value: "SMB2_02", Basis: "Samba default since 4.11"}
	return []rule.Finding{f}
}

var metaSigningNoAES = rule.Meta{
	ID: "smb-crypto-without-aes", Family: "samba", Severity: rule.Warn, Since: "0.4.0",
	Title: "Mandatory signing or encryption on a CPU without AES instructions",
	Doc: "SMB3 signing (AES-CMAC/GMAC) and encryption (AES-CCM/GCM) run on every packet. On CPUs " +
		"without AES instructions (ARMv5-v7 NAS boxes, old Atoms) mandatory signing or encryption " +
		"caps transfers at a fraction of the link and disables sendfile. Require them where the " +
		"network is untrusted, and know the cost.",
	Refs: []string{smbRef("SERVERSIGNING"), smbRef("SERVERSMBENCRYPT")},
}

func checkSigningNoAES(in rule.Input) []rule.Finding {
	h := in.Host
	s := h.Samba
	if s == nil || h.CPU.HasFlag("aes") {
		return nil
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"serversigning", "server signing"}, {"serversmbencrypt", "server smb encrypt"}} {
		v := s.Global[k.key]
		if v != "required" { // mandatory, force… are aliases (smbconf.NormalizeValue)
			continue
		}
		f := metaSigningNoAES.New(k.name, fmt.Sprintf("%s = %s on a %s CPU without AES instructions: every packet is signed or encrypted in software.", k.name, v, h.Arch),
			sambaEv(s, "global", k.key, v), rule.Ev("/proc/cpuinfo", "no aes flag"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("measure with and without; if the LAN is trusted use %s = default", k.name), Basis: "no AES instructions"}
		out = append(out, f)
	}
	return out
}

var metaLogLevel = rule.Meta{
	ID: "smb-log-level-high", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "Samba logs at a debugging level",
	Doc: "log level 3 and above writes several lines per file operation; on a NAS with a slow " +
		"system disk or flash that is measurable I/O and wear. Keep 0 or 1 outside debugging.",
	Refs: []string{smbRef("LOGLEVEL")},
}

func checkLogLevel(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil {
		return nil
	}
	v := s.Global["loglevel"]
	n, err := strconv.Atoi(strings.Fields(v + " 0")[0])
	if err != nil || n < 3 {
		return nil
	}
	f := metaLogLevel.New("log level", fmt.Sprintf("log level %d writes debug lines for every file operation.", n),
		sambaEv(s, "global", "loglevel", v))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "log level"), Current: v, Value: "1",
		Basis: "errors and warnings only"}
	return []rule.Finding{f}
}

var metaSmbInvalid = rule.Meta{
	ID: "smb-config-invalid", Family: "samba", Severity: rule.Crit, Since: "0.4.0",
	Title: "smbd cannot load smb.conf",
	Doc: "Samba skips lines without '=' but refuses the whole file for an unclosed or empty " +
		"section header or a parameter without a name (testparm: \"Error loading services\"). " +
		"smbd then keeps its old configuration until restarted, and does not start after a reboot.",
	Refs: []string{refSmbConf, "https://www.samba.org/samba/docs/current/man-html/testparm.1.html"},
}

func checkSmbInvalid(in rule.Input) []rule.Finding {
	s := in.Host.Samba
	if s == nil || s.LoadError == nil {
		return nil
	}
	e := s.LoadError
	f := metaSmbInvalid.New(e.File, fmt.Sprintf("%s line %d: %s. smbd refuses the file.", e.File, e.Line, e.Msg),
		rule.Ev(fmt.Sprintf("%s:%d", e.File, e.Line), e.Msg))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("fix line %d of %s, then check with testparm -s", e.Line, e.File),
		Basis: "Samba's parser refuses the file"}
	return []rule.Finding{f}
}
