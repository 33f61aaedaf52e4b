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

// TestRedactCommandInText: a command line written in a configuration file
// (smb.conf's root preexec and scripts, a cron line, a shell variable) is
// redacted as the same command line in /proc/PID/cmdline is: one
// redaction on every path. The layout of the line stays (indentation and
// spacing), and names glued to a secret word (PGPASSWORD, rpcpassword)
// are secrets too.
func TestRedactCommandInText(t *testing.T) {
	lines := []string{
		"   root preexec = sshpass -p MARK1 ssh backup@h",
		"   preexec = sshpass -pMARK2 rsync -a /srv h:",
		"\tpreexec = /usr/bin/mysqldump -uroot -pMARK3 db > /tmp/x",
		"0 3 * * * root curl -s -u bob:MARK4 https://h/ping",
		"   root postexec = smbclient -U bob%MARK5 //h/s -c ls",
		"   preexec = /usr/bin/foo   --password   MARK6   --verbose",
		"export PGPASSWORD=MARK7",
		"rpcpassword=MARK8",
		"systemd.setenv=PGPASSWORD=MARK9 quiet",
		"   preexec = mariadb -pMARK10; sshpass -p MARK11 ssh x",
	}
	for _, l := range lines {
		for _, p := range []string{"/etc/samba/smb.conf", "/etc/crontab", "/etc/default/x"} {
			got := string(Redact(p, []byte(l+"\n")))
			if strings.Contains(got, "MARK") {
				t.Errorf("%s: a secret survived: %q", p, got)
			}
			if lead := len(l) - len(strings.TrimLeft(l, " \t")); got[:lead] != l[:lead] {
				t.Errorf("%s: the indentation of %q changed: %q", p, l, got)
			}
		}
		argv := strings.Fields(l)
		if strings.Contains(strings.Join(RedactArgs(argv), " "), "MARK") && !strings.Contains(l, "PASSWORD=") && !strings.Contains(l, "rpcpassword") {
			t.Errorf("RedactArgs(%q) keeps a secret", argv)
		}
	}
	for in, want := range map[string]string{
		"   preexec = /usr/bin/foo   --password   MARK6   --verbose": "   preexec = /usr/bin/foo   --password   " + Redacted + "   --verbose",
		"   root preexec = sshpass -p MARK1 ssh backup@h":            "   root preexec = sshpass -p " + Redacted + " ssh backup@h",
	} {
		if got := string(Redact("/etc/samba/smb.conf", []byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	// Not secrets: ports, pid files, users, mkdir -p, compass, bypass.
	for _, l := range []string{"   preexec = mkdir -p /srv/x", "   preexec = ssh -p 2222 h", "   preexec = curl -u bob https://h",
		"   preexec = iperf3 -c h -p 5201", "ssl bypass = yes", "compass = north", "   preexec = mysql -P 3306 -h db"} {
		if got := string(Redact("/etc/samba/smb.conf", []byte(l))); got != l {
			t.Errorf("%q redacted to %q", l, got)
		}
	}
}

// TestRedactPasswordPunctuation: a password holds punctuation. In a mount
// option it runs to the next single comma or white space, so a ';', '&'
// or quote inside it must not end the redaction and leave its tail; in a
// URL it may hold an '@' (the userinfo ends at the last one).
func TestRedactPasswordPunctuation(t *testing.T) {
	for in, want := range map[string]string{
		"//nas/x /m cifs username=u,password=pa;ssMARK1,uid=0 0 0":  "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"//nas/x /m cifs username=u,password=pa&ssMARK2,uid=0 0 0":  "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"//nas/x /m cifs username=u,password=pa'ssMARK3,uid=0 0 0":  "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"//nas/x /m cifs username=u,password=pa\"ssMARK4,uid=0 0 0": "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"//nas/x /m cifs username=u,password=\"pa\"MARK5,uid=0 0 0": "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"//nas/x /m cifs username=u,password=a,,b;MARK6,uid=0 0 0":  "//nas/x /m cifs username=u,password=" + Redacted + ",uid=0 0 0",
		"https://u:pa@MARK9@dav.example/x /m davfs user 0 0":        "https://u:" + Redacted + "@dav.example/x /m davfs user 0 0",
	} {
		if got := string(Redact("/etc/fstab", []byte(in))); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
	// Not secrets: the next option after a plain value, a query string's
	// other keys.
	for _, l := range []string{"//nas/x /m cifs username=u;x,uid=0 0 0", "url = https://h/x?a=1&b=2"} {
		if got := string(Redact("/etc/fstab", []byte(l))); got != l {
			t.Errorf("%q redacted to %q", l, got)
		}
	}
}
