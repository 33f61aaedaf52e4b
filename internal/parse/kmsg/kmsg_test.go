package kmsg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	cases := []struct{ msg, kind, key string }{
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
		// Formats from the kernel source (block/blk-core.c 4.x-5.2,
		// drivers/usb/core/hub.c since 5.11) and near misses.
		{"print_req_error: I/O error, dev sdb, sector 0 flags 80700", "io-error", "sdb"},
		{"blk_update_request: I/O error, dev sdc, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 0", "io-error", "sdc"},
		{"I/O error, dev ?, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0", "", ""},
		{"usb 2-1: reset SuperSpeed Plus Gen 2x1 USB device number 3 using xhci_hcd", "usb-reset", "2-1"},
		{"usb 1-1: new high-speed USB device number 2 using ehci-pci", "", ""},
		{"ata1.00: error: { UNC }, and more", "", ""},
		{"I/O error, dev sda, sector 2048 and then some", "", ""},
	}
	for _, c := range cases {
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
		"lab-6.1-forged.txt":                 {"link-up"},
	}
	// Real kernel 6.1 output (dmesg -r in the kernel lab): root's write
	// of a medium error to /dev/kmsg (filed <11>, user.err) and the
	// kernel's segfault and traps lines for programs named like medium
	// errors give nothing but the boot's link-up lines.
	only := map[string][]string{"lab-6.1-forged.txt": {"link-up", "link-up"}}
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
		if o, ok := only[filepath.Base(f)]; ok {
			var got []string
			for _, e := range Parse(b) {
				got = append(got, e.Kind)
			}
			if strings.Join(got, ",") != strings.Join(o, ",") {
				t.Errorf("%s: events %v, want exactly %v", filepath.Base(f), got, o)
			}
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
		"[    2.200000] I/O error, dev sdb, sector 8\n" +
		"[    2.300000] critical medium[294]: segfault at 0 ip 0000000000400078 sp 00007ffc9c4725b0 error 4 in critical medium error, dev sda, sector 2048[400000+1000]\n"
	got := string(Storage([]byte(in)))
	want := "[    1.842113] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n" +
		"[    2.000000] sd 0:0:0:0: [sda] 3907029168 512-byte logical blocks\n" +
		"[    2.100000] md/raid:md0: device sdb1 operational as raid disk 1\n" +
		"[    2.200000] I/O error, dev sdb, sector 8\n"
	if got != want {
		t.Errorf("Storage:\n%s\nwant\n%s", got, want)
	}
	// Every real log keeps all its events through Storage, and so do the
	// old kernels' forms the prefix list alone would drop.
	files, _ := filepath.Glob("../../../testdata/real/kmsg/*")
	if len(files) == 0 {
		t.Fatal("no real kernel logs in testdata/real/kmsg")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || filepath.Base(f) == "ORIGIN" {
			continue
		}
		if a, s := len(Parse(b)), len(Parse(Storage(b))); a != s {
			t.Errorf("%s: %d events, %d after Storage", filepath.Base(f), a, s)
		}
	}
	old := "[   10.000000] raid5:md0: read error not correctable (sector 123 on sdb1).\n" +
		"[   11.000000] end_request: I/O error, dev sdc, sector 2048\n"
	if a, s := len(Parse([]byte(old))), len(Parse(Storage([]byte(old)))); a != 2 || s != 2 {
		t.Errorf("old kernels' forms: %d events, %d after Storage; want 2 and 2", a, s)
	}
}

