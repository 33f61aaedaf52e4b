package hostfs

import (
	"os"
	"strings"
	"testing"
)

// Redaction cost on the files perf found it spent most on (issue 31): a
// real /proc/crypto (no secret form can occur in it) and Samba's full
// effective configuration (testparm -s -v, 485 lines, of which a few
// name passwords or keys without holding one), and the same smb.conf with
// 200 shares appended. `go test -bench Redact -benchmem ./internal/hostfs`.
func BenchmarkRedact(b *testing.B) {
	crypto, err := os.ReadFile("testdata/proc-crypto")
	if err != nil {
		b.Fatal(err)
	}
	smb, err := os.ReadFile("testdata/smb.conf")
	if err != nil {
		b.Fatal(err)
	}
	var big strings.Builder
	big.Write(smb)
	for i := 0; i < 200; i++ {
		big.WriteString("[share" + strings.Repeat("x", i%7) + "]\n   path = /srv/share\n   valid users = @staff bob\n   read only = No\n" +
			"   vfs objects = catia fruit streams_xattr\n   fruit:encoding = native\n   create mask = 0664\n   force user = nasuser\n")
	}
	cmdline := []byte("BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901 ro quiet splash console=ttyS0,115200n8 " +
		"nfsroot=10.0.0.1:/srv/nfs/root,vers=4.2 ip=dhcp rd.luks.uuid=abcd-ef01 systemd.unit=multi-user.target\n")
	for _, c := range []struct {
		name, path string
		data       []byte
	}{
		{"proc-crypto", "/proc/crypto", crypto},
		{"proc-crypto-as-any-file", "/etc/crypto", crypto}, // the line prefilter alone
		{"smb.conf", "/etc/samba/smb.conf", smb},
		{"smb.conf-200-shares", "/etc/samba/smb.conf", []byte(big.String())},
		{"proc-cmdline", "/proc/cmdline", cmdline},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Redact(c.path, c.data)
			}
		})
	}
}
