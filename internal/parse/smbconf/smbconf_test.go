package smbconf

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
	"github.com/rogpeppe/go-internal/txtar"
)

func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.conf")
	if err != nil || len(files) < 5 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// treeConfs returns the smb.conf of every captured tree of the real
// corpus (testdata/real) and the host fixtures (testdata/hosts), written
// to files testparm can read, by archive. Files with an include are left
// out: testparm would read the included path from this machine.
func treeConfs(t *testing.T) map[string]string {
	t.Helper()
	archives, _ := filepath.Glob("../../../testdata/real/*/tree.txtar")
	unsourced, _ := filepath.Glob("../../../testdata/unsourced/*/tree.txtar")
	archives = append(archives, unsourced...)
	hosts, _ := filepath.Glob("../../../testdata/hosts/*.txtar")
	archives = append(archives, hosts...)
	out := map[string]string{}
	dir := t.TempDir()
	for i, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name != "etc/samba/smb.conf" {
				continue
			}
			c, _ := Parse(f.Data)
			if c == nil || slices.ContainsFunc(c.Params, func(p Param) bool { return p.Key == "include" }) {
				continue
			}
			name := filepath.Join(dir, fmt.Sprintf("%d.conf", i))
			if err := os.WriteFile(name, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			out[a] = name
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d smb.conf files in the captured trees", len(out))
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for name, b := range corpus(t) {
		c, _ := Parse(b)
		if string(c.Bytes()) != string(b) {
			t.Errorf("%s: Bytes() differs from the input", name)
		}
		// Every recorded value span holds the written value.
		for _, p := range c.Params {
			written := string(b[p.ValueStart:p.ValueEnd])
			if !strings.Contains(p.Value, strings.Fields(written + " x")[0]) && !p.Inverted && written != "" {
				t.Errorf("%s:%d: span %q does not hold value %q", name, p.Line, written, p.Value)
			}
		}
	}
}

func TestSyntax(t *testing.T) {
	b, _ := os.ReadFile("testdata/corpus/synonyms.conf")
	c, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	e := c.Effective()
	checks := map[string]string{
		"global/usesendfile":               "yes",                        // before any section
		"global/serverminprotocol":         "smb2",                       // case and spaces; SMB2_10 is printed SMB2
		"global/servermultichannelsupport": "no",                         // no spaces at all
		"global/strictlocking":             "yes",                        // last wins
		"global/socketoptions":             "tcp_nodelay iptos_lowdelay", // continuation
		"global/smb1unixextensions":        "no",                         // synonym
		"Public Stuff/guestok":             "yes",                        // public
		"Public Stuff/browseable":          "no",                         // browsable
		"Public Stuff/readonly":            "no",                         // writable (inverted)
		"ro/readonly":                      "yes",                        // writeable = no
		"ro/followsymlinks":                "no",
	}
	for k, want := range checks {
		sec, key, _ := strings.Cut(k, "/")
		got := e.Global[key]
		if sec != "global" {
			got = e.Share(sec, key)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if p, ok := c.Global("socketoptions"); !ok || p.Line != 8 {
		t.Errorf("socket options line: %+v", p)
	}
}

func TestBroken(t *testing.T) {
	b, _ := os.ReadFile("testdata/corpus/broken.conf")
	c, err := Parse(b)
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Fatal || !errors.Is(err, perr.ErrSyntax) {
		t.Errorf("err = %v, want the skipped line 3", err)
	}
	fb, _ := os.ReadFile("testdata/corpus/broken-fatal.conf")
	if _, err := Parse(fb); !errors.As(err, &pe) || !pe.Fatal || pe.Line != 5 {
		t.Errorf("broken-fatal: %v, want a fatal error on line 5 (the first one smbd refuses)", err)
	}
	if _, ok := c.ShareParam("data", "oplocks"); !ok {
		t.Error("good lines after bad ones are kept")
	}
}

// TestTestparmOracle: for every corpus file and every smb.conf of the
// captured trees (real corpus, host fixtures) our effective values equal
// what the real testparm -s -v (Samba's own parser) prints, for every
// parameter nastune's rules read. testparm replaces log level with its
// own debug level, so that one is left out.
func TestTestparmOracle(t *testing.T) {
	tp, err := exec.LookPath("testparm")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("testparm is missing: make test installs samba-common-bin")
		}
		t.Skip("testparm not installed (Debian package samba-common-bin)")
	}
	files := map[string]string{} // what to name → file to read
	for name := range corpus(t) {
		files[name] = name
	}
	maps.Copy(files, treeConfs(t))
	for name, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tp, "-s", "-v", "--suppress-prompt", file).Output()
		c, perr := Parse(b)
		var pe *Error
		// A fatal syntax error, or a value Samba's loader refuses (what
		// the samba probe reports as a load error).
		fatal := errors.As(perr, &pe) && pe.Fatal ||
			slices.ContainsFunc(c.Params, func(p Param) bool { return Known(p.Key) && !Valid(p.Key, p.Value) })
		if err != nil {
			// Samba refused the file: so must we.
			if !fatal {
				t.Errorf("%s: testparm refuses the file (%v) but Parse found no fatal error (%v)", name, err, perr)
			}
			continue
		}
		if fatal {
			t.Errorf("%s: testparm loads the file but Parse calls %v fatal", name, perr)
		}
		want, err := FromTestparm(out)
		if err != nil {
			t.Fatalf("%s: reading testparm output: %v", name, err)
		}
		got := c.Effective()
		for key := range Defaults {
			if key == "loglevel" {
				continue
			}
			if got.Global[key] != want.Global[key] {
				t.Errorf("%s [global] %s: ours %q, testparm %q", name, key, got.Global[key], want.Global[key])
			}
			for share := range want.Shares {
				if g, w := got.Share(share, key), want.Share(share, key); g != w {
					t.Errorf("%s [%s] %s: ours %q, testparm %q", name, share, key, g, w)
				}
			}
		}
		if len(got.Shares) != len(want.Shares) {
			t.Errorf("%s: %d shares, testparm %d", name, len(got.Shares), len(want.Shares))
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"[global]\n a = b \\\n c\n", "x=1\n[s]\nwriteable=yes\n", "[\n=\n\\"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _ := Parse(b)
		if string(c.Bytes()) != string(b) {
			t.Fatal("round trip")
		}
		for _, p := range c.Params {
			if p.ValueStart > p.ValueEnd || p.ValueEnd > len(b) {
				t.Fatalf("bad span %d..%d of %d", p.ValueStart, p.ValueEnd, len(b))
			}
		}
		c.Effective()
	})
}

