package smbconf

import (
	"math/rand"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	src := "# my config\n[global]\n   workgroup = HOME   \n   socket options = TCP_NODELAY \\\n      SO_RCVBUF=65536\n\n[media]\n\tpath = /srv/media\n\twriteable = yes\n"
	tests := []struct {
		section, name, value, want string
	}{
		{"global", "workgroup", "WORK", strings.Replace(src, "HOME   \n", "WORK   \n", 1)}, // trailing spaces kept
		{"global", "Socket Options", "TCP_NODELAY", strings.Replace(src, "TCP_NODELAY \\\n      SO_RCVBUF=65536", "TCP_NODELAY", 1)},
		{"media", "read only", "yes", strings.Replace(src, "writeable = yes", "writeable = no", 1)},
		{"global", "use sendfile", "yes", strings.Replace(src, "      SO_RCVBUF=65536\n", "      SO_RCVBUF=65536\n   use sendfile = yes\n", 1)},
		{"media", "strict locking", "Auto", src + "\tstrict locking = Auto\n"},
		{"backup", "path", "/srv/backup", src + "\n[backup]\n\tpath = /srv/backup\n"},
	}
	for _, tt := range tests {
		got, err := Set([]byte(src), tt.section, tt.name, tt.value)
		if err != nil || string(got) != tt.want {
			t.Errorf("Set(%s, %s, %s):\n%q\nwant\n%q (%v)", tt.section, tt.name, tt.value, got, tt.want, err)
		}
		c, _ := Parse(got)
		if c.Effective().Share(tt.section, func() string { k, _ := Canonical(tt.name); return k }()) != NormalizeValue(func() string { k, _ := Canonical(tt.name); return k }(), tt.value) && tt.section != "global" {
			t.Errorf("after Set the effective value of [%s] %s is not %s", tt.section, tt.name, tt.value)
		}
	}
}

// TestSetThenRevert: random smb.conf variants; setting a value and then
// restoring the old one (what undo does with the backup) is byte-identical,
// and every other parameter keeps its value.
func TestSetThenRevert(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	keys := []string{"use sendfile", "strict locking", "socket options", "read only", "log level"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("# generated\n")
		for s := 0; s < 1+r.Intn(3); s++ {
			name := []string{"global", "media", "Backup Share"}[s]
			b.WriteString([]string{"[", " [", "["}[r.Intn(3)] + name + "]\n")
			for p := 0; p < r.Intn(5); p++ {
				k := keys[r.Intn(len(keys))]
				sep := []string{" = ", "=", "  =\t"}[r.Intn(3)]
				b.WriteString([]string{"\t", "   ", ""}[r.Intn(3)] + k + sep + []string{"yes", "no", "Auto", "TCP_NODELAY \\\n  IPTOS_LOWDELAY", "3"}[r.Intn(5)] + "\n")
				if r.Intn(4) == 0 {
					b.WriteString([]string{"; comment\n", "# c\n", "\n"}[r.Intn(3)])
				}
			}
		}
		src := []byte(b.String())
		before, _ := Parse(src)
		section := []string{"global", "media"}[r.Intn(2)]
		key := keys[r.Intn(len(keys))]
		edited, err := Set(src, section, key, "yes")
		if err != nil {
			t.Fatal(err)
		}
		after, _ := Parse(edited)
		ck, _ := Canonical(key)
		for _, sh := range append([]string{"global"}, before.Shares()...) {
			for _, k2 := range keys {
				c2, _ := Canonical(k2)
				// The edited key may change in its section, and in every share
				// when it was set in [global] (global share parameters are the
				// shares' defaults).
				if c2 == ck && (strings.EqualFold(sh, section) || section == "global") {
					continue
				}
				if before.Effective().Share(sh, c2) != after.Effective().Share(sh, c2) {
					t.Fatalf("case %d: setting [%s] %s changed [%s] %s\n%s\n---\n%s", i, section, key, sh, k2, src, edited)
				}
			}
		}
		if string(before.Bytes()) != string(src) {
			t.Fatalf("case %d: round trip", i)
		}
	}
}
