package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/rule"
)

// Every fixture host, snapshotted and replayed both ways (stored facts,
// and probing the unpacked tree again), yields the findings of a direct
// audit: the recorder captured everything the probes read.
func TestRoundTripHosts(t *testing.T) {
	for _, host := range fixture.HostNames(t) {
		t.Run(host, func(t *testing.T) {
			root, err := hostfs.Open(fixture.HostDir(t, host))
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			want := audit.Run(context.Background(), root, audit.Options{}).Findings

			rec := root.Record()
			h := probe.Collect(context.Background(), root)
			var buf bytes.Buffer
			if err := Write(&buf, rec.Entries(), h, Meta{Version: "test", Created: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > 1<<20 {
				t.Errorf("snapshot is %d bytes, want < 1 MiB", buf.Len())
			}
			l, err := unpack(bytes.NewReader(buf.Bytes()), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if l.Facts == nil {
				t.Fatal("stored facts not loaded")
			}
			compare(t, "stored facts", want, audit.FromFacts(l.Facts, audit.Options{}).Findings)

			tree, err := hostfs.Open(l.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			compare(t, "re-probed tree", want, audit.Run(context.Background(), tree, audit.Options{}).Findings)
		})
	}
}

func compare(t *testing.T, what string, want, got []rule.Finding) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("fixture has no findings: the comparison would prove nothing")
	}
	if !reflect.DeepEqual(want, got) {
		wj, _ := json.MarshalIndent(want, "", " ")
		gj, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("%s: findings differ\nwant %s\ngot %s", what, wj, gj)
	}
}

func TestLayoutMismatchFallsBack(t *testing.T) {
	var buf bytes.Buffer
	h := &facts.Host{Hostname: "nas"}
	if err := Write(&buf, nil, h, Meta{}); err != nil {
		t.Fatal(err)
	}
	// Rewrite the metadata with a foreign layout.
	b := rewrite(t, buf.Bytes(), func(name string, data []byte) []byte {
		if "/"+name == MetaFile {
			return bytes.Replace(data, []byte(FactsLayout()), []byte("0000000000000000"), 1)
		}
		return data
	})
	l, err := unpack(bytes.NewReader(b), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if l.Facts != nil {
		t.Error("facts of another layout must not be used")
	}
}

func rewrite(t *testing.T, gz []byte, f func(string, []byte) []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []tent
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		var data bytes.Buffer
		_, _ = data.ReadFrom(tr)
		out = append(out, tent{h.Name, h.Typeflag, h.Linkname, f(h.Name, data.Bytes())})
	}
	return archive(t, out...)
}

type tent struct {
	name string
	typ  byte
	link string
	data []byte
}

func archive(t testing.TB, ents ...tent) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644, Size: int64(len(e.data))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			_, _ = tw.Write(e.data)
		}
	}
	_ = tw.Close()
	_ = zw.Close()
	return buf.Bytes()
}

var metaOK = tent{".nastune/snapshot.json", tar.TypeReg, "", []byte(`{"format":1}`)}

