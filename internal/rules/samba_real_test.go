package rules_test

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/parse/smbconf"
)

// debianStock is the [global] and share part of Debian 12's stock
// /etc/samba/smb.conf (package samba 2:4.17, comments dropped).
const debianStock = `[global]
   workgroup = WORKGROUP
   log file = /var/log/samba/log.%m
   max log size = 1000
   logging = file
   panic action = /usr/share/samba/panic-action %d
   server role = standalone server
   obey pam restrictions = yes
   unix password sync = yes
   passwd program = /usr/bin/passwd %u
   passwd chat = *Enter\snew\s*\spassword:* %n\n *Retype\snew\s*\spassword:* %n\n *password\supdated\ssuccessfully* .
   pam password change = yes
   map to guest = bad user
   usershare allow guests = yes
`

const debianShares = `[homes]
   comment = Home Directories
   browseable = no
   read only = yes
   create mask = 0700
   directory mask = 0700
   valid users = %S
[printers]
   comment = All Printers
   browseable = no
   path = /var/tmp
   printable = yes
   guest ok = no
   read only = yes
   create mask = 0700
[print$]
   comment = Printer Drivers
   path = /var/lib/samba/printers
   browseable = yes
   read only = yes
   guest ok = no
`

const mediaShare = `[media]
   path = /srv/media
   read only = no
`

func TestSambaRealConfigs(t *testing.T) {
	tests := []struct {
		name   string
		global string // added to Debian's [global]
		shares string // added after Debian's shares
		want   map[string]string
	}{
		{"stock Debian: nothing wrong", "", "", map[string]string{
			"smb-inline-comment": "", "smb-invalid-value": "", "smb-wide-links-insecure": "", "smb-protocol-none": "", "smb-smb1-enabled": ""}},
		{"inline comment on signing", "   server signing = mandatory  # all clients must sign\n", "", map[string]string{
			"smb-inline-comment": "crit|The line reads as server signing = mandatory, but nothing in this file is in force",
			"smb-invalid-value":  ""}},
		{"inline comment on a share boolean", "", "[scans]\n   path = /srv/scans\n   read only = no ; scanners write here\n", map[string]string{
			"smb-inline-comment": "crit|smbd refuses to start with this file"}},
		{"typo in an enum", "   server min protocol = SMB4\n", "", map[string]string{
			"smb-invalid-value": "crit|SMB4 is not a value Samba accepts", "smb-inline-comment": "", "smb-smb1-enabled": ""}},
		{"wide links active with unix extensions off", "   unix extensions = no\n", mediaShare + "   wide links = yes\n", map[string]string{
			"smb-wide-links-insecure": "warn|wide links is active because unix extensions = no"}},
		{"wide links with the insecure override", "   allow insecure wide links = yes\n", mediaShare + "   wide links = yes\n", map[string]string{
			"smb-wide-links-insecure": "crit|safety override on"}},
		{"wide links ignored under unix extensions", "", mediaShare + "   wide links = yes\n", map[string]string{
			"smb-wide-links-insecure": "info|Samba ignores it"}},
		{"SMB1 only: raise max first", "   server min protocol = NT1\n   server max protocol = NT1\n", "", map[string]string{
			"smb-smb1-enabled": "warn|first raise server max protocol", "smb-protocol-none": ""}},
		{"SMB1 allowed below SMB3", "   server min protocol = NT1\n", "", map[string]string{
			"smb-smb1-enabled": "warn|SMB2_02"}},
		{"min above max: no protocol", "   server min protocol = SMB2_02\n   server max protocol = NT1\n", "", map[string]string{
			"smb-protocol-none": "crit|no SMB dialect is left", "smb-smb1-enabled": ""}},
		{"aio threshold explained, info", "   aio read size = 16384\n", "", map[string]string{
			"smb-aio-size": "info|requests of up to 16384 bytes synchronously"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, fs := runTree(t, map[string]string{"etc/samba/smb.conf": debianStock + tt.global + debianShares + tt.shares})
			for id, want := range tt.want {
				wantFinding(t, fs, id, want)
			}
			// No recommendation may set a minimum protocol above the
			// effective maximum.
			for _, f := range fs {
				r := f.Recommendation
				if r != nil && strings.HasSuffix(r.Target, "server min protocol") {
					maxV := h.Samba.Global["servermaxprotocol"]
					if smbconf.ProtocolRank(r.Value) > smbconf.ProtocolRank(maxV) {
						t.Errorf("%s sets server min protocol %s above max %s", f.ID, r.Value, maxV)
					}
				}
			}
		})
	}
}
