package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// plant is one secret placed in a captured tree: appended to (or written
// as) a file. read says the audit reads the file, so the snapshot must
// hold it (redacted); otherwise nastune must never read it at all.
type plant struct {
	file, text string
	create     bool // write the file instead of appending
	read       bool
}

// secretPlants puts about 40 markers NTSECnn where the 2,000-trial red
// team found secrets leaking: CIFS passwords and credentials in fstab and
// /proc/mounts, tcp_fastopen_key, command lines of packet-socket holders,
// Samba files and their includes, OpenVPN inline keys, dm-crypt keys,
// passwords in URLs, and files that are secret as a whole.
func secretPlants(host string) []plant {
	ps := []plant{
		{file: "etc/fstab", read: true, text: "//nas/a /mnt/a cifs username=bob,password=NTSEC01,uid=1000 0 0\n" +
			"//nas/b /mnt/b cifs credentials=/etc/NTSEC02.cred 0 0\n" +
			"//nas/c /mnt/c cifs user=x,pass=NTSEC03 0 0\n" +
			"//nas/d /mnt/d cifs passwd=NTSEC04 0 0\n" +
			"# //nas/old /mnt/old cifs password=NTSEC35 0 0\n"},
		{file: "proc/1/mounts", read: true, text: "//nas/a /mnt/a cifs rw,relatime,vers=3.0,username=bob,password=NTSEC05 0 0\n"},
		{file: "proc/sys/net/ipv4/tcp_fastopen_key", create: true, read: true, text: "NTSEC06-00000000-00000000-00000000\n"},
		{file: "etc/sysctl.d/95-secret.conf", create: true, read: true, text: "net.ipv4.tcp_fastopen_key = NTSEC07-0000-0000-0000\n# secret = NTSEC34\n"},
		{file: "etc/samba/smb.conf", read: true, text: "   ldap admin password = NTSEC08\n#  password = NTSEC09\n   ; wpa_passphrase = NTSEC11\n" +
			"   PrivateKey = NTSEC36\n   include = /etc/shadow\n   include = /etc/samba/inc-secret.conf\n"},
		{file: "etc/samba/inc-secret.conf", create: true, read: true, text: "[extra]\n   path = /srv/extra\n   guest password = NTSEC40\n" +
			"-----BEGIN RSA PRIVATE KEY-----\nNTSEC10\n-----END RSA PRIVATE KEY-----\n"},
		{file: "etc/shadow", create: true, text: "root:NTSEC12:19000:0:99999:7:::\n"},
		{file: "etc/gshadow", create: true, text: "root:NTSEC13::\n"},
		{file: "etc/samba/secrets.tdb", create: true, text: "TDB NTSEC14"},
		{file: "var/lib/samba/private/passdb.tdb", create: true, text: "TDB NTSEC15"},
		{file: "etc/samba/smbpasswd", create: true, text: "bob:1000:NTSEC16:::\n"},
		{file: "etc/ssh/ssh_host_rsa_key", create: true, text: "NTSEC17\n"},
		{file: "root/.ssh/id_ed25519", create: true, text: "NTSEC18\n"},
		{file: "etc/openvpn/server/ta.key", create: true, text: "NTSEC19\n"},
		{file: "proc/1/environ", create: true, text: "PASS=NTSEC20\x00"},
		{file: "etc/krb5.keytab", create: true, text: "NTSEC21"},
		{file: "etc/default/nfs-kernel-server", read: true, text: "# proxy http://u:NTSEC33@proxy.example/\n"},
	}
	switch host {
	case "raid6-server":
		ps = append(ps, plant{file: "etc/openvpn/server/home.conf", read: true, text: "<tls-auth>\nNTSEC22\n</tls-auth>\n<key>\nNTSEC23\n</key>\n" +
			"<tls-crypt>\nNTSEC24\n</tls-crypt>\n<secret>\nNTSEC25\n</secret>\n<auth-user-pass>\nbob\nNTSEC26\n</auth-user-pass>\n" +
			"<ca>\n-----BEGIN PRIVATE KEY-----\nNTSEC37\n-----END PRIVATE KEY-----\n</ca>\n"})
	case "modern-nvme":
		ps = append(ps, plant{file: ".nastune/commands/dmsetup_table.txt", read: true,
			text: "crypt1: 0 1953525168 crypt aes-xts-plain64 NTSEC32 0 8:16 4096\n"})
	case "kirkwood-nas":
		ps = append(ps, plant{file: "proc/412/cmdline", create: true, read: true,
			text: "udhcpc\x00-i\x00eth0\x00--psk\x00NTSEC27\x00--password=NTSEC28\x00token=NTSEC29\x00key=NTSEC30\x00" +
				"--pass\x00NTSEC31\x00mysql://root:NTSEC38@db/x\x00-p\x00NTSEC39\x00"},
			// Round 3: the kernel command line in the kernel log, in the
			// forms systemd, dracut and the kernel's NFS/iSCSI root take.
			plant{file: ".nastune/commands/dmesg.txt", read: true,
				text: "[    0.000000] Kernel command line: root=/dev/nfs systemd.setenv=DB_PASSWORD=NTSEC41 systemd.setenv=API_TOKEN=NTSEC42 " +
					"netroot=iscsi:bob:NTSEC43@10.0.0.1::3260::iqn.2024-01.x:t nfsroot=alice:NTSEC44@10.0.0.2:/srv rd.luks.key=/NTSEC45.key " +
					"systemd.set_credential=dbpass:NTSEC46 cifsroot=//s/r,username=u,password=NTSEC47 ip=dhcp\n"})
	}
	return ps
}