// Hostile archives are refused with an error naming the entry, and nothing
// is written outside the private folder (a sentinel next to it stays
// untouched, and no file appears beside it).
func TestHostileArchives(t *testing.T) {
	reg := func(name string) tent { return tent{name, tar.TypeReg, "", []byte("x")} }
	cases := []struct {
		name string
		ents []tent
		want string
	}{
		{"parent traversal", []tent{reg("../evil")}, `".." is refused`},
		{"nested traversal", []tent{reg("etc/../../evil")}, "not a clean path"},
		{"absolute name", []tent{reg("/etc/cron.d/evil")}, "absolute names are refused"},
		{"absolute link", []tent{{"etc", tar.TypeSymlink, "/etc", nil}}, `link to absolute path "/etc" refused`},
		{"escaping link", []tent{{"sys/x", tar.TypeSymlink, "../../..", nil}}, "leaves the snapshot"},
		// Each link alone stays inside lexically; followed by the kernel,
		// "zz/up" is the tree's top and "zz/up/.." its parent.
		{"escaping link chain", []tent{metaOK, {"zz/up", tar.TypeSymlink, "..", nil}, {"esc", tar.TypeSymlink, "zz/up/..", nil}}, "leaves the snapshot"},
		{"escaping link chain, link first", []tent{metaOK, {"etc/samba/smb.conf", tar.TypeSymlink, "../../zz/up/../etc/passwd", nil}, {"zz/up", tar.TypeSymlink, "..", nil}}, "leaves the snapshot"},
		{"escaping through a deeper link", []tent{metaOK, {"a/b/c", tar.TypeSymlink, "../..", nil}, {"x", tar.TypeSymlink, "a/b/c/../../..", nil}}, "leaves the snapshot"},
		{"write through link", []tent{{"d", tar.TypeSymlink, "proc", nil}, reg("d/evil")}, `lies below the symbolic link "d"`},
		{"char device", []tent{{"dev/null", tar.TypeChar, "", nil}}, `type "3" refused`},
		{"block device", []tent{{"dev/sda", tar.TypeBlock, "", nil}}, `type "4" refused`},
		{"hard link", []tent{reg("a"), {"b", tar.TypeLink, "a", nil}}, `type "1" refused`},
		{"fifo", []tent{{"p", tar.TypeFifo, "", nil}}, `type "6" refused`},
		{"duplicate", []tent{reg("etc/fstab"), reg("etc/fstab")}, "appears twice"},
		{"file as folder", []tent{reg("a"), reg("a/b")}, `lies below the file "a"`},
		{"no metadata", []tent{reg("proc/cpuinfo")}, "no /.nastune/snapshot.json"},
		{"other format", []tent{{".nastune/snapshot.json", tar.TypeReg, "", []byte(`{"format":99}`)}}, "format 99"},
		{"garbled metadata", []tent{{".nastune/snapshot.json", tar.TypeReg, "", []byte(`{"format":`)}}, "snapshot.json"},
		{"big file", []tent{metaOK, {"proc/big", tar.TypeReg, "", make([]byte, MaxFileBytes+1)}}, "are refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "tree")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			_, err := unpack(bytes.NewReader(archive(t, c.ents...)), dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			onlyTree(t, base)
		})
	}
}

// onlyTree fails when anything but the tree folder exists in base.
func onlyTree(t *testing.T, base string) {
	t.Helper()
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if e.Name() != "tree" {
			t.Errorf("%s written outside the private folder", e.Name())
		}
	}
}

// A decompression bomb: 65 files of 1 MiB zeros compress to ~65 KiB and are
// refused once the content passes the total limit.
func TestBomb(t *testing.T) {
	ents := []tent{metaOK}
	zero := make([]byte, 1<<20)
	for i := 0; i <= MaxTotalBytes>>20; i++ {
		ents = append(ents, tent{"proc/z" + strings.Repeat("z", i%50) + string(rune('a'+i%26)) + string(rune('a'+i/26)), tar.TypeReg, "", zero})
	}
	gz := archive(t, ents...)
	if len(gz) > 1<<20 {
		t.Fatalf("bomb is %d bytes compressed", len(gz))
	}
	_, err := unpack(bytes.NewReader(gz), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "decompression bomb") {
		t.Fatalf("got %v", err)
	}
}

func TestNotGzip(t *testing.T) {
	for _, in := range []string{"", "hello", "\x1f\x8bgarbage"} {
		if _, err := unpack(strings.NewReader(in), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a nastune snapshot") {
			t.Errorf("%q: got %v", in, err)
		}
	}
}

