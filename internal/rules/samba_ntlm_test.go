package rules_test

import (
	"testing"
)

// ntlm auth values as lib/param/param_table.c enum_ntlm_auth spells them:
// NTLM_AUTH_ON (yes, true, 1, ntlmv1-permitted) accepts NTLMv1; the others
// do not. Unraid's stock [global] (testdata/real/attack-smb-unraid-global)
// writes "ntlm auth = Yes".
func TestNTLMv1(t *testing.T) {
	unraid := realTreeFiles(t, "attack-smb-unraid-global")["etc/samba/smb.conf"]
	tests := []struct {
		name, conf string
		want       bool
		contains   []string
	}{
		{"unraid stock", unraid, true, []string{"ntlm auth = yes", "/etc/samba/smb.conf:28: ntlm auth = Yes", "ntlmv2-only"}},
		{"ntlmv1-permitted", "[global]\n ntlm auth = ntlmv1-permitted\n", true, []string{"ntlmv1-permitted"}},
		{"true", "[global]\nntlmauth = true\n", true, nil},
		{"ntlmv2-only", "[global]\n ntlm auth = ntlmv2-only\n", false, nil},
		{"no", "[global]\n ntlm auth = no\n", false, nil},
		{"mschapv2", "[global]\n ntlm auth = mschapv2-and-ntlmv2-only\n", false, nil},
		{"disabled", "[global]\n ntlm auth = disabled\n", false, nil},
		{"unset (version default)", "[global]\n workgroup = X\n", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := runTree(t, map[string]string{"etc/samba/smb.conf": tt.conf})
			got := byID(fs, "smb-ntlmv1")
			if (len(got) == 1) != tt.want {
				t.Fatalf("smb-ntlmv1: %v, want %v", got, tt.want)
			}
			if tt.want {
				f := got[0]
				if f.Severity.String() != "warn" || !hasAll(text(f), tt.contains...) || f.Recommendation == nil || f.Recommendation.Value != "ntlmv2-only" {
					t.Errorf("%s: %s", f.Severity, text(f))
				}
			}
		})
	}
}
