package hostfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Round 3: the kernel command line carries secrets in forms the
// redaction did not know. On main systemd.setenv=DB_PASSWORD=…,
// systemd.set_credential=…, netroot=iscsi:user:pass@host and
// nfsroot=user:pass@host passed unredacted through /proc/cmdline, a GRUB
// file and the kernel log's "Kernel command line:" line alike.
func TestRedactKernelCmdline(t *testing.T) {
	cmdline := "BOOT_IMAGE=/vmlinuz root=UUID=1b2c ro quiet systemd.setenv=DB_PASSWORD=MARK1 systemd.setenv=API_TOKEN=MARK2 " +
		"systemd.setenv=AWS_SECRET_ACCESS_KEY=MARK3 systemd.setenv=X_KEY=MARK4 rd.luks.key=/MARK5.key:UUID=ab " +
		"netroot=iscsi:bob:MARK6@10.0.0.1::3260::iqn.2024-01.x:t nfsroot=alice:MARK7@10.0.0.2:/srv/root,vers=4 " +
		"root=live:https://u:MARK8@img.example/x.iso cifsroot=//srv/s,username=u,password=MARK9 iscsi_password=MARK10 " +
		"systemd.set_credential=dbpass:MARK11 --password=MARK12 ip=10.0.0.9::10.0.0.1:255.255.255.0:nas:eth0:off " +
		"rd.iscsi.in.password=MARK13 console=ttyS0,115200n8\n"
	keep := []string{"BOOT_IMAGE=/vmlinuz", "root=UUID=1b2c", "systemd.setenv=DB_PASSWORD=", "netroot=iscsi:", "@10.0.0.1::3260::iqn.2024-01.x:t",
		"nfsroot=alice:", "@10.0.0.2:/srv/root,vers=4", "ip=10.0.0.9::10.0.0.1:255.255.255.0:nas:eth0:off", "console=ttyS0,115200n8", "username=u"}
	check := func(what, out string) {
		t.Helper()
		if strings.Contains(out, "MARK") {
			t.Errorf("%s: a secret survived:\n%s", what, out)
		}
		for _, k := range keep {
			if !strings.Contains(out, k) {
				t.Errorf("%s: %q was lost:\n%s", what, k, out)
			}
		}
	}
	check("/proc/cmdline", string(Redact("/proc/cmdline", []byte(cmdline))))
	check("/etc/kernel/cmdline", string(Redact("/etc/kernel/cmdline", []byte(cmdline))))
	check("/etc/default/grub", string(Redact("/etc/default/grub", []byte(`GRUB_CMDLINE_LINUX="`+strings.TrimSpace(cmdline)+`"`+"\n"))))
	check("grub.cfg", string(Redact("/boot/grub/grub.cfg", []byte("\tlinux /vmlinuz "+cmdline))))
	check("dmesg", string(RedactCommand([]string{"dmesg"}, []byte("[    0.000000] Kernel command line: "+cmdline))))
	check("RedactString", RedactString(cmdline))
}

// The prefilter is sound: a line mayHoldSecret passes is one redactLine
// leaves as it is, for every line of every fixture and real captured
// tree; and the files Redact does not scan (noSecretForms) are ones the
// full redaction leaves unchanged.
func TestRedactPrefilterSound(t *testing.T) {
	roots := []string{"../../testdata", "testdata"}
	lines, skipped := 0, 0
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 4<<20 {
				return nil
			}
			for _, l := range strings.Split(string(b), "\n") {
				lines++
				if !mayHoldSecret([]byte(l)) {
					skipped++
					if got := redactLine(l); got != l {
						t.Errorf("%s: the prefilter skips a line redaction changes:\n%q\n%q", p, l, got)
					}
				}
			}
			return nil
		})
	}
	if lines < 10000 || skipped == 0 {
		t.Fatalf("only %d lines read (%d skipped): the test tests nothing", lines, skipped)
	}
	crypto, err := os.ReadFile("testdata/proc-crypto")
	if err != nil {
		t.Fatal(err)
	}
	if got := redactText(crypto); string(got) != string(crypto) {
		t.Error("/proc/crypto is in noSecretForms but the full redaction changes it")
	}
	if string(Redact("/proc/1/net/dev", []byte("password=x"))) != "password=x" || procNet("/proc/self/net/snmp") != "/proc/net/snmp" {
		t.Error("/proc/PID/net/dev is not taken as /proc/net/dev")
	}
	if string(Redact("/proc/1/netx/dev", []byte("password=x"))) == "password=x" {
		t.Error("procNet maps too much")
	}
}