// Load removes its folder on failure and on Close.
func TestLoadCleansUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	bad := filepath.Join(tmp, "bad.tar.gz")
	_ = os.WriteFile(bad, archive(t, tent{"../x", tar.TypeReg, "", nil}), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.tar.gz") {
		t.Fatalf("error must name the file: %v", err)
	}
	good := filepath.Join(tmp, "good.tar.gz")
	var buf bytes.Buffer
	_ = Write(&buf, nil, &facts.Host{Hostname: "nas"}, Meta{})
	_ = os.WriteFile(good, buf.Bytes(), 0o644)
	l, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if l.Facts == nil || l.Facts.Hostname != "nas" || l.Meta.Hostname != "nas" {
		t.Errorf("loaded %+v", l)
	}
	_ = l.Close()
	ents, _ := os.ReadDir(tmp)
	if len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ldap admin password = hunter2\n", "ldap admin password = <redacted>\n"},
		{"askpass /etc/openvpn/pass.txt\n", "askpass /etc/openvpn/pass.txt\n"},
		{"wpa_passphrase: s3cret\n", "wpa_passphrase: <redacted>\n"},
		{"# password = commented\n", "# password = <redacted>\n"},
		{"socket options = TCP_NODELAY\n", "socket options = TCP_NODELAY\n"},
		{"remote vpn.example 1194\n<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\nabc\n</tls-crypt>\nverb 3\n",
			"remote vpn.example 1194\n<tls-crypt>\n<redacted>\n</tls-crypt>\nverb 3\n"},
		{"<key>\nunterminated\n", "<key>\n<redacted>\n"},
	}
	for _, c := range cases {
		got, _ := Redact("/etc/x.conf", []byte(c.in))
		if string(got) != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExcludedAndRelativeLinks(t *testing.T) {
	for _, p := range []string{"/etc/shadow", "/etc/gshadow-", "/etc/ssl/private/x", "/var/lib/samba/private/secrets.tdb", "/etc/openvpn/ta.key", "/etc/ssh/ssh_host_ed25519_key", "/root/.bash_history", "/proc/1/environ"} {
		if !Excluded(p) {
			t.Errorf("%s must be excluded", p)
		}
	}
	for _, p := range []string{"/etc/samba/smb.conf", "/proc/meminfo", "/etc/passwd-not", "/sys/class/net/eth0/speed"} {
		if Excluded(p) {
			t.Errorf("%s must be kept", p)
		}
	}
	var buf bytes.Buffer
	ents := []hostfs.Entry{
		{Path: "/etc", Mode: fs.ModeDir},
		{Path: "/etc/shadow", Data: []byte("root:$6$x")},
		{Path: "/etc/resolv.conf", Mode: fs.ModeSymlink, Target: "/run/systemd/resolve/stub-resolv.conf"},
		{Path: "/etc/fstab", Data: []byte("//nas/a /mnt/a cifs password=x 0 0\n")},
	}
	if err := Write(&buf, ents, &facts.Host{}, Meta{}); err != nil {
		t.Fatal(err)
	}
	l, err := unpack(bytes.NewReader(buf.Bytes()), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(l.Dir, "etc/shadow")); err == nil {
		t.Error("/etc/shadow was captured")
	}
	if got, _ := os.Readlink(filepath.Join(l.Dir, "etc/resolv.conf")); got != "../run/systemd/resolve/stub-resolv.conf" {
		t.Errorf("link target %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(l.Dir, "etc/fstab")); strings.Contains(string(b), "=x") {
		t.Errorf("password kept: %s", b)
	}
	if !reflect.DeepEqual(l.Meta.Excluded, []string{"/etc/shadow"}) || l.Meta.RedactedKeys != 1 {
		t.Errorf("meta %+v", l.Meta)
	}
}

// FuzzUnpack: no input panics, and nothing escapes the private folder.
func FuzzUnpack(f *testing.F) {
	f.Add(archive(f, metaOK, tent{"proc/x", tar.TypeReg, "", []byte("1")}))
	f.Add(archive(f, tent{"a", tar.TypeSymlink, "../b", nil}))
	f.Add(archive(f, tent{"d", tar.TypeSymlink, "x", nil}, tent{"d/e", tar.TypeReg, "", nil}))
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		base := t.TempDir()
		dir := filepath.Join(base, "tree")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		_, _ = unpack(bytes.NewReader(b), dir)
		onlyTree(t, base)
	})
}

// TestPaxHeaderBomb: pax records are not file content, so the content
// limit alone let an archive of tiny files with 1 MiB pax headers
// decompress without bound (3 GB in the trial). Every byte counts.
func TestPaxHeaderBomb(t *testing.T) {
	var raw bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&raw, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	pad := strings.Repeat("A", 1<<20-64) // the most one pax header may hold
	for i := 0; i < MaxStreamBytes>>20+8; i++ {
		hdr := &tar.Header{Name: "proc/f" + strings.Repeat("x", i%40) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)),
			Typeflag: tar.TypeReg, Mode: 0o644, Format: tar.FormatPAX,
			PAXRecords: map[string]string{"NASTUNE.pad": pad}}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	if raw.Len() > 2<<20 {
		t.Fatalf("bomb is %d bytes compressed", raw.Len())
	}
	base := t.TempDir()
	dir := filepath.Join(base, "tree")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := unpack(bytes.NewReader(raw.Bytes()), dir)
	if err == nil || !strings.Contains(err.Error(), "decompression bomb") {
		t.Fatalf("got %v, want a decompression bomb error", err)
	}
	onlyTree(t, base)
}

