package rules

import (
	"fmt"

	"github.com/nastune/nastune/internal/rule"
)

// Samba authentication settings (KNOWLEDGE §9).
var sambaAuthRules = []rule.Rule{
	{Meta: metaNTLMv1, Check: checkNTLMv1},
}

var metaNTLMv1 = rule.Meta{
	ID: "smb-ntlmv1", Family: "samba", Severity: rule.Warn, Since: "0.9.0",
	Title: "Samba accepts NTLMv1 logins",
	Doc: "`ntlm auth` decides which NTLM responses smbd accepts for local (passdb) users. `yes` " +
		"(synonyms true, 1, ntlmv1-permitted) accepts NTLMv1, whose responses can be cracked " +
		"offline to the password's NT hash, which is itself enough to log in (pass-the-hash). " +
		"Since Samba 4.5 the default is `ntlmv2-only` (also spelled no, false, 0); " +
		"`mschapv2-and-ntlmv2-only` additionally allows NTLMv1 only inside MS-CHAPv2 (ntlm_auth for " +
		"RADIUS/802.1x); `disabled` refuses NTLM altogether. Every Windows version since 2000 and " +
		"every current macOS, Linux and Android client speaks NTLMv2. Values from lib/param/" +
		"param_table.c enum_ntlm_auth.",
	Refs: []string{smbRef("NTLMAUTH"), "https://www.samba.org/samba/history/samba-4.5.0.html"},
}

// ntlmv1Values are the enum_ntlm_auth names of NTLM_AUTH_ON.
var ntlmv1Values = map[string]bool{"yes": true, "true": true, "1": true, "ntlmv1-permitted": true}

func checkNTLMv1(in rule.Input) []rule.Finding {
	s := sambaServer(in)
	if s == nil {
		return nil
	}
	v, ok := s.Global["ntlmauth"]
	if !ok || !ntlmv1Values[v] {
		return nil
	}
	f := metaNTLMv1.New("ntlm auth", fmt.Sprintf(
		"ntlm auth = %s: smbd accepts NTLMv1 responses, which can be cracked to the password hash; the Samba default since 4.5 is ntlmv2-only.", v),
		sambaEv(s, "global", "ntlmauth", v))
	f.Recommendation = &rule.Recommendation{Kind: rule.KindConfig, Target: sambaTarget(s, "global", "ntlm auth"),
		Current: v, Value: "ntlmv2-only",
		Basis: "Samba default since 4.5; NTLMv2 is spoken by every supported client"}
	return []rule.Finding{f}
}
