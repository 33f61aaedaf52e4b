package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// Samba: KNOWLEDGE §9. Values are the effective ones (testparm when it is
// installed); evidence names the file and line that set them.
var sambaRules = []rule.Rule{
	{Meta: metaSmbInvalid, Check: checkSmbInvalid},
	{Meta: metaSmbInlineComment, Check: func(in rule.Input) []rule.Finding { return checkSmbValues(in, true) }},
	{Meta: metaSmbInvalidValue, Check: func(in rule.Input) []rule.Finding { return checkSmbValues(in, false) }},
	{Meta: metaSmbProtocolNone, Check: checkSmbProtocolNone},
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
		if x.Text != "" { // the line as written: evidence quotes what the file says
			return rule.Ev(fmt.Sprintf("%s:%d", x.File, x.Line), x.Text)
		}
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
	s := sambaServer(in)
	// A CPU judgement needs a basis: an unknown CPU (no cpuinfo, no
	// arch) is not called slow.
	if s == nil || s.Global["usesendfile"] == "yes" || h.CPU.Count == 0 || !slowCPU(h) && h.CPU.Count > 2 {
		return nil
	}
	cpu := h.Arch
	if h.CPU.Model != "" {
		cpu = h.CPU.Model + " (" + h.Arch + ")"
	}
	f := metaSendfile.New("use sendfile", fmt.Sprintf(
		"On this %s with %s, smbd copies every byte it reads through user space; sendfile would let the kernel send it straight from the page cache.",
		cpu, units.Count(h.CPU.Count, "core", "cores")), sambaEv(s, "global", "usesendfile", s.Global["usesendfile"]))
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
	s := sambaServer(in)
	if s == nil || smb1Allowed(s) {
		return nil
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"readraw", "read raw"}, {"writeraw", "write raw"}, {"maxxmit", "max xmit"}} {
		x := sambaSetting(s, "global", k.key)
		if x == nil {
			continue
		}
		f := metaSMB1Dead.New(k.name, fmt.Sprintf("%s only applies to SMB1, which this server does not speak (%s).",
			k.name, minProtocolText(s)), smb1DeadEvidence(s, k.key)...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("remove '%s' from %s line %d", x.Name, x.File, x.Line),
			Basis: "SMB1 disabled"}
		out = append(out, f)
	}
	return out
}

// minProtocolText says where the server min protocol comes from: the line
// that sets it, or the installed Samba's default (never as if the owner
// had set it).
func minProtocolText(s *facts.Samba) string {
	v := s.Global["serverminprotocol"]
	if x := sambaSetting(s, "global", "serverminprotocol"); x != nil {
		return fmt.Sprintf("%s:%d sets server min protocol = %s", x.File, x.Line, x.Value)
	}
	who := "this Samba's default"
	if s.Version != "" {
		who = "the default of Samba " + s.Version
	}
	if v == "" {
		return "server min protocol is not set; SMB2_02 is the default since Samba 4.11"
	}
	return fmt.Sprintf("server min protocol is not set in smb.conf: %s is %s", v, who)
}

// smb1DeadEvidence is the dead option's line and, when smb.conf sets it,
// the server min protocol line.
func smb1DeadEvidence(s *facts.Samba, key string) []rule.Evidence {
	ev := []rule.Evidence{sambaEv(s, "global", key, "")}
	if sambaSetting(s, "global", "serverminprotocol") != nil {
		ev = append(ev, sambaEv(s, "global", "serverminprotocol", ""))
	}
	return ev
}

var metaAIOSize = rule.Meta{
	ID: "smb-aio-size", Family: "samba", Severity: rule.Info, Since: "0.4.0",
	Title: "aio read/write size other than 0 or 1",
	Doc: "`aio read size` and `aio write size` are byte thresholds: smbd serves a read or write " +
		"request asynchronously (in its thread pool) only when it is larger than the value, and " +
		"synchronously, blocking that client's smbd process, otherwise. smb.conf(5) calls 0 (never " +
		"asynchronous) and 1 (always, the default since Samba 4.8) the only reasonable values. A " +
		"threshold such as 16384, from Samba 3 guides, makes small requests synchronous; SMB2/3 " +
		"file copies use requests of 64 KiB and more, so the effect on bulk transfers is small. " +
		"An older Samba's own default is not a finding to act on.",
	Refs: []string{smbRef("AIOREADSIZE"), smbRef("AIOWRITESIZE"), "https://www.samba.org/samba/history/samba-4.8.0.html"},
}