// Load with usable stored facts checks the archive and writes nothing;
// without them (another facts layout) it unpacks the tree, and Close
// removes it.
func TestLoadUnpacksOnlyWithoutFacts(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var buf bytes.Buffer
	ents := []hostfs.Entry{{Path: "/etc", Mode: fs.ModeDir}, {Path: "/etc/hostname", Data: []byte("nas\n")}}
	if err := Write(&buf, ents, &facts.Host{Hostname: "nas"}, Meta{}); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(tmp, "good.tar.gz")
	_ = os.WriteFile(good, buf.Bytes(), 0o644)
	l, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if l.Facts == nil || l.Dir != "" {
		t.Errorf("stored facts: got Facts %v, Dir %q; want facts and no tree", l.Facts, l.Dir)
	}
	if got, _ := os.ReadDir(tmp); len(got) != 1 {
		t.Errorf("Load with stored facts wrote %v", got)
	}
	_ = l.Close()

	other := filepath.Join(tmp, "other.tar.gz")
	_ = os.WriteFile(other, rewrite(t, buf.Bytes(), func(name string, data []byte) []byte {
		if "/"+name == MetaFile {
			return bytes.Replace(data, []byte(FactsLayout()), []byte("0000000000000000"), 1)
		}
		return data
	}), 0o644)
	l, err = Load(other)
	if err != nil {
		t.Fatal(err)
	}
	if l.Facts != nil || l.Dir == "" {
		t.Fatalf("foreign layout: got Facts %v, Dir %q; want the tree", l.Facts, l.Dir)
	}
	if b, err := os.ReadFile(filepath.Join(l.Dir, "etc/hostname")); err != nil || string(b) != "nas\n" {
		t.Errorf("unpacked etc/hostname: %q, %v", b, err)
	}
	_ = l.Close()
	if got, _ := os.ReadDir(tmp); len(got) != 2 {
		t.Errorf("left behind: %v", got)
	}
}

// Checking an archive without writing it (what Load does when the facts
// are usable) refuses what unpacking refuses, including a file or link
// where an earlier entry's path made a folder, which only the write
// would otherwise notice.
func TestCheckRefusesWhatUnpackRefuses(t *testing.T) {
	reg := func(name string) tent { return tent{name, tar.TypeReg, "", []byte("x")} }
	cases := []struct {
		name string
		ents []tent
		ok   bool
	}{
		{"file below an implicit folder, then that folder", []tent{metaOK, reg("a/b"), {"a", tar.TypeDir, "", nil}}, true},
		{"file where an implicit folder is", []tent{metaOK, reg("a/b"), reg("a")}, false},
		{"link where an implicit folder is", []tent{metaOK, reg("a/b/c"), {"a/b", tar.TypeSymlink, "x", nil}}, false},
		{"duplicate folder", []tent{metaOK, {"a", tar.TypeDir, "", nil}, {"a", tar.TypeDir, "", nil}}, false},
		{"escaping link", []tent{metaOK, {"sys/x", tar.TypeSymlink, "../../..", nil}}, false},
		{"bad metadata", []tent{{".nastune/snapshot.json", tar.TypeReg, "", []byte(`{"format":99}`)}}, false},
		{"plain", []tent{metaOK, {"a", tar.TypeDir, "", nil}, reg("a/b"), {"l", tar.TypeSymlink, "a/b", nil}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := archive(t, c.ents...)
			_, cerr := read(bytes.NewReader(b), nil)
			_, uerr := unpack(bytes.NewReader(b), t.TempDir())
			if (cerr == nil) != c.ok || (uerr == nil) != c.ok {
				t.Errorf("check: %v; unpack: %v; want accepted = %v", cerr, uerr, c.ok)
			}
		})
	}
}