// hostileLines are what a local user (or a program running as one) can
// put into a kernel log that nastune reads: a trap or segfault report
// quoting a process or file name they chose, a record written to
// /dev/kmsg (facility LOG_USER, THREATS.md), a syslog or journal line of
// their own, a USB device's product string, an audit record quoting a
// path. None is evidence about a disk. Each matched a pattern before the
// patterns were anchored and tied to the kernel's facility.
var hostileLines = map[string]string{
	"traps line quoting a file named like a medium error": "[ 1234.567890] traps: a.out[4321] general protection fault ip:401000 sp:7ffd00000000 error:0 in critical medium error, dev sda, sector 2048[400000+1000]",
	"traps line quoting a file named like an I/O error":   "[ 1234.567890] traps: a.out[4321] trap invalid opcode ip:401000 sp:7ffd00000000 error:0 in backup: I/O error, dev sda, sector 2048[400000+1000]",
	"segfault of a process named like a medium error":     "[ 1234.567890] critical medium[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in critical medium error, dev sda, sector 2048[400000+1000]",
	"segfault of a process named like an ATA error":       "[ 1234.567890] ata1: error: {[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in UNC }[400000+1000]",
	"segfault of a process named like a USB reset":        "[ 1234.567890] usb 1-1: reset [4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in x USB device number 2 using xhci_hcd[400000+1000]",
	"USB product string with the pattern in the middle":   "[    3.100000] usb 1-1: Product: critical medium error, dev sda, sector 2048",
	"audit record quoting a path":                         `[ 1234.567890] audit: type=1400 audit(1700000000.000:42): apparmor="DENIED" operation="open" name="/tmp/critical medium error, dev sda, sector 2048" pid=4321 comm="cat"`,
	"user-facility kmsg record (user.err), medium error":  "11,345,6789012,-;critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0",
	"user-facility kmsg record (user.warn), sense key":    "12,346,6789013,-;sd 0:0:0:0: [sda] tag#3 Sense Key : Medium Error [current]",
	"user-facility kmsg record (daemon.err), CRC":         "27,347,6789014,-;ata1: SError: { UnrecovData BadCRC }",
	"syslog line of another program":                      "Nov 27 12:00:00 nas backup[99]: critical medium error, dev sda, sector 2048",
	"journal line of a process tagged kernel":             "Nov 27 12:00:00 nas kernel[99]: I/O error, dev sda, sector 2048",
	"ISO syslog line of another program":                  "2026-11-27T12:00:00.123456+00:00 nas backup[99]: critical medium error, dev sda, sector 2048",
	"dmesg -r line with a user facility":                  "<12>[    5.000000] critical medium error, dev sda, sector 2048",
	"dmesg -x line with a user facility":                  "user  :warn  : [    5.000000] critical medium error, dev sda, sector 2048",
	"journal JSON record from syslog named kernel":        `{"_TRANSPORT":"syslog","SYSLOG_IDENTIFIER":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"critical medium error, dev sda, sector 2048"}`,
}

func TestHostileLines(t *testing.T) {
	for name, l := range hostileLines {
		t.Run(name, func(t *testing.T) {
			if evs := Parse([]byte(l + "\n")); len(evs) != 0 {
				t.Errorf("%q gave %+v", l, evs)
			}
		})
	}
}

// TestKernelForms: the same genuine message in every form the package
// reads is one event (positive controls for TestHostileLines).
func TestKernelForms(t *testing.T) {
	const msg = "critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0"
	for _, l := range []string{
		"3,345,6789012,-;" + msg,
		"3,345,6789012,-,caller=T42;" + msg,
		"[    5.000000] " + msg,
		"[    5.000000][  T42] " + msg,
		"[Tue Oct 27 08:51:30 2020] " + msg,
		"<3>[    5.000000] " + msg,
		"kern  :err   : [    5.000000] " + msg,
		"2026-11-27T12:00:00,123456+00:00 " + msg,
		"Nov 27 12:00:00 nas kernel: " + msg,
		"Nov 27 12:00:00 nas kernel: [    5.000000] " + msg,
		"Nov 27 12:00:00.123456 nas kernel: " + msg,
		"2026-11-27T12:00:00.123456+00:00 nas kernel: " + msg,
		`{"_TRANSPORT":"kernel","PRIORITY":"3","SYSLOG_FACILITY":"0","MESSAGE":"` + msg + `"}`,
		msg,
	} {
		evs := Parse([]byte(l + "\n"))
		if len(evs) != 1 || evs[0].Kind != "media" || evs[0].Key != "sda" || evs[0].Line != msg {
			t.Errorf("%q: got %+v, want one media event on sda", l, evs)
		}
	}
}

// A record user space wrote to /dev/kmsg is not turned into a dmesg line:
// saved in a snapshot it would lose the facility that marks it.
func TestFormatRecordDropsUserRecords(t *testing.T) {
	for _, rec := range []string{
		"12,1,0,-;critical medium error, dev sda, sector 2048",
		"14,2,0,-;ata1: hard resetting link",
		"x,3,0,-;ata1: hard resetting link",
	} {
		if l, ok := FormatRecord([]byte(rec)); ok {
			t.Errorf("%q → %q", rec, l)
		}
	}
}

// Parse and Messages return strings of their own: the log's buffer can
// be reused (the live audit reads the kernel log into one) without
// changing an event already parsed.
func TestResultsOutliveTheBuffer(t *testing.T) {
	b := []byte("[    1.000000] ata3: hard resetting link\n[    2.000000] ata3.00: error: { UNC }\n")
	evs, msgs := Parse(b), Messages(b)
	if len(evs) == 0 || len(msgs) != 2 {
		t.Fatalf("events %v, messages %q", evs, msgs)
	}
	wantLine, wantKey, wantMsg := evs[0].Line, evs[0].Key, msgs[0]
	line, key, msg := strings.Clone(wantLine), strings.Clone(wantKey), strings.Clone(wantMsg)
	for i := range b {
		b[i] = 'x'
	}
	if evs[0].Line != line || evs[0].Key != key || msgs[0] != msg {
		t.Errorf("after the buffer changed: line %q key %q message %q", evs[0].Line, evs[0].Key, msgs[0])
	}
}