func checkAIOSize(in rule.Input) []rule.Finding {
	s := sambaServer(in)
	if s == nil {
		return nil
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"aioreadsize", "aio read size"}, {"aiowritesize", "aio write size"}} {
		v := s.Global[k.key]
		if v == "0" || v == "1" || v == "" {
			continue
		}
		set := sambaSetting(s, "global", k.key)
		if set == nil {
			// This Samba's own default (testparm): explain, change nothing.
			f := metaAIOSize.New(k.name, fmt.Sprintf(
				"This Samba version's default %s is %s: requests up to %s bytes are served synchronously, larger ones asynchronously. Nothing in smb.conf sets it.",
				k.name, v, v), sambaEv(s, "global", k.key, v))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: "nothing to change; newer Samba versions (4.8+) default to 1", Basis: "installed Samba's default"}
			out = append(out, f)
			continue
		}
		f := metaAIOSize.New(k.name, fmt.Sprintf(
			"%s = %s makes smbd serve requests of up to %s bytes synchronously (only larger ones asynchronously); smb.conf(5) calls only 0 and 1 reasonable.",
			k.name, v, v), sambaEv(s, "global", k.key, v))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", k.name), Current: v, Value: "1",
			Basis: "Samba's default since 4.8: every request asynchronous"}
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
	s := sambaServer(in)
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
	s := sambaServer(in)
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
	Title: "wide links set: symlinks may lead out of the share",
	Doc: "With `wide links = yes` smbd follows symlinks that point out of a share, so anyone " +
		"who can place a symlink in it reaches every file smbd can read. With SMB1 unix extensions " +
		"on, clients can create such symlinks themselves (the 2010 symlink-traversal hole), so " +
		"Samba ignores wide links while `unix extensions` is on, unless `allow insecure wide links " +
		"= yes` overrides that. wide links is therefore active when unix extensions = no (then " +
		"only symlinks made on the server, by local users, NFS clients or containers, lead out) or " +
		"when the override is set (then SMB1 clients can open the hole themselves).",
	Refs: []string{smbRef("WIDELINKS"), smbRef("ALLOWINSECUREWIDELINKS"), smbRef("SMB1UNIXEXTENSIONS")},
}

func checkWideLinks(in rule.Input) []rule.Finding {
	s := sambaServer(in)
	if s == nil {
		return nil
	}
	unixExt := s.Global["smb1unixextensions"] != "no"
	override := s.Global["allowinsecurewidelinks"] == "yes"
	var out []rule.Finding
	// A [global] wide links is only the default of the shares: it matters
	// where a file share inherits it, and is fixed once, in [global].
	var inherit []string
	for _, sh := range shareNames(s) {
		if shareValue(s, sh, "widelinks") != "yes" || shareValue(s, sh, "printable") == "yes" {
			continue // print queues are spools clients write to, not read from
		}
		if sambaSetting(s, sh, "widelinks") == nil && sambaSetting(s, "global", "widelinks") != nil {
			inherit = append(inherit, sh)
			continue
		}
		out = append(out, wideLinksFinding(s, sh, "["+sh+"]", unixExt, override))
	}
	if len(inherit) > 0 {
		names := "[" + strings.Join(inherit, "], [") + "]"
		f := wideLinksFinding(s, "global", names, unixExt, override)
		f.Subject = "[global]"
		f.Why = strings.Replace(f.Why, names+" follows", names+" "+plural(len(inherit), "inherits", "inherit")+" wide links from [global] and "+plural(len(inherit), "follows", "follow"), 1)
		out = append(out, f)
	}
	return out
}