// Archives shaped to make the check itself the attack: every entry within
// the entry and byte limits, but names, folders or links chosen so the
// check took hours (a name of 800 KB: each of its 400,000 folders was
// cleaned from the full name again; 2,000 links of 4 KB targets: each step
// joined the whole path again) or made millions of folders (128-deep
// names, each folder no entry names unpacked but never counted). Each is
// refused, or checked, by its shape.
func TestHostileArchiveShapes(t *testing.T) {
	deep := func(n int) string { return strings.TrimSuffix(strings.Repeat("a/", n), "/") }
	many := []tent{metaOK}
	for i := 0; i < MaxEntries/120; i++ {
		// 255 bytes: a ustar name, no pax header; 127 folders each.
		many = append(many, tent{fmt.Sprintf("%03d/%s", i, deep(125)), tar.TypeDir, "", nil})
	}
	dd := deep(1000)
	up := strings.TrimSuffix(strings.Repeat("../", 1000), "/")
	cases := []struct {
		name string
		ents []tent
		want string // "" accepted
	}{
		{"a name of 800 KB", []tent{metaOK, {deep(400000), tar.TypeDir, "", nil}}, "the most a path may have is 4095"},
		{"a component of 256 bytes", []tent{metaOK, {"etc/" + strings.Repeat("x", 256), tar.TypeReg, "", []byte("x")}}, "the most a file name may have is 255"},
		{"a link target of 4097 bytes", []tent{metaOK, {"l", tar.TypeSymlink, deep(2049), nil}}, "a link target of 4097 bytes"},
		{"folders no entry names", many, "more than 100000 files, folders and links"},
		// Links followed through each other, as the kernel would.
		{"a deep link to the top, followed twice", []tent{metaOK, {dd + "/up", tar.TypeSymlink, up, nil},
			{"x", tar.TypeSymlink, dd + "/up/" + dd + "/up/a", nil}}, ""},
		{"one step above it", []tent{metaOK, {dd + "/up", tar.TypeSymlink, up, nil},
			{"x", tar.TypeSymlink, dd + "/up/..", nil}}, `leaves the snapshot (through the link "a/a/`},
		{"a missing folder climbed back", []tent{metaOK, {"b/l", tar.TypeSymlink, "../no/such/../../b", nil}}, ""},
		{"a missing folder climbed above", []tent{metaOK, {"b/l", tar.TypeSymlink, "no/../../..", nil}}, "leaves the snapshot"},
		{"a loop", []tent{metaOK, {"p", tar.TypeSymlink, "q/..", nil}, {"q", tar.TypeSymlink, "p/x", nil}}, ""},
		{"a link resolved before, met again lower", []tent{metaOK, {"a/b/up", tar.TypeSymlink, "../..", nil}, {"a/b/c/x", tar.TypeSymlink, "../up/a/b/up/a", nil}}, ""},
		{"a link resolved before, met again at the top", []tent{metaOK, {"a/b/up", tar.TypeSymlink, "../..", nil}, {"z", tar.TypeSymlink, "a/b/up/..", nil}}, `link to "a/b/up/.." leaves the snapshot (through the link "a/b/up")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := archive(t, c.ents...)
			_, err := read(bytes.NewReader(b), nil)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if len(err.Error()) > 2*MaxPathBytes {
				t.Errorf("the error is %d bytes long", len(err.Error()))
			}
		})
	}
}

// A stored facts.json is decoded only when its objects and arrays are
// few enough: 4 MiB of "{}," in facts.Host's disk list (a 4 KB archive)
// decoded into 1.4 million disks, 2.3 GiB, on a 128 MiB box. A live
// audit's facts, braces in strings and the bound itself still load.
func TestFactsMemoryBomb(t *testing.T) {
	meta := []byte(`{"format":1,"facts_layout":"` + FactsLayout() + `"}`)
	load := func(body string) (*Loaded, error) {
		gz := archive(t, tent{".nastune/snapshot.json", tar.TypeReg, "", meta}, tent{".nastune/facts.json", tar.TypeReg, "", []byte(body)})
		return read(bytes.NewReader(gz), nil)
	}
	if _, err := load(`{"block":[` + strings.Repeat("{},", (MaxFileBytes-20)/3) + `{}]}`); err == nil || !strings.Contains(err.Error(), "memory bomb") {
		t.Errorf("4 MiB of empty disks: %v, want refused", err)
	}
	// The bound: the outer object and MaxFactsValues-1 disks.
	l, err := load(`{"block":[` + strings.Repeat("{},", MaxFactsValues-3) + `{}]}`)
	if err != nil || l.Facts == nil || len(l.Facts.Block) != MaxFactsValues-2 {
		t.Errorf("at the bound: %v", err)
	}
	if _, err := load(`{"block":[` + strings.Repeat("{},", MaxFactsValues-2) + `{}]}`); err == nil {
		t.Error("one past the bound: accepted")
	}
	l, err = load(`{"hostname":"` + strings.Repeat(`{[\"`, MaxFactsValues) + `"}`)
	if err != nil || l.Facts == nil || !strings.HasPrefix(l.Facts.Hostname, `{["{["`) {
		t.Errorf("braces in a string: %v", err)
	}
}
