package confsyntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/confsyntax/udevtok"
)

// hostile are values a device, a user or a peer could choose.
var hostile = []string{
	`"`, `x", RUN+="/bin/sh -c id"`, `x",RUN+="/bin/sh"`, "a,b", "RUN+=", "a\nRUN+=\"/bin/sh\"", "a\r\nb",
	"a|b", "*", "a?", "[ab]", `a\`, `a\"`, `a\x22`, "a\x00b", strings.Repeat("A", 4096), "Ωμέγα", "\x1b[31mred",
	"", " ", "a b", "$env{HOME}", "%k", "#x", ";x", "a=b", "\t",
}

func attrs() map[string]bool {
	m := map[string]bool{}
	for k := range BlockAttrs {
		m[k] = true
	}
	for k := range NetAttrs {
		m[k] = true
	}
	return m
}

// intended tokenises line as udev does and fails on any key beyond the
// intended match and assignment.
func intended(t *testing.T, line string) []udevtok.Token {
	t.Helper()
	rules := udevtok.ParseFile([]byte(line + "\n"))
	if len(rules) != 1 {
		t.Fatalf("%q is %d rules", line, len(rules))
	}
	if err := udevtok.Intended(rules[0], attrs()); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if err := CheckUdevRule(line); err != nil {
		t.Fatalf("%q: apply's check refuses it: %v", line, err)
	}
	return rules[0].Tokens
}

func TestUdevWritersRefuseHostile(t *testing.T) {
	disk, _ := DiskWWN("0x5000c500a1b2c3d4")
	for _, v := range hostile {
		for name, fn := range map[string]func(string) (Device, error){
			"DiskWWN": DiskWWN, "DiskSerialShort": DiskSerialShort, "DiskSerial": DiskSerial,
			"DMUUID": DMUUID, "LoopBacking": LoopBacking, "NetMAC": NetMAC, "MDArray": MDArray,
		} {
			if _, err := fn(v); err == nil {
				t.Errorf("%s(%q) accepted", name, v)
			} else if strings.ContainsAny(err.Error(), "\n\r\x00\x1b") {
				t.Errorf("%s(%q): the error echoes the raw value: %q", name, v, err)
			}
		}
		if _, err := LoopBacking("/srv/" + v); err == nil && v != "" && v != "*" {
			t.Errorf("LoopBacking(/srv/%q) accepted", v)
		}
		if l, err := AttrRule(disk, "queue/scheduler", v); err == nil {
			t.Errorf("AttrRule value %q accepted: %s", v, l)
		}
		if l, err := AttrRule(disk, v, "bfq"); err == nil {
			t.Errorf("AttrRule attr %q accepted: %s", v, l)
		}
		if l, err := ERCRule(disk, v); err == nil {
			t.Errorf("ERCRule %q accepted: %s", v, l)
		}
		if _, err := Disk(v, v, v); err == nil {
			t.Errorf("Disk(%q) accepted", v)
		}
		if err := CheckUdevRule(`ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_WWN}=="` + v + `", ATTR{queue/scheduler}="bfq"`); err == nil {
			t.Errorf("CheckUdevRule passes a line holding %q", v)
		}
	}
	for _, line := range []string{
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=="x", RUN+="/bin/sh -c id"`,
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=="x", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k", RUN+="/bin/sh"`,
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=="x", ATTR{queue/scheduler}="bfq", ATTR{queue/nr_requests}="8"`,
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=="x", ATTR{uevent}="add"`,
		`ACTION=="add", SUBSYSTEM=="block", PROGRAM=="/bin/sh", ATTR{queue/scheduler}="bfq"`,
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=="x",  ATTR{queue/scheduler}="bfq"`,
		`ACTION=="add", SUBSYSTEM=="block", ENV{ID_SERIAL}=e"x", ATTR{queue/scheduler}="bfq"`,
	} {
		if err := CheckUdevRule(line); err == nil {
			t.Errorf("CheckUdevRule passes %s", line)
		}
	}
}

func TestUdevWritersMakeIntendedRules(t *testing.T) {
	devs := map[string]func() (Device, error){
		"wwn":    func() (Device, error) { return DiskWWN("0x5000c500a1b2c3d4") },
		"short":  func() (Device, error) { return DiskSerialShort("WD-WCC4E1234567") },
		"serial": func() (Device, error) { return DiskSerial("ST4000VN008-2DR166_ZDH04100") },
		"nvme":   func() (Device, error) { return Disk("eui.0025388b91b2c3d4", "", "") },
		"md":     func() (Device, error) { return MDArray("md127") },
		"dm":     func() (Device, error) { return DMUUID("CRYPT-LUKS2-0123abcd-data") },
		"loop":   func() (Device, error) { return LoopBacking("/srv/images/disk-1.img") },
		"net":    func() (Device, error) { return NetMAC("52:54:00:12:34:56") },
	}
	want := map[string]string{
		"wwn":    `ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_WWN}=="0x5000c500a1b2c3d4", ATTR{queue/scheduler}="mq-deadline"`,
		"md":     `ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="md127", ATTR{queue/scheduler}="mq-deadline"`,
		"loop":   `ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="loop*", ATTR{loop/backing_file}=="/srv/images/disk-1.img", ATTR{queue/scheduler}="mq-deadline"`,
		"net":    `ACTION=="add", SUBSYSTEM=="net", ATTR{address}=="52:54:00:12:34:56", ATTR{bonding/xmit_hash_policy}="layer3+4"`,
		"serial": `ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{ID_SERIAL}=="ST4000VN008-2DR166_ZDH04100", RUN+="/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%k"`,
	}
	for name, mk := range devs {
		d, err := mk()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var line string
		switch {
		case name == "net":
			line, err = AttrRule(d, "bonding/xmit_hash_policy", "layer3+4")
		case name == "serial":
			line, err = ERCRule(d, "70,70")
		default:
			line, err = AttrRule(d, "queue/scheduler", "mq-deadline")
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		intended(t, line)
		if w, ok := want[name]; ok && line != w {
			t.Errorf("%s:\n got %s\nwant %s", name, line, w)
		}
		if k, ok := UdevRuleKey(line); !ok || strings.Contains(k, "mq-deadline") || strings.Contains(k, "70,70") {
			t.Errorf("%s: key %q %v", name, k, ok)
		}
	}
	// Disk falls back past a refused WWN to a clean serial.
	if d, err := Disk(`naa.5", RUN+="x`, "ZDH04100", ""); err != nil || d.match[0].value != "ZDH04100" {
		t.Errorf("Disk fallback: %+v %v", d, err)
	}
	if _, err := Disk("", "", ""); err != ErrNoID {
		t.Errorf("no identifiers: %v", err)
	}
}

// FuzzDiskRule: whatever identifier a device reports, the rule is either
// refused or exactly the intended keys, matching that identifier literally.
func FuzzDiskRule(f *testing.F) {
	for _, v := range hostile {
		f.Add(v)
	}
	f.Add("WD-WCC4E1234567")
	f.Fuzz(func(t *testing.T, v string) {
		for _, fn := range []func(string) (Device, error){DiskWWN, DiskSerialShort, DiskSerial, DMUUID} {
			d, err := fn(v)
			if err != nil {
				continue
			}
			for _, mk := range []func() (string, error){
				func() (string, error) { return AttrRule(d, "queue/read_ahead_kb", "4096") },
				func() (string, error) { return ERCRule(d, "70,70") },
			} {
				line, err := mk()
				if err != nil {
					continue
				}
				toks := intended(t, line)
				if got := toks[len(toks)-2].Value; got != v {
					t.Fatalf("%q matched as %q", v, got)
				}
			}
		}
	})
}

func TestSysctlLine(t *testing.T) {
	for _, c := range []struct{ k, v, want string }{
		{"vm.dirty_bytes", "268435456", "vm.dirty_bytes = 268435456"},
		{"net.ipv4.tcp_rmem", "4096\t131072  6291456", "net.ipv4.tcp_rmem = 4096 131072 6291456"},
		{"net.ipv4.conf.br-lan.rp_filter", "1", "net.ipv4.conf.br-lan.rp_filter = 1"},
		{"net.core.default_qdisc", "fq_codel", "net.core.default_qdisc = fq_codel"},
	} {
		got, err := SysctlLine(c.k, c.v)
		if err != nil || got != c.want {
			t.Errorf("SysctlLine(%q, %q) = %q, %v", c.k, c.v, got, err)
		}
		if k, _, err := ParseSysctlLine(got); err != nil || k != c.k {
			t.Errorf("ParseSysctlLine(%q) = %q, %v", got, k, err)
		}
	}
	for _, v := range append(hostile, "-vm.x", "vm.*", "vm", "vm.x\nkernel.core_pattern", "1\nkernel.core_pattern = |/tmp/x") {
		if l, err := SysctlLine(v, "1"); err == nil {
			t.Errorf("key %q accepted: %q", v, l)
		}
		switch v {
		case "RUN+=", "a b", "a=b", " ", "\t":
			continue // a harmless value (or white space) for sysctl.d: checked below
		}
		if l, err := SysctlLine("vm.swappiness", v); err == nil && strings.ContainsAny(v, "\n\r\x00\x1b#;=\"\\|$%") {
			t.Errorf("value %q accepted: %q", v, l)
		}
	}
	if l, err := SysctlLine("vm.swappiness", "1 = 2"); err == nil {
		t.Errorf("'=' in a value accepted: %q", l)
	}
}

func TestModprobeOption(t *testing.T) {
	if l, err := ModprobeOption("zfs", "zfs_arc_max", "4294967296"); err != nil || l != "options zfs zfs_arc_max=4294967296" {
		t.Errorf("%q %v", l, err)
	} else if k, err := ModprobeKey(l); err != nil || k != "options zfs zfs_arc_max" {
		t.Errorf("key %q %v", k, err)
	}
	for _, v := range append(hostile, "1 zfs_prefetch_disable=1", "1\ninstall zfs /bin/sh") {
		if l, err := ModprobeOption("zfs", "zfs_arc_max", v); err == nil && v != "a,b" { // a comma list is an array parameter
			t.Errorf("value %q accepted: %q", v, l)
		}
		if l, err := ModprobeOption("zfs", v, "1"); err == nil {
			t.Errorf("option %q accepted: %q", v, l)
		}
	}
}

func TestIniWriters(t *testing.T) {
	src := []byte("[global]\n\tworkgroup = HOME\n")
	out, err := EditSmbConf(src, "global", "socket options", "TCP_NODELAY IPTOS_LOWDELAY")
	if err != nil || string(out) != "[global]\n\tworkgroup = HOME\n\tsocket options = TCP_NODELAY IPTOS_LOWDELAY\n" {
		t.Errorf("%q %v", out, err)
	}
	for _, v := range append(hostile, "x\n[homes]", "x \\", "yes ; no", "[x]", "%U") {
		safe := !strings.ContainsAny(v, "\n\r\x00\x1b[]\\;#%\t") && strings.TrimSpace(v) == v && v != "" && len(v) <= 1024 && ascii(v)
		breaks := strings.ContainsAny(v, "\n\r\x00\x1b[]\\;#=") || strings.TrimSpace(v) != v || v == "" || len(v) > 64
		if _, err := EditSmbConf(src, "global", "server signing", v); (err == nil) != safe {
			t.Errorf("smb.conf value %q: err %v", v, err)
		}
		if _, err := EditSmbConf(src, v, "browseable", "no"); err == nil && breaks {
			t.Errorf("smb.conf section %q accepted", v)
		}
		if _, err := EditSmbConf(src, "global", v, "no"); err == nil && breaks {
			t.Errorf("smb.conf parameter %q accepted", v)
		}
		if _, err := EditNFSConf(nil, "nfsd", "threads", v); err == nil && v != "RUN+=" && v != "a b" && v != "a,b" {
			t.Errorf("nfs.conf value %q accepted", v)
		}
		if _, err := EditShellVar(nil, "RPCNFSDCOUNT", v); err == nil && v != "RUN+=" && v != "a,b" {
			t.Errorf("shell value %q accepted", v)
		}
	}
	for _, v := range []string{"8;reboot", "$(id)", "`id`", "8 9", "'8'"} {
		if _, err := EditShellVar(nil, "RPCNFSDCOUNT", v); err == nil {
			t.Errorf("shell value %q accepted", v)
		}
	}
	if out, err := EditShellVar([]byte("RPCNFSDCOUNT=\"8\"\n"), "RPCNFSDCOUNT", "16"); err != nil || string(out) != "RPCNFSDCOUNT=\"16\"\n" {
		t.Errorf("%q %v", out, err)
	}
	if out, err := EditNFSConf([]byte("[nfsd]\n# threads=8\n"), "nfsd", "threads", "16"); err != nil || !strings.Contains(string(out), "threads = 16\n") {
		t.Errorf("%q %v", out, err)
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestShow(t *testing.T) {
	// A manual instruction is often a command the admin pastes into a
	// root shell: a value is one inert shell word, never an expansion.
	for in, want := range map[string]string{"180": "180", "mq-deadline": "mq-deadline", "layer3+4": "layer3+4",
		"/dev/disk/by-id/ata-X_1:2": "/dev/disk/by-id/ata-X_1:2", "a b": "'a b'",
		"$(id)": "'$(id)'", "x;reboot": "'x;reboot'", "`id`": "'`id`'", "a'b": `'a'\''b'`, "*": "'*'", "~root": "'~root'",
		"a\x1b[2J": `'a\x1b[2J'`, "a\nb": `'a\nb'`, `a"b`: `'a"b'`, "é": `'\u00e9'`, "": "''"} {
		got := Show(in)
		if got != want {
			t.Errorf("Show(%q) = %s, want %s", in, got, want)
		}
		if strings.ContainsAny(got, "\x00\x1b\n\r") {
			t.Errorf("Show(%q) = %q holds a control byte", in, got)
		}
	}
}

// A serial that is clean but too long is refused for its length, and the
// message says so instead of blaming its characters.
func TestLongIdentifierSaysLength(t *testing.T) {
	_, err := DiskSerial(strings.Repeat("A", 200))
	var re *RefusedError
	if !errors.As(err, &re) || re.TooLong != maxID || !strings.Contains(err.Error(), "200 bytes, longer than a udev rule carries here (at most 128)") {
		t.Errorf("200-byte serial: %v", err)
	}
	if _, err := DiskSerial(strings.Repeat("A", 200) + `"`); err == nil || strings.Contains(err.Error(), "longer than") {
		t.Errorf("long serial with a quote must be refused for its characters: %v", err)
	}
}