// wideLinksFinding judges wide links = yes set in section for the shares
// named by who.
func wideLinksFinding(s *facts.Samba, section, who string, unixExt, override bool) rule.Finding {
	ev := []rule.Evidence{sambaEv(s, section, "widelinks", "yes"), sambaEv(s, "global", "smb1unixextensions", map[bool]string{true: "yes", false: "no"}[unixExt])}
	rec := &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, section, "wide links"), Current: "yes", Value: "no"}
	var f rule.Finding
	switch {
	case unixExt && override:
		ev = append(ev, sambaEv(s, "global", "allowinsecurewidelinks", "yes"))
		f = metaWideLinks.New(who, fmt.Sprintf(
			"%s follows symlinks out of the share and SMB1 clients may create symlinks (unix extensions), with the safety override on: any file smbd can read is reachable.", who), ev...)
		rec.Basis = "wide links with unix extensions and allow insecure wide links"
	case !unixExt:
		f = metaWideLinks.New(who, fmt.Sprintf(
			"%s follows symlinks out of the share (wide links is active because unix extensions = no): a symlink placed in the share by a local user, an NFS client or a container exposes files outside it.", who), ev...)
		f.Severity = rule.Warn
		rec.Basis = "wide links active with unix extensions off"
	default:
		f = metaWideLinks.New(who, fmt.Sprintf(
			"%s asks for wide links, but Samba ignores it while unix extensions are on: the setting misleads, and someone may 'fix' it with allow insecure wide links.", who), ev...)
		f.Severity = rule.Info
		rec.Basis = "has no effect while unix extensions are on"
	}
	f.Recommendation = rec
	return f
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
	s := sambaServer(in)
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
	s := sambaServer(in)
	if s == nil || s.Global["servermultichannelsupport"] != "no" {
		return nil
	}
	if smbconf.VersionBefore(s.Version, 4, 15) {
		return nil // experimental before 4.15 (release notes): not advice to give
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
	s := sambaServer(in)
	if s == nil || !smb1Allowed(s) {
		return nil
	}
	v := s.Global["serverminprotocol"]
	maxV := s.Global["servermaxprotocol"]
	if r := smbconf.ProtocolRank(maxV); r >= 0 && r < smbconf.ProtocolRank(v) {
		return nil // min above max: smb-protocol-none reports it
	}
	f := metaSMB1Enabled.New("server min protocol", fmt.Sprintf("server min protocol = %s accepts SMB1 clients.", strings.ToUpper(v)),
		sambaEv(s, "global", "serverminprotocol", v))
	if r := smbconf.ProtocolRank(maxV); r >= 0 && r < smbconf.ProtocolRank("smb2_02") {
		// Raising the minimum alone would leave no protocol at all.
		f.Why = fmt.Sprintf("server min protocol = %s and server max protocol = %s: this server speaks only SMB1.", strings.ToUpper(v), strings.ToUpper(maxV))
		f.Evidence = append(f.Evidence, sambaEv(s, "global", "servermaxprotocol", maxV))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("first raise server max protocol (remove the line for the default SMB3) and check that every client speaks SMB2; then set server min protocol = SMB2_02 in %s", s.ConfigFile),
			Basis:  "server max protocol " + strings.ToUpper(maxV) + " is below SMB2_02"}
		return []rule.Finding{f}
	}
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "server min protocol"),
		Current: strings.ToUpper(v), Value: "SMB2_02", Basis: "Samba default since 4.11; server max protocol " + strings.ToUpper(maxV) + " stays above it"}
	return []rule.Finding{f}
}

var metaSmbProtocolNone = rule.Meta{
	ID: "smb-protocol-none", Family: "samba", Severity: rule.Crit, Since: "0.6.0",
	Title: "server min protocol above server max protocol",
	Doc: "smbd negotiates a dialect between server min protocol and server max protocol. When the " +
		"minimum is above the maximum no dialect is left: every client's negotiation fails and " +
		"no share can be reached.",
	Refs: []string{smbRef("SERVERMINPROTOCOL"), smbRef("SERVERMAXPROTOCOL")},
}

func checkSmbProtocolNone(in rule.Input) []rule.Finding {
	s := sambaServer(in)
	if s == nil {
		return nil
	}
	minV, maxV := s.Global["serverminprotocol"], s.Global["servermaxprotocol"]
	lo, hi := smbconf.ProtocolRank(minV), smbconf.ProtocolRank(maxV)
	if lo < 0 || hi < 0 || lo <= hi {
		return nil
	}
	f := metaSmbProtocolNone.New("server max protocol", fmt.Sprintf(
		"server min protocol = %s is above server max protocol = %s: no SMB dialect is left, so no client can connect.",
		strings.ToUpper(minV), strings.ToUpper(maxV)),
		sambaEv(s, "global", "serverminprotocol", minV), sambaEv(s, "global", "servermaxprotocol", maxV))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("remove server max protocol from %s (default SMB3), or lower server min protocol to at most %s", s.ConfigFile, strings.ToUpper(maxV)),
		Basis:  "min protocol rank above max"}
	return []rule.Finding{f}
}

