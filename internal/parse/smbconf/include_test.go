package smbconf

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestExpandIncludes(t *testing.T) {
	web, err := txtar.ParseFile("../../../testdata/unsourced/smb-web-include/tree.txtar")
	if err != nil {
		t.Fatal(err)
	}
	unraid, err := txtar.ParseFile("../../../testdata/unsourced/attack-smb-unraid-global/tree.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := func(a *txtar.Archive, extra map[string]string) map[string]string {
		m := map[string]string{}
		for _, f := range a.Files {
			m["/"+f.Name] = string(f.Data)
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	// Unraid's generated share file (the layout of /etc/samba/smb-shares.conf
	// that emhttp writes: one section per user share).
	unraidShares := "[media]\n\tpath = /mnt/user/media\n\tcomment = \n\tbrowseable = yes\n\twriteable = yes\n"
	tests := []struct {
		name       string
		fs         map[string]string
		wantShares []string
		check      map[string]string // "share key" → effective value
		where      map[string]string // "share key" → file:line of the setting
		problems   []string
	}{
		{"web include: share in the included file", files(web, nil), []string{"share"},
			map[string]string{"share path": "/tmp/share ## Directory path to be shares"},
			map[string]string{"share path": "/etc/samba/shares.conf:2"}, nil},
		{"unraid: includes absent", files(unraid, nil), nil,
			map[string]string{"global ntlmauth": "yes"}, nil,
			[]string{"/etc/samba/smb-names.conf", "/boot/config/smb-extra.conf", "/etc/samba/smb-shares.conf"}},
		{"unraid: shares include present", files(unraid, map[string]string{"/etc/samba/smb-shares.conf": unraidShares}),
			[]string{"media"},
			map[string]string{"media path": "/mnt/user/media", "media readonly": "no", "media widelinks": "yes"},
			map[string]string{"media path": "/etc/samba/smb-shares.conf:2"},
			[]string{"/etc/samba/smb-names.conf", "/boot/config/smb-extra.conf"}},
		{"loop and leading parameters", map[string]string{
			"/etc/samba/smb.conf": "[global]\ninclude = /etc/samba/a.conf\n[tail]\npath = /t\n",
			"/etc/samba/a.conf":   "server string = A\n[x]\npath = /x\ninclude = /etc/samba/b.conf\n",
			"/etc/samba/b.conf":   "read only = no\ninclude = /etc/samba/a.conf\ninclude = %m.conf\n",
		}, []string{"x", "tail"},
			map[string]string{"global serverstring": "a", "x readonly": "no", "tail path": "/t"},
			map[string]string{"x readonly": "/etc/samba/b.conf:1"},
			[]string{"/etc/samba/a.conf", "%m.conf"}},
		// Samba keeps one current section: the header in a.conf holds for
		// the including file's lines up to its next header (testparm agrees).
		{"an included header holds after the include", map[string]string{
			"/etc/samba/smb.conf": "[global]\ndeadtime = 15\n[data]\npath = /srv\ninclude = /etc/samba/a.conf\ndeadtime = 99\n[tail]\npath = /t\n",
			"/etc/samba/a.conf":   "[global]\nworkgroup = X\n",
		}, []string{"data", "tail"},
			map[string]string{"global deadtime": "99", "global workgroup": "x", "tail path": "/t"},
			map[string]string{"global deadtime": "/etc/samba/smb.conf:6"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func(n string) ([]byte, error) {
				if s, ok := tt.fs[n]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			}
			top, _ := Parse([]byte(tt.fs["/etc/samba/smb.conf"]))
			x := Expand("/etc/samba/smb.conf", top, read, DefaultLimits)
			if got := strings.Join(x.Config.Shares(), ","); got != strings.Join(tt.wantShares, ",") {
				t.Errorf("shares %q, want %q", got, tt.wantShares)
			}
			e := x.Config.Effective()
			for k, want := range tt.check {
				sh, key, _ := strings.Cut(k, " ")
				got := e.Global[key]
				if sh != "global" {
					got = e.Share(sh, key)
				}
				if got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			for k, want := range tt.where {
				sh, key, _ := strings.Cut(k, " ")
				found := ""
				for i, p := range x.Config.Params {
					if strings.EqualFold(p.Section, sh) && p.Key == key {
						found = x.Files[i] + ":" + itoa(p.Line)
					}
				}
				if found != want {
					t.Errorf("%s set at %q, want %q", k, found, want)
				}
			}
			var probs []string
			for _, p := range x.Problems {
				probs = append(probs, p.File)
				if p.Reason == "not read" && !errors.Is(p.Err, fs.ErrNotExist) {
					t.Errorf("%s: %v", p.File, p.Err)
				}
			}
			if strings.Join(probs, ",") != strings.Join(tt.problems, ",") {
				t.Errorf("problems %q, want %q (%+v)", probs, tt.problems, x.Problems)
			}
		})
	}
}

// An include bomb: every file includes itself under another name, ever
// deeper; expansion stops at the limits.
func TestExpandBounded(t *testing.T) {
	n := 0
	read := func(name string) ([]byte, error) {
		n++
		return []byte("[s" + itoa(n) + "]\npath = /x\ninclude = /f" + itoa(n) + "a\ninclude = /f" + itoa(n) + "b\n"), nil
	}
	top, _ := Parse([]byte("include = /f0\n"))
	x := Expand("/etc/samba/smb.conf", top, read, Limits{Depth: 4, Files: 10, Bytes: 1 << 20})
	if n > 10 || len(x.Read) > 10 || len(x.Problems) == 0 {
		t.Fatalf("read %d files (%d kept), problems %d", n, len(x.Read), len(x.Problems))
	}
	big := func(string) ([]byte, error) { return make([]byte, 600), nil }
	x = Expand("/etc/samba/smb.conf", top, big, Limits{Depth: 4, Files: 10, Bytes: 500})
	if len(x.Read) != 1 || len(x.Problems) != 1 || !strings.Contains(x.Problems[0].Reason, "bytes") {
		t.Fatalf("byte cap: read %v, problems %+v", x.Read, x.Problems)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
