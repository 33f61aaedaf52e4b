package rules_test

import (
	"strings"
	"testing"
)

// Samba advice needs smbd: Debian installs /etc/samba/smb.conf with
// samba-common and testparm with samba-common-bin, which smbclient and
// cifs-utils pull in without the server. The real smb.conf (a forum post
// with wide links and unix extensions = no) gets advice only where the
// package database or the binary shows smbd.
func TestSambaAdviceNeedsSmbd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra map[string]string
		want  bool
	}{
		{"testparm only (samba-common-bin)", map[string]string{"var/lib/dpkg/info/samba-common-bin.list": "/usr/bin/testparm\n"}, false},
		{"samba package", map[string]string{"var/lib/dpkg/info/samba-common-bin.list": "/usr/bin/testparm\n", "var/lib/dpkg/info/samba.list": "/usr/sbin/smbd\n"}, true},
		{"source build", map[string]string{"usr/local/samba/sbin/smbd": "ELF"}, true},
		{"nothing known", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := realTreeFiles(t, "smb-web-wide-links-unix-ext-off")
			for k, v := range tc.extra {
				files[k] = v
			}
			_, fs := runTree(t, files)
			got := ids(fs, "samba")
			if (len(got) > 0) != tc.want {
				t.Errorf("samba findings %v, want some: %v", got, tc.want)
			}
		})
	}
}

// Without testparm, effective values come from the documented defaults of
// the installed Samba (`smbd -V`): before 4.11 SMB1 is on by default,
// before 4.5 NTLMv1 too. Debian's own bookworm smb.conf sets neither.
func TestSambaDefaultsByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"Version 4.17.12-Debian", nil},
		{"Version 4.9.5-Debian", []string{"smb-smb1-enabled"}},
		{"Version 4.3.11-Ubuntu", []string{"smb-ntlmv1", "smb-smb1-enabled"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			files := realTreeFiles(t, "smb-debian-bookworm-default")
			files[".nastune/commands/smbd_-V.txt"] = "# command: smbd -V\n" + tc.version + "\n"
			files["var/lib/dpkg/info/samba.list"] = "/usr/sbin/smbd\n"
			_, fs := runTree(t, files)
			var got []string
			for _, id := range []string{"smb-ntlmv1", "smb-smb1-enabled"} {
				for _, f := range byID(fs, id) {
					got = append(got, id)
					if !strings.Contains(text(f), "(default)") || !strings.Contains(text(f), strings.Fields(tc.version)[1]) {
						t.Errorf("%s does not cite the version's default: %s", id, text(f))
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// NFS export advice needs an NFS server: nfsd's /proc files, rpc.nfsd or
// Debian's nfs-kernel-server package.
func TestNFSAdviceNeedsNfsd(t *testing.T) {
	base := func() map[string]string {
		return map[string]string{"etc/exports": "/srv/data 192.168.1.0/24(rw,async,subtree_check)\n",
			"var/lib/dpkg/info/nfs-common.list": "/sbin/mount.nfs\n"}
	}
	for _, tc := range []struct {
		name  string
		extra map[string]string
		want  bool
	}{
		{"nfs-common only", nil, false},
		{"nfs-kernel-server", map[string]string{"var/lib/dpkg/info/nfs-kernel-server.list": "/usr/sbin/rpc.nfsd\n"}, true},
		{"nfsd loaded", map[string]string{"proc/fs/nfsd/threads": "8\n"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := base()
			for k, v := range tc.extra {
				files[k] = v
			}
			_, fs := runTree(t, files)
			if got := byID(fs, "nfs-export-async"); (len(got) > 0) != tc.want {
				t.Errorf("nfs-export-async fired %d times, want %v", len(got), tc.want)
			}
		})
	}
}

// Every Samba rule goes through sambaServer: with smbd shown absent, a
// host whose smb.conf asks for sendfile off, no multichannel on two links
// and signing without AES gets no Samba advice at all.
func TestNoSambaRuleWithoutSmbd(t *testing.T) {
	files := realTreeFiles(t, "smb-omv-default")
	files["var/lib/dpkg/info/samba-common-bin.list"] = "/usr/bin/testparm\n"
	files["etc/samba/smb.conf"] += "\nserver multi channel support = no\nuse sendfile = no\nserver signing = mandatory\n"
	_, fs := runTree(t, files)
	if got := ids(fs, "samba"); len(got) > 0 {
		t.Errorf("samba findings without smbd: %v", got)
	}
}

// Issue 26: smb-smb1-dead-option cites only what smb.conf says. Debian's
// smb.conf with a guide's "read raw = yes" and no server min protocol:
// the why says the protocol is Samba 4.17's default, and the evidence has
// no server min protocol line; set in smb.conf, the line is cited.
func TestSMB1DeadCitesOnlyTheConfig(t *testing.T) {
	for _, tc := range []struct {
		extra, want, not string
	}{
		{"", "server min protocol is not set in smb.conf: smb2_02 is the default of Samba 4.17.12-Debian", "server min protocol = smb2_02"},
		{"   server min protocol = SMB3\n", "/etc/samba/smb.conf:", "default"},
	} {
		files := realTreeFiles(t, "smb-debian-bookworm-default")
		files[".nastune/commands/smbd_-V.txt"] = "# command: smbd -V\nVersion 4.17.12-Debian\n"
		files["var/lib/dpkg/info/samba.list"] = "/usr/sbin/smbd\n"
		files["etc/samba/smb.conf"] = strings.Replace(files["etc/samba/smb.conf"], "[global]\n", "[global]\n   read raw = yes\n"+tc.extra, 1)
		_, fs := runTree(t, files)
		got := byID(fs, "smb-smb1-dead-option")
		if len(got) != 1 {
			t.Fatalf("%q: %d findings, want one", tc.extra, len(got))
		}
		txt := text(got[0])
		if !strings.Contains(got[0].Why, tc.want) || strings.Contains(got[0].Why, tc.not) {
			t.Errorf("%q: %s\nwant %q, not %q", tc.extra, txt, tc.want, tc.not)
		}
		if tc.extra == "" && strings.Contains(txt, "serverminprotocol") {
			t.Errorf("cites a server min protocol line the config does not have: %s", txt)
		}
	}
}