var metaSmbInlineComment = rule.Meta{
	ID: "smb-inline-comment", Family: "samba", Severity: rule.Crit, Since: "0.6.0",
	Title: "smb.conf value with an inline comment, which Samba reads as part of the value",
	Doc: "smb.conf has comment lines (starting with # or ;) but no inline comments: in " +
		"`server signing = mandatory  # strict` the value is the whole text after '='. For a " +
		"yes/no, an enumerated or a size parameter that text is not a legal value, and Samba's " +
		"loader fails: testparm prints \"value is not boolean!\" or \"Ignoring invalid value\" and " +
		"then \"Error loading services.\", smbd exits at start (source3/smbd/server.c: " +
		"`if (!reload_services(NULL, NULL, false)) exit(1);`), and a running smbd that reloads the " +
		"file keeps its old settings until its next restart (crit). For a text parameter (path, " +
		"workgroup, force user, hosts allow…) the comment becomes part of the value: the share's " +
		"path is `/srv/data # main`, the user `nobody # guest` (warn). Numbers (`max connections = " +
		"10 # x`) keep their leading digits and are not reported. Put comments on their own line.",
	Refs: []string{refSmbConf + "#FILEFORMAT", "https://www.samba.org/samba/docs/current/man-html/testparm.1.html",
		"https://gitlab.com/samba-team/samba/-/blob/master/source3/smbd/server.c"},
}

var metaSmbInvalidValue = rule.Meta{
	ID: "smb-invalid-value", Family: "samba", Severity: rule.Crit, Since: "0.6.0",
	Title: "smb.conf value that Samba does not accept: smbd does not start",
	Doc: "An illegal value for a yes/no, enumerated or size parameter (a typo, a value from " +
		"another Samba version) makes Samba's loader fail: testparm prints the value with \"value " +
		"is not boolean!\" or \"Ignoring invalid value\" and then \"Error loading services.\"; " +
		"smbd exits at start (source3/smbd/server.c: `if (!reload_services(NULL, NULL, false)) " +
		"exit(1);`), so the next restart or reboot leaves the shares offline, and a running smbd " +
		"that reloads the file keeps its old settings. Nothing the file says is in force until the " +
		"line is fixed; nastune plans no automatic edit of such a file.",
	Refs: []string{refSmbConf, "https://www.samba.org/samba/docs/current/man-html/testparm.1.html",
		"https://gitlab.com/samba-team/samba/-/blob/master/source3/smbd/server.c"},
}

// smbLoadFails says what an illegal value does to smbd.
const smbLoadFails = "testparm answers \"Error loading services.\" and smbd refuses to start with this file " +
	"(the next restart or reboot leaves the shares offline); a running smbd that reloads it keeps its old settings"

// inlineComment returns the text before an inline comment in a text
// value: a '#' after whitespace, with text before it (';' separates shell
// commands in command parameters, so it is not taken as a comment here).
func inlineComment(v string) (before string, ok bool) {
	for i := 1; i < len(v); i++ {
		if v[i] == '#' && (v[i-1] == ' ' || v[i-1] == '\t') {
			b := strings.TrimSpace(v[:i])
			return b, b != ""
		}
	}
	return v, false
}

