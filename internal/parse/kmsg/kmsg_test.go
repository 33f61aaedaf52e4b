package kmsg

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var classifyCases = []struct{ msg, kind, key string }{
	{"ata1: SError: { UnrecovData BadCRC }", "link-crc", "ata1"},
	{"ata3.00: error: { ICRC ABRT }", "link-crc", "ata3"},
	{"ata1: SError: { RecovComm PHYRdyChg CommWake DevExch }", "", ""},
	{"ata3.00: error: { UNC }", "media", "ata3"},
	{"ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 300)", "link-up", "ata2"},
	{"ata1: limiting SATA link speed to 1.5 Gbps", "link-slow", "ata1"},
	{"ata1.00: hard resetting link", "link-reset", "ata1"},
	{"ata1.00: exception Emask 0x10 SAct 0x1 SErr 0x200100 action 0x6 frozen", "ata-error", "ata1"},
	{"blk_update_request: critical medium error, dev sde, sector 3260792 op 0x0:(READ) flags 0x80700", "media", "sde"},
	{"sd 3:0:0:1: [sde] tag#40 Sense Key : Medium Error [current]", "media", "sde"},
	{"I/O error, dev sdb, sector 14010528 op 0x0:(READ) flags 0x0 phys_seg 64 prio class 2", "io-error", "sdb"},
	{"blk_update_request: I/O error, dev sdc, sector 2048", "io-error", "sdc"},
	{"Buffer I/O error on dev sdb, logical block 640, lost async page write", "", ""},
	{"sd 0:0:0:0: [sda] tag#26 uas_eh_abort_handler 0 uas-tag 10 inflight: CMD IN", "uas-abort", "sda"},
	{"sd 2:0:0:0: uas_eh_abort_handler 0 uas-tag 1 inflight: CMD", "uas-abort", "2:0:0:0"},
	{"scsi host6: uas_eh_device_reset_handler start", "uas-reset", "host6"},
	{"usb 2-1.2: reset SuperSpeed USB device number 25 using xhci_hcd", "usb-reset", "2-1.2"},
	{"usb 4-1: reset SuperSpeed Gen 1 USB device number 2 using xhci_hcd", "usb-reset", "4-1"},
	{"usb 1-1: reset high-speed USB device number 3 using ehci-pci", "usb-reset", "1-1"},
	{"nvme nvme2: I/O 0 QID 0 timeout, reset controller", "nvme-timeout", "nvme2"},
	{"nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0x10", "nvme-reset", "nvme0"},
	{"md/raid:md2: read error not correctable (sector 2208 on sdb6).", "md-read-error", "sdb6"},
	{"md/raid:md0: read error corrected (8 sectors at 262144 on sdc1)", "md-corrected", "sdc1"},
	{"md/raid1:md1: Disk failure on sdb2, disabling device.", "md-failed", "sdb2"},
	{"EXT4-fs (sda1): mounted filesystem with ordered data mode.", "", ""},
	// Formats of other kernel versions (drivers/nvme/host/pci.c since 6.2,
	// drivers/scsi before 4.x, drivers/md/raid5.c, raid1.c, raid10.c).
	{"sd 0:0:0:0: [sda]  Sense Key : Medium Error [current] [descriptor]", "media", "sda"},
	{"nvme nvme1: I/O tag 0 (3000) opcode 0x1 (I/O Cmd) QID 1 timeout, aborting req_op:WRITE(1) size:131072", "nvme-timeout", "nvme1"},
	{"nvme nvme1: I/O tag 192 (80c0) opcode 0x1 (I/O Cmd) QID 1 timeout, reset controller", "nvme-timeout", "nvme1"},
	{"nvme nvme1: I/O tag 28 (301c) QID 0 timeout, disable controller", "nvme-timeout", "nvme1"},
	{"md/raid:md127: read error NOT corrected!! (sector 12345 on dm-3).", "md-read-error", "dm-3"},
	{"raid5:md0: read error not correctable (sector 123 on sdb1).", "md-read-error", "sdb1"},
	{"md/raid1:md0: sdb1: unrecoverable I/O read error for block 1234", "md-read-error", "sdb1"},
	{"md/raid10:md2: sdd2: unrecoverable I/O read error for block 99", "md-read-error", "sdd2"},
	{"md/raid:md0: Disk failure on dm-3, disabling device.", "md-failed", "dm-3"},
	{"md/raid1:md0: read error corrected (8 sectors at 2056 on dm-1)", "md-corrected", "dm-1"},
	{"blk_update_request: I/O error, dev dm-2, sector 2048", "io-error", "dm-2"},
}

