package rules_test

import (
	"strings"
	"testing"
)

// wide links in [global] (with unix extensions = no, a forum post's
// smb.conf) is the default of the shares: one finding at the [global]
// line naming the shares that inherit it, none while no file share does.
func TestWideLinksGlobalOnlyWhereInherited(t *testing.T) {
	const conf = "etc/samba/smb.conf"
	globalOnly := func(f map[string]string) {
		f[conf] = f[conf][:strings.Index(f[conf], "[root]")]
	}
	for _, tc := range []struct {
		name string
		edit func(map[string]string)
		want []string // subject: why fragment
	}{
		{"two shares inherit", func(map[string]string) {}, []string{"[global]: [homes], [root] inherit wide links from [global]"}},
		{"no share yet", globalOnly, nil},
		{"only a print queue", func(f map[string]string) {
			globalOnly(f)
			f[conf] += "[printers]\n   path = /var/spool/samba\n   printable = yes\n"
		}, nil},
		{"one share overrides", func(f map[string]string) {
			f[conf] = strings.Replace(f[conf], "   force user = root\n", "   force user = root\n   wide links = no\n", 1)
		}, []string{"[global]: [homes] inherits wide links from [global]"}},
		{"share sets it itself", func(f map[string]string) {
			globalOnly(f)
			f[conf] = strings.Replace(f[conf], "wide links = yes\n", "", 1) + "[media]\n   path = /srv/media\n   wide links = yes\n"
		}, []string{"[media]: [media] follows symlinks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := realTreeFiles(t, "smb-web-wide-links-unix-ext-off")
			tc.edit(files)
			_, fs := runTree(t, files)
			var got []string
			for _, f := range byID(fs, "smb-wide-links-insecure") {
				got = append(got, f.Subject+": "+f.Why)
				for _, e := range f.Evidence {
					if strings.Contains(e.Value, "(default)") {
						t.Errorf("evidence calls a written line a default: %v", e)
					}
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("got %q, want %q…", got[i], tc.want[i])
				}
			}
		})
	}
}
