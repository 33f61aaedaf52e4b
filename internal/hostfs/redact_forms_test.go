package hostfs

import (
	"strings"
	"testing"
)

// Red team, issue 15 class "secrets": forms of secrets the corpus did
// not hold. mount.cifs reads "password=a,,b" as "a,b" and
// "username=user%password"; smbclient -U user%password, curl -u
// user:password, mysql -pPASSWORD; iSCSI's mutual CHAP password_in. None
// of the MARK values may survive, the users and other options must.
func TestRedactUnusualForms(t *testing.T) {
	files := map[string]string{
		"/etc/fstab": `//nas/x /mnt/a cifs username=u,password=PW1,,MARKA 0 0
//nas/x /mnt/b cifs username=u%MARKB,uid=1000 0 0
//nas/x /mnt/b2 cifs user=u%MARKB2 0 0
//nas/x /mnt/c cifs "password=MARKC" 0 0
https://u:MARKD@dav.example/ /mnt/d davfs user 0 0
sshfs#u@h:/ /mnt/e fuse pass=MARKE 0 0
//nas/x /mnt/f cifs username=u,password="MARK F",uid=0 0 0
//nas/x /mnt/g cifs username=u,PASSWORD=MARKG 0 0
//nas/x /mnt/h cifs username=u,password2=MARKH 0 0
//nas/x /mnt/i cifs password=MARKI\054x 0 0
`,
		"/etc/openvpn/server/x.conf": `<tls-auth>
MARKJ
</tls-auth>
<tls-crypt-v2>
MARKK
</tls-crypt-v2>
key-direction 1
<http-proxy-user-pass>
u
MARKL
</http-proxy-user-pass>
<auth-user-pass>
u
MARKM
</auth-user-pass>
 <key>
MARKN
 </key>
<KEY>
MARKO
</KEY>
`,
		"/etc/samba/shares.conf": `[x]
 path = /srv
 ldap admin password = MARKP
 ; password = MARKQ
`,
		"/etc/iscsi/iscsid.conf":                  "node.session.auth.password_in = MARKS\nnode.session.auth.password = MARKT\n",
		"/etc/default/foo":                        "export SMB_PASS=\"MARKU\"\nAPI_TOKEN=MARKV\nMYSQL_PWD=MARKW\n",
		"/etc/wpa_supplicant/wpa_supplicant.conf": "network={\n  psk=\"MARKX\"\n  password=\"MARKY\"\n}\n",
		"/etc/openvpn/client.conf":                "auth-user-pass\nremote h\n<connection>\nremote x\n</connection>\nsecret MARKZ\n",
	}
	for p, s := range files {
		out := string(Redact(p, []byte(s)))
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "MARK") {
				t.Errorf("%s: a secret survived: %s", p, l)
			}
		}
	}
	cmds := [][]string{
		{"mysql", "-pMARK1", "-u", "root"},
		{"curl", "-u", "user:MARK2", "http://x"},
		{"x", "--psk=MARK3"},
		{"openvpn", "--auth-user-pass", "/etc/pw"},
		{"x", "--key", "MARK4"},
		{"x", "--api-token", "MARK7"},
		{"iperf3", "--rsa-private-key-path", "/x", "--password", "MARK8"},
		{"sshpass", "-pMARK9", "ssh"},
		{"x", "--client-secret=MARK10"},
		{"smbclient", "-U", "user%MARK11", "//h/s"},
		{"mount.cifs", "//h/s", "/m", "-o", "username=u,password=MARK12"},
		{"rclone", "--webdav-pass", "MARK13"},
	}
	for _, c := range cmds {
		out := strings.Join(RedactArgs(c), " ")
		if strings.Contains(out, "MARK") {
			t.Errorf("a secret survived: %s", out)
		}
	}
}

func TestRedactKeepsUsersAndPorts(t *testing.T) {
	for in, want := range map[string]string{
		"//nas/x /m cifs username=bob%pw,uid=1000 0 0": "//nas/x /m cifs username=bob%" + Redacted + ",uid=1000 0 0",
		"//nas/x /m cifs username=bob,uid=1000 0 0":    "//nas/x /m cifs username=bob,uid=1000 0 0",
		"//nas/x /m cifs password=a,,b,uid=0 0 0":      "//nas/x /m cifs password=" + Redacted + ",uid=0 0 0",
	} {
		if got := string(Redact("/etc/fstab", []byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	for _, c := range [][]string{{"iperf3", "-s", "-p", "5201"}, {"iperf3", "-p5201"}, {"dhclient", "-pf", "/run/dhclient.pid", "eth0"}, {"curl", "-u", "bob", "http://x"}} {
		if got := RedactArgs(c); strings.Join(got, " ") != strings.Join(c, " ") {
			t.Errorf("%q redacted to %q", c, got)
		}
	}
	if got := strings.Join(RedactArgs([]string{"smbclient", "-U", "bob%pw", "//h/s"}), " "); got != "smbclient -U bob%"+Redacted+" //h/s" {
		t.Errorf("smbclient: %q", got)
	}
}