// Samba ignores lines whose boolean or enum value it does not know
// (loadparm.c set_variable_helper); smb.conf has no inline comments.
func TestValidAndInlineComments(t *testing.T) {
	tests := []struct {
		key, v string
		valid  bool
		meant  string // text before an inline comment, "" when none
	}{
		{"serversigning", "mandatory", true, ""},
		{"serversigning", "Mandatory  # all clients must sign", false, "Mandatory"},
		{"readonly", "no ; scanners write here", false, "no"},
		{"readonly", "No", true, ""},
		{"serverminprotocol", "SMB2_02", true, ""},
		{"serverminprotocol", "SMB4", false, ""},
		{"servermaxprotocol", "nt1", true, ""},
		{"strictlocking", "Auto", true, ""},
		{"workgroup", "HOME # office", true, ""}, // unchecked strings stay as written
	}
	for _, tt := range tests {
		if got := Valid(tt.key, tt.v); got != tt.valid {
			t.Errorf("Valid(%s, %q) = %v", tt.key, tt.v, got)
		}
		meant, ok := CommentTail(tt.v)
		if ok != (tt.meant != "") || (ok && meant != tt.meant) {
			if tt.meant != "" || ok && Known(tt.key) {
				t.Errorf("CommentTail(%q) = %q %v, want %q", tt.v, meant, ok, tt.meant)
			}
		}
	}
	c, _ := Parse([]byte("[global]\nserver signing = mandatory  # note\n[data]\npath = /srv\nread only = no # rw\n"))
	e := c.Effective()
	if e.Global["serversigning"] != "default" || e.Share("data", "readonly") != "yes" {
		t.Errorf("ignored lines must leave the defaults: %v %v", e.Global["serversigning"], e.Share("data", "readonly"))
	}
	if ProtocolRank("NT1") >= ProtocolRank("SMB2_02") || ProtocolRank("SMB3") != ProtocolRank("smb3_11") || ProtocolRank("default") != -1 {
		t.Error("protocol order")
	}
}

func TestDefaultsFor(t *testing.T) {
	for _, tc := range []struct {
		v                     string
		minProto, ntlm, mchan string
	}{
		{"", "smb2_02", "", "yes"},
		{"4.17.12-Debian", "smb2_02", "", "yes"},
		{"4.11.0", "smb2_02", "", "no"},
		{"4.15.0", "smb2_02", "", "yes"},
		{"4.10.18", "lanman1", "", "no"},
		{"4.4.16", "lanman1", "yes", "no"},
		{"garbage", "smb2_02", "", "yes"},
	} {
		d := DefaultsFor(tc.v)
		if d["serverminprotocol"] != tc.minProto || d["ntlmauth"] != tc.ntlm || d["servermultichannelsupport"] != tc.mchan {
			t.Errorf("%q: min %q ntlm %q multichannel %q; want %q %q %q", tc.v, d["serverminprotocol"], d["ntlmauth"], d["servermultichannelsupport"], tc.minProto, tc.ntlm, tc.mchan)
		}
	}
	if Defaults["serverminprotocol"] != "smb2_02" {
		t.Error("DefaultsFor changed Defaults")
	}
}

// A share's path keeps its case: /srv/Media is not /srv/media on Linux
// (inventory services printed the lowered path).
func TestEffectivePathKeepsCase(t *testing.T) {
	c, err := Parse([]byte("[Media]\n  path = /srv/Media Files \n  read only = No\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := c.Effective()
	if got := e.Share("Media", "path"); got != "/srv/Media Files" {
		t.Errorf("path %q, want /srv/Media Files", got)
	}
	if got := e.Share("Media", "readonly"); got != "no" {
		t.Errorf("read only %q, want no", got)
	}
}
