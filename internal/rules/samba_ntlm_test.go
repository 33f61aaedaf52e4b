package rules_test

import (
	"testing"
)

// ntlm auth values as lib/param/param_table.c enum_ntlm_auth spells them:
// NTLM_AUTH_ON (yes, true, 1, ntlmv1-permitted) accepts NTLMv1; the others
// do not. Unraid's stock [global] (testdata/unsourced/attack-smb-unraid-global)
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

// Shares defined in an included file (Unraid keeps them in
// /etc/samba/smb-shares.conf) are seen by the share rules, and evidence
// cites the included file and line.
func TestSambaIncludedShares(t *testing.T) {
	files := realTreeFiles(t, "attack-smb-unraid-global")
	files["etc/samba/smb-shares.conf"] = "[media]\n\tpath = /mnt/user/media\n\tcomment = \n\tbrowseable = yes\n\twriteable = yes\n\tfollow symlinks = no\n"
	h, fs := runTree(t, files)
	if _, ok := h.Samba.Shares["media"]; !ok {
		t.Fatalf("share from the include not seen: %v", h.Samba.Shares)
	}
	found := false
	for _, f := range fs {
		for _, e := range f.Evidence {
			if len(e.Source) > 26 && e.Source[:26] == "/etc/samba/smb-shares.conf" {
				found = true
				if e.Source != "/etc/samba/smb-shares.conf:6" {
					t.Errorf("%s cites %s: %s", f.ID, e.Source, e.Value)
				}
			}
		}
	}
	if !found {
		t.Errorf("no finding cites the included file: %v", ids(fs, "samba"))
	}
	for _, n := range h.NotCollected {
		if n.Source == "/etc/samba/smb-shares.conf" {
			t.Errorf("read include reported as not collected: %+v", n)
		}
	}
}