func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		ev, ok := Classify(c.msg)
		if c.kind == "" {
			if ok {
				t.Errorf("%q: want nothing, got %+v", c.msg, ev)
			}
			continue
		}
		if !ok || ev.Kind != c.kind || ev.Key != c.key || ev.Line != c.msg {
			t.Errorf("%q: got %+v %v, want %s %s", c.msg, ev, ok, c.kind, c.key)
		}
	}
}

func TestMessages(t *testing.T) {
	in := "6,1234,5678901,-;ata1: hard resetting link\n SUBSYSTEM=scsi\n DEVICE=+scsi:0:0:0:0\n" +
		"[    5.678901] ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 310)\n" +
		"[Tue Oct 27 08:51:30 2020] I/O error, dev sdb, sector 8\n" +
		"Apr 16 07:07:38 host kernel: [33713.705845] blk_update_request: critical medium error, dev sdb, sector 5120\n" +
		"<4>ata1: limiting SATA link speed to 1.5 Gbps\n" +
		"                        res 40/00:b8:68:cf:35/00:00:00:00:00/40 Emask 0x10 (ATA bus error)\n"
	want := []string{"ata1: hard resetting link", "ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 310)",
		"I/O error, dev sdb, sector 8", "blk_update_request: critical medium error, dev sdb, sector 5120",
		"ata1: limiting SATA link speed to 1.5 Gbps"}
	got := Messages([]byte(in))
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestFormatRecord(t *testing.T) {
	for in, want := range map[string]string{
		"6,1234,5678901,-;ata1: hard resetting link":                   "[    5.678901] ata1: hard resetting link",
		"3,99,123456789012,c;x\\x09y\n SUBSYSTEM=scsi":                 "[123456.789012] x?y",
		"4,1,0,-;usb 2-1: reset SuperSpeed USB device number 2 u\\x41": "[    0.000000] usb 2-1: reset SuperSpeed USB device number 2 uA",
	} {
		if got, ok := FormatRecord([]byte(in)); !ok || got != want {
			t.Errorf("%q → %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "no semicolon", "a,b;text", "1,2,x;text"} {
		if _, ok := FormatRecord([]byte(bad)); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestCorpus: each real excerpt yields the events its ORIGIN line names.
func TestCorpus(t *testing.T) {
	want := map[string][]string{
		"sunxi-24-badcrc.txt":                {"link-crc", "link-reset", "link-up"},
		"buffalo-203-10b8b-1.5g.txt":         {"link-up", "link-crc"},
		"sunxi-41-limiting-speed.txt":        {"link-slow", "link-reset"},
		"tlp-59-lpm-1.5g.txt":                {"link-up"},
		"buffalo-161-pmp-abrt.txt":           {"link-reset", "ata-error"},
		"buffalo-161-md-not-correctable.txt": {"io-error", "md-failed", "media", "md-read-error"},
		"zfs-1814-unc.txt":                   {"media", "ata-error"},
		"bbf-29-unc-10b8b.txt":               {"link-crc", "media", "link-reset"},
		"longhorn-1920-medium-error.txt":     {"media"},
		"openebs-1433-syslog-medium.txt":     {"media"},
		"friendlyarm-12-uas-abort.txt":       {"uas-abort"},
		"rock64-112-uas-syslog.txt":          {"uas-abort"},
		"rpi-4844-uas-out.txt":               {"uas-abort"},
		"uas-3-usb-reset.txt":                {"usb-reset"},
		"nvme-cli-151-timeout-reset.txt":     {"nvme-timeout", "nvme-reset"},
		"rpi-6661-nvme-down.txt":             {"nvme-reset", "io-error"},
		"forum-2013-sense-double-space.txt":  {"media", "io-error"},
		"lkml-2025-nvme-tag-timeout.txt":     {"nvme-timeout"},
		"scylladb-1575-medium-tag.txt":       {"media"},
	}
	files, _ := filepath.Glob("../../../testdata/real/kmsg/*.txt")
	if len(files) < 15 {
		t.Errorf("%d kernel-log excerpts, want ≥ 15", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]bool{}
		for _, e := range Parse(b) {
			kinds[e.Kind] = true
		}
		w, ok := want[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no expectation", f)
		}
		for _, k := range w {
			if !kinds[k] {
				t.Errorf("%s: no %s event (got %v)", filepath.Base(f), k, kinds)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[ 1.0] ata1: SError: { BadCRC }\n6,1,2,-;usb 1-1: reset high-speed USB device number 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range Parse(b) {
			if e.Kind == "" || e.Line == "" {
				t.Fatalf("empty event %+v", e)
			}
		}
		FormatRecord(b)
	})
}

func TestStorage(t *testing.T) {
	in := "[    0.000000] Command line: root=/dev/sda1 secret=x\n" +
		"[    1.842113] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n" +
		"[    1.900000] e1000e 0000:00:19.0 eth0: 00:11:22:33:44:55\n" +
		"[    2.000000] sd 0:0:0:0: [sda] 3907029168 512-byte logical blocks\n" +
		"[    2.100000] md/raid:md0: device sdb1 operational as raid disk 1\n" +
		"[    2.200000] I/O error, dev sdb, sector 8\n"
	got := string(Storage([]byte(in)))
	want := "[    1.842113] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n" +
		"[    2.000000] sd 0:0:0:0: [sda] 3907029168 512-byte logical blocks\n" +
		"[    2.100000] md/raid:md0: device sdb1 operational as raid disk 1\n" +
		"[    2.200000] I/O error, dev sdb, sector 8\n"
	if got != want {
		t.Errorf("Storage:\n%s\nwant\n%s", got, want)
	}
	for _, f := range []string{"sunxi-24-badcrc.txt", "rpi-6661-nvme-down.txt", "uas-3-usb-reset.txt"} {
		b, _ := os.ReadFile(filepath.Join("../../../testdata/real/kmsg", f))
		if a, s := len(Parse(b)), len(Parse(Storage(b))); a != s {
			t.Errorf("%s: %d events, %d after Storage", f, a, s)
		}
	}
}

// messagesSlow and classifySlow are Messages and Classify without the
// first-byte guards and the prefilter.
func messagesSlow(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, " \r")
		if m := kmsgRecord.FindString(l); m != "" {
			l = l[len(m):]
		} else if strings.HasPrefix(l, " ") && strings.Contains(l, "=") && !strings.Contains(l, ": ") {
			continue
		}
		if m := syslogHead.FindString(l); m != "" {
			l = l[len(m):]
		} else if m := isoHead.FindString(l); m != "" {
			l = l[len(m):]
		}
		l = levelHead.ReplaceAllString(l, "")
		if m := stampHead.FindString(l); m != "" {
			l = l[len(m):]
		} else if m := ctimeHead.FindString(l); m != "" {
			l = l[len(m):]
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		out = append(out, l)
	}
	return out
}

func classifySlow(msg string) (string, string, bool) {
	for _, p := range patterns {
		m := p.re.FindStringSubmatch(msg)
		if m == nil || (p.when != nil && !p.when.MatchString(msg)) {
			continue
		}
		return p.kind, m[p.key], true
	}
	return "", "", false
}

// samePrefilter fails when the guards change what b gives.
func samePrefilter(t *testing.T, name string, b []byte) {
	t.Helper()
	fast, slow := Messages(b), messagesSlow(b)
	if strings.Join(fast, "\n") != strings.Join(slow, "\n") {
		t.Errorf("%s: Messages differs from the unguarded regexps:\n%q\n%q", name, fast, slow)
		return
	}
	for _, m := range slow {
		ev, ok := Classify(m)
		kind, key, sok := classifySlow(m)
		if ok != sok || ev.Kind != kind || ev.Key != key {
			t.Errorf("%s: %q: Classify = %s %s %v, every pattern = %s %s %v", name, m, ev.Kind, ev.Key, ok, kind, key, sok)
		}
	}
}

// TestPrefilter: the first-byte guards of Messages and the prefilter of
// Classify change nothing, on the real corpus, the cases above in every
// prefix form, and this machine's kernel log when readable.
func TestPrefilter(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/real/kmsg/*.txt")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		samePrefilter(t, f, b)
	}
	var b strings.Builder
	for _, c := range classifyCases {
		for _, head := range []string{"", "6,12,345,-;", "<3>", "[   12.345678] ", "[Mon Nov  3 10:00:00 2025] ",
			"Nov  3 10:00:00 nas kernel: ", "2025-11-03T10:00:00+01:00 nas kernel: [  1.0] "} {
			b.WriteString(head + c.msg + "\n")
		}
	}
	samePrefilter(t, "cases", []byte(b.String()))
	if _, err := os.Stat("/dev/kmsg"); err == nil {
		if out, err := exec.Command("dmesg").Output(); err == nil {
			samePrefilter(t, "dmesg", out)
		}
	}
	if mayMatch("EXT4-fs (sda1): mounted filesystem") || !mayMatch("blk_update_request: I/O error, dev sdc, sector 2048") {
		t.Error("mayMatch: wrong on a plain line")
	}
}
