package kernfmt

import (
	"strings"
	"testing"
)

// From prometheus/procfs testdata/fixtures.ttar (commit 3c943fdba94a,
// Apache-2.0): the first stanzas of fixtures/proc/crypto, with the
// stanza of fixtures/proc/crypto_corrupted (driver before name) between
// them.
const cryptoWithCorrupt = `name         : ccm(aes)
driver       : ccm_base(ctr(aes-aesni),cbcmac(aes-aesni))
module       : ccm
priority     : 300
refcnt       : 4
selftest     : passed
internal     : no
type         : aead

driver       : ccm_base(ctr(aes-aesni),cbcmac(aes-aesni))
name         : ccm(aes)
module       : ccm
priority     : 300
refcnt       : 4
selftest     : passed
internal     : no
type         : aead

name         : ecdh
driver       : ecdh-generic
module       : ecdh_generic
priority     : 100
refcnt       : 1
selftest     : passed
internal     : no
type         : kpp
async        : yes
`

func TestRobustPerEntry(t *testing.T) {
	tests := []struct {
		name    string
		run     func() (int, error)
		want    int
		errLine string
	}{
		{"crypto: corrupted stanza skipped, neighbours kept", func() (int, error) {
			c, err := Crypto([]byte(cryptoWithCorrupt))
			if len(c) == 2 && (c[0].Driver != "ccm_base(ctr(aes-aesni),cbcmac(aes-aesni))" || c[1].Name != "ecdh" || c[1].Priority != 100) {
				t.Errorf("%+v", c)
			}
			return len(c), err
		}, 2, "line 10"},
		{"crypto: garbage line inside an entry drops that entry", func() (int, error) {
			c, err := Crypto([]byte("name : a\ndriver : a-generic\n\nname : b\ndriver : b-x\n%%%garbage\n\nname : c\ndriver : c-generic\n"))
			return len(c), err
		}, 2, "line 6"},
		{"meminfo: a bad line costs that line", func() (int, error) {
			m, err := Meminfo([]byte("MemTotal:        8052740 kB\nMemFree:  lots kB\nMemAvailable:    6211340 kB\n"))
			if m["MemTotal"] != 8052740*1024 || m["MemAvailable"] != 6211340*1024 {
				t.Errorf("%v", m)
			}
			return len(m), err
		}, 2, "line 2"},
		{"softnet: a broken row is skipped (procfs softnet_stat.broken row)", func() (int, error) {
			s, err := Softnet([]byte("00358fe3 00006283 00000000 00000000 00000000 00000000 00000000 00000000 00000000 000855fc 00000076 00000000 00000000\n00015c73 00020e76 F000076Z 00000000\n00008e78 00000001 00000011 00000000 00000000 00000000 00000000 00000000 00000020 00000010\n"))
			return len(s), err
		}, 2, "line 2"},
	}
	for _, tt := range tests {
		n, err := tt.run()
		if n != tt.want || err == nil || !strings.Contains(err.Error(), tt.errLine) {
			t.Errorf("%s: %d entries, err %v; want %d and an error naming %s", tt.name, n, err, tt.want, tt.errLine)
		}
	}
	if u, err := Uptime([]byte("350735.47 234388.90\n")); err != nil || u != 350735.47 {
		t.Errorf("uptime %v %v", u, err)
	}
	if _, err := Uptime([]byte("x y")); err == nil {
		t.Error("garbled uptime accepted")
	}
}