var markerRe = regexp.MustCompile(`NTSEC[0-9]{2}`)

// TestSecretsCorpus plants secrets in captured trees and runs every output
// nastune has over them: audit, inventory and plan (text, JSON, HTML,
// Prometheus, diff), a snapshot (every byte of the archive), audit and
// report from that snapshot and from audit JSON. No marker may appear.
func TestSecretsCorpus(t *testing.T) {
	for _, host := range []string{"raid6-server", "kirkwood-nas", "modern-nvme"} {
		t.Run(host, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tree")
			if err := fixture.UnpackFile(filepath.Join(fixture.HostsDir(), host+".txtar"), dir); err != nil {
				t.Fatal(err)
			}
			plants := secretPlants(host)
			for _, p := range plants {
				f := filepath.Join(dir, p.file)
				if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
					t.Fatal(err)
				}
				flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
				if p.create {
					flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
				}
				fh, err := os.OpenFile(f, flag, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				fh.WriteString(p.text)
				fh.Close()
			}
			out := t.TempDir()
			snap := filepath.Join(out, "host.tar.gz")
			auditJSON := filepath.Join(out, "audit.json")
			runs := [][]string{
				{"audit", "--root", dir, "-v"}, {"audit", "--root", dir, "-o", "json"}, {"audit", "--root", dir, "-o", "html"},
				{"audit", "--root", dir, "-o", "prom"},
				{"inventory", "--root", dir}, {"inventory", "--root", dir, "-o", "json"}, {"inventory", "--root", dir, "-o", "html"},
				{"plan", "--root", dir}, {"plan", "--root", dir, "-o", "json"}, {"plan", "--root", dir, "-o", "diff"},
				{"snapshot", "--root", dir, "-o", snap},
				{"audit", "--from", snap, "-v"}, {"audit", "--from", snap, "-o", "json"}, {"inventory", "--from", snap, "-o", "json"},
				{"report", snap}, {"report", snap, "-o", "json"}, {"report", snap, "-o", "html"},
			}
			check := func(what string, b []byte) {
				t.Helper()
				if m := markerRe.FindAll(b, -1); m != nil {
					t.Errorf("%s leaks %q", what, m)
				}
			}
			for _, args := range runs {
				var stdout, stderr bytes.Buffer
				cmd := nastune(t, args...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				// plan -o diff of raid6-server fails on a sysfs file the
				// fixture lacks (bonding); that is not about secrets.
				if code := cmd.ProcessState.ExitCode(); code > 1 && !(args[0] == "plan" && strings.Contains(stderr.String(), "no such file")) {
					t.Errorf("nastune %s: exit %d (%v)\n%s", strings.Join(args, " "), code, err, stderr.String())
				}
				check("nastune "+strings.Join(args, " ")+" stdout", stdout.Bytes())
				check("nastune "+strings.Join(args, " ")+" stderr", stderr.Bytes())
				if args[0] == "audit" && len(args) > 4 && args[4] == "json" && args[1] == "--root" {
					os.WriteFile(auditJSON, stdout.Bytes(), 0o644)
				}
			}
			for _, args := range [][]string{{"report", auditJSON}, {"report", auditJSON, "-o", "json"}, {"report", out}} {
				var stdout bytes.Buffer
				cmd := nastune(t, args...)
				cmd.Stdout, cmd.Stderr = &stdout, &stdout
				_ = cmd.Run()
				check("nastune "+strings.Join(args, " "), stdout.Bytes())
			}
			// The snapshot: every byte, and proof the planted files were
			// read (so the test is not passing because nothing looked).
			files := snapshotFiles(t, snap)
			for name, data := range files {
				check("snapshot entry "+name, data)
			}
			raw, _ := os.ReadFile(snap)
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			all, _ := io.ReadAll(zr)
			check("snapshot archive", all)
			for _, p := range plants {
				_, in := files[p.file]
				switch {
				case p.read && !in:
					t.Errorf("%s was not read: the corpus test does not test it", p.file)
				case p.read && !bytes.Contains(files[p.file], []byte("<redacted>")):
					t.Errorf("%s in the snapshot shows no redaction:\n%s", p.file, files[p.file])
				case !p.read && in:
					t.Errorf("%s (secret as a whole) is in the snapshot", p.file)
				}
			}
		})
	}
}

func snapshotFiles(t *testing.T, file string) map[string][]byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	m := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m
		}
		if err != nil {
			t.Fatal(fmt.Errorf("snapshot: %w", err))
		}
		b, _ := io.ReadAll(tr)
		m[strings.TrimPrefix(h.Name, "/")] = b
	}
}