// checkSmbValues reports lines whose value Samba refuses (a yes/no, enum
// or size parameter: the file does not load) and text parameters whose
// value swallowed an inline comment: smb-inline-comment (inline true) when
// the text before a '#' or ';' would have been the meant value,
// smb-invalid-value otherwise.
func checkSmbValues(in rule.Input, inline bool) []rule.Finding {
	s := sambaServer(in)
	if s == nil {
		return nil
	}
	var out []rule.Finding
	for _, x := range s.Settings {
		quote := x.Text
		if quote == "" {
			quote = fmt.Sprintf("%s = %s", x.Name, x.Value)
		}
		ev := rule.Ev(fmt.Sprintf("%s:%d", x.File, x.Line), quote)
		subject := fmt.Sprintf("%s:%d", x.File, x.Line)
		if !smbconf.Known(x.Key) {
			// Text parameters keep the comment in the value.
			meant, ok := inlineComment(x.Value)
			if !inline || !ok || !smbconf.TypeOf(x.Key).Text() {
				continue
			}
			f := metaSmbInlineComment.New(subject, fmt.Sprintf(
				"[%s] %s = %s: Samba has no inline comments, so the comment is part of the value: Samba uses %s = %q, not %q.",
				x.Section, x.Name, x.Value, x.Name, x.Value, meant), ev)
			f.Severity = rule.Warn
			if x.Key == "comment" || x.Key == "serverstring" {
				f.Severity = rule.Info // only shown to clients
			}
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("move the comment of line %d of %s to its own line, so that it reads `%s = %s`; check with testparm -s", x.Line, x.File, x.Name, meant),
				Basis:  "smb.conf(5): no inline comments; text values keep the comment (testparm -s prints it)"}
			out = append(out, f)
			continue
		}
		if smbconf.Valid(x.Key, x.Value) {
			continue
		}
		meant, ok := smbconf.CommentTail(x.Value)
		isComment := ok && smbconf.Valid(x.Key, meant)
		if isComment != inline {
			continue
		}
		if isComment {
			f := metaSmbInlineComment.New(subject, fmt.Sprintf(
				"[%s] %s = %s: Samba has no inline comments, so the value is the whole text, which is not a legal value: %s. The line reads as %s = %s, but nothing in this file is in force until the line is fixed.",
				x.Section, x.Name, x.Value, smbLoadFails, x.Name, meant), ev)
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("move the comment of line %d of %s to its own line, so that it reads `%s = %s`; check with testparm -s before restarting smbd", x.Line, x.File, x.Name, meant),
				Basis:  "smb.conf(5): no inline comments; an illegal value fails the load"}
			out = append(out, f)
			continue
		}
		f := metaSmbInvalidValue.New(subject, fmt.Sprintf(
			"[%s] %s = %s is not a value Samba accepts for %s: %s.", x.Section, x.Name, x.Value, x.Name, smbLoadFails), ev)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("fix or remove line %d of %s, then check with testparm -s before restarting smbd", x.Line, x.File),
			Basis:  "illegal value for a yes/no, enumerated or size parameter fails the load"}
		out = append(out, f)
	}
	return out
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
	s := sambaServer(in)
	// Without /proc/cpuinfo (CPU.Count 0) nothing says the CPU lacks AES.
	if s == nil || h.CPU.Count == 0 || h.CPU.HasFlag("aes") {
		return nil
	}
	cpu := "a CPU"
	if h.Arch != "" {
		cpu = "an " + h.Arch + " CPU"
		if !strings.ContainsAny(h.Arch[:1], "aeiouAEIOU") {
			cpu = "a " + h.Arch + " CPU"
		}
	}
	var out []rule.Finding
	for _, k := range []struct{ key, name string }{{"serversigning", "server signing"}, {"serversmbencrypt", "server smb encrypt"}} {
		v := s.Global[k.key]
		if v != "required" { // mandatory, force… are aliases (smbconf.NormalizeValue)
			continue
		}
		f := metaSigningNoAES.New(k.name, fmt.Sprintf("%s = %s on %s without AES instructions: every packet is signed or encrypted in software.", k.name, v, cpu),
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
	s := sambaServer(in)
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
	s := sambaServer(in)
	if s == nil || s.LoadError == nil || s.LoadError.InvalidValue {
		return nil // an illegal value: smb-invalid-value / smb-inline-comment say it
	}
	e := s.LoadError
	f := metaSmbInvalid.New(e.File, fmt.Sprintf("%s line %d: %s. smbd refuses the file.", e.File, e.Line, e.Msg),
		rule.Ev(fmt.Sprintf("%s:%d", e.File, e.Line), e.Msg))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("fix line %d of %s, then check with testparm -s", e.Line, e.File),
		Basis: "Samba's parser refuses the file"}
	return []rule.Finding{f}
}

// sambaServer returns the Samba facts when smbd may serve them: nil when
// the host shows smbd is not installed (smb.conf and testparm come with
// samba-common and samba-common-bin, which client tools install without
// the server).
func sambaServer(in rule.Input) *facts.Samba {
	if s := in.Host.Samba; s != nil && s.ServerMissing == "" {
		return s
	}
	return nil
}
