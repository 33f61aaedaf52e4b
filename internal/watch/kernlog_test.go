package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/probe"
)

func realLog(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "kmsg", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stalledDisk: d holds requests and completes none for n intervals, then
// completes again.
func stalledDisk(d string, n int, ev []KernelEvent) []Sample {
	var out []Sample
	for i := 0; i < 5; i++ {
		ds := DiskSample{Name: d, ReadIOPS: 120, UtilPct: 30, InFlight: 1}
		if i >= 1 && i < 1+n {
			ds = DiskSample{Name: d, InFlight: 31, UtilPct: 100}
		}
		s := Sample{T: float64(i + 1), Interval: 1, Disks: []DiskSample{ds}}
		if i == 2 {
			s.KernelEvents = ev
		}
		out = append(out, s)
	}
	return out
}

// busyDisk: d is busy all the time (a disk verdict of its own).
func busyDisk(d string, ev []KernelEvent) []Sample {
	var out []Sample
	for i := 0; i < 5; i++ {
		s := Sample{T: float64(i + 1), Interval: 1, Disks: []DiskSample{{Name: d, ReadIOPS: 80, ReadBps: 10e6, UtilPct: 99, AwaitMS: 900, QueueDepth: 30, InFlight: 30, Rotational: true}}}
		if i == 3 {
			s.KernelEvents = ev
		}
		out = append(out, s)
	}
	return out
}

func TestKernelErrorsNameTheDisk(t *testing.T) {
	keys := probe.KernelLogDisks(&facts.Host{Block: []facts.BlockDevice{
		{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{Port: "ata1"}, Partitions: []facts.Partition{{Name: "sda1"}}},
		{Name: "sde", Kind: "disk"}, {Name: "nvme2n1", Kind: "disk"}}})
	crc := classify(realLog(t, "sunxi-24-badcrc.txt"), keys)          // BadCRC, hard resetting link on ata1
	uas := classify(realLog(t, "friendlyarm-12-uas-abort.txt"), keys) // uas_eh_abort_handler on [sda]
	medium := classify(realLog(t, "longhorn-1920-medium-error.txt"), keys)
	nvme := classify(realLog(t, "nvme-cli-151-timeout-reset.txt"), keys)
	for name, ev := range map[string][]KernelEvent{"crc": crc, "uas": uas, "medium": medium, "nvme": nvme} {
		if len(ev) == 0 {
			t.Fatalf("%s: no error events from the real log", name)
		}
	}
	for _, e := range crc {
		if e.Kind == "link-up" {
			t.Error("a link coming up counted as an error")
		}
	}
	cases := []struct {
		name     string
		samples  []Sample
		disk     string // "" = no disk named for errors
		evidence string
		next     string
	}{
		{"stall with CRC errors on its port", stalledDisk("sda", 3, crc), "sda", "ata1: SError: { UnrecovData BadCRC }", "cable, port"},
		{"stall with UAS aborts", stalledDisk("sda", 2, uas), "sda", "uas_eh_abort_handler", "USB bridge"},
		{"stall with medium errors", stalledDisk("sde", 2, medium), "sde", "critical medium error, dev sde", "replace it"},
		{"stall with NVMe timeouts", stalledDisk("nvme2n1", 2, nvme), "nvme2n1", "nvme nvme2: I/O 0 QID 0 timeout", "replace it"},
		{"busy disk with CRC errors", busyDisk("sda", crc), "sda", "BadCRC", "cable, port"},
		{"one stalled interval is not a stall", stalledDisk("sda", 1, crc), "", "", ""},
		{"stall without errors is not blamed on hardware", stalledDisk("sda", 3, nil), "", "", ""},
		{"errors for another disk", stalledDisk("sdb", 3, crc), "", "", ""},
		{"errors not mapped to a disk", stalledDisk("sda", 3, classify(realLog(t, "sunxi-24-badcrc.txt"), nil)), "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs := Bottlenecks(c.samples)
			var hit *Bottleneck
			for i := range bs {
				for _, e := range bs[i].Evidence {
					if strings.HasPrefix(e, "kernel log: ") {
						hit = &bs[i]
					}
				}
			}
			if c.disk == "" {
				if hit != nil {
					t.Fatalf("kernel errors cited: %+v", *hit)
				}
				return
			}
			if hit == nil || hit.Subject != c.disk || hit.Kind != "disk" {
				t.Fatalf("no disk verdict citing the log for %s: %+v", c.disk, bs)
			}
			if &bs[0] != hit {
				t.Errorf("the failing disk is not the first bottleneck: %+v", bs)
			}
			if !strings.Contains(strings.Join(hit.Evidence, "\n"), c.evidence) {
				t.Errorf("evidence lacks %q: %q", c.evidence, hit.Evidence)
			}
			if !strings.Contains(hit.Next, c.next) || !strings.Contains(hit.Next, "nastune audit --only health-") || !strings.Contains(hit.Next, "not tuning") {
				t.Errorf("next = %q", hit.Next)
			}
			if n := strings.Count(strings.Join(hit.Evidence, "\n"), "kernel log: "); n > 4 {
				t.Errorf("%d log lines cited", n)
			}
		})
	}
}

// Without the kernel log the watch lists it as not collected; a FIFO at
// its path is refused (hostfs.KernelLog: not a character device), not
// followed.
func TestKernelLogNotCollected(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "kmsg")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	old := pathKmsg
	defer func() { pathKmsg = old }()
	for _, c := range []struct{ path, want string }{
		{fifo + ".none", "no such file"},
		{fifo, "not a character device (a FIFO)"},
	} {
		pathKmsg = c.path
		s := &Sampler{Skipped: map[string]string{}, devs: map[string]devInfo{"sda": {}}}
		s.openKernelLog()
		if s.kl != nil || !strings.Contains(s.Skipped[c.path], c.want) {
			t.Errorf("%s: skipped = %v, want %q", c.path, s.Skipped, c.want)
		}
	}
}

// TestKernelLogTail: as root, the live /dev/kmsg opens at its end and a
// read returns at once (nothing logged since, or only what was).
func TestKernelLogTail(t *testing.T) {
	k, err := openKmsgTail("/dev/kmsg")
	if err != nil {
		if _, serr := os.Stat("/dev/kmsg"); os.Geteuid() == 0 && serr == nil {
			t.Fatalf("root cannot open the kernel log: %v", err)
		}
		t.Skipf("no kernel log: %v", err)
	}
	defer k.Close()
	got := make(chan []KernelEvent, 1)
	go func() { got <- k.read() }()
	var evs []KernelEvent
	select {
	case evs = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("read of the kernel log's tail blocked (it must return at once)")
	}
	for _, e := range evs {
		if !errorKinds[e.Kind] {
			t.Errorf("non-error event %+v", e)
		}
	}
}

// TestHostileKernelLines: what a local user can get into the kernel log
// (THREATS.md: a trap or segfault line quoting a name they chose, a
// record they wrote to /dev/kmsg, a line with the pattern in the middle)
// is no error event, so a disk stalled or busy while it happens is not
// blamed on its hardware. Each line below was an error event on sda
// before (the watch shares internal/parse/kmsg with audit).
func TestHostileKernelLines(t *testing.T) {
	keys := probe.KernelLogDisks(&facts.Host{Block: []facts.BlockDevice{
		{Name: "sda", Kind: "disk", Health: &facts.DiskHealth{Port: "ata1", SCSIAddr: "0:0:0:0"}, USB: &facts.USBLink{Device: "1-1"}}}})
	for name, l := range map[string]string{
		"traps line":          "[ 1234.567890] traps: a.out[4321] general protection fault ip:401000 sp:7ffd00000000 error:0 in critical medium error, dev sda, sector 2048[400000+1000]",
		"segfault line":       "[ 1234.567891] critical medium[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in critical medium error, dev sda, sector 2048[400000+1000]",
		"segfault, ATA name":  "[ 1234.567892] ata1: error: {[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in UNC }[400000+1000]",
		"segfault, USB name":  "[ 1234.567893] usb 1-1: reset [4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in x USB device number 2 using xhci_hcd[400000+1000]",
		"pattern in a string": "[    3.100000] usb 1-1: Product: critical medium error, dev sda, sector 2048",
	} {
		t.Run(name, func(t *testing.T) {
			ev := classify([]byte(l+"\n"), keys)
			if len(ev) != 0 {
				t.Fatalf("error events from a hostile line: %+v", ev)
			}
			for _, b := range Bottlenecks(stalledDisk("sda", 3, ev)) {
				if strings.Contains(strings.Join(b.Evidence, "\n"), "kernel log: ") {
					t.Errorf("verdict cites the log: %+v", b)
				}
			}
		})
	}
	// What the tail reads from /dev/kmsg: a record user space wrote
	// (facility user) is no event, the kernel's own record of the same
	// message is one (positive control).
	for _, c := range []struct {
		rec  string
		want int
	}{
		{"11,345,1234567894,-;critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n", 0},
		{"12,346,1234567895,-;ata1: SError: { UnrecovData BadCRC }\n", 0},
		{"3,347,1234567896,-;critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n SUBSYSTEM=block\n", 1},
	} {
		done := false
		k := &kmsgTail{disks: keys, log: hostfs.ReplayKernelLog(pathKmsg, func(b []byte) (int, error) {
			if done {
				return 0, unix.EAGAIN
			}
			done = true
			return copy(b, c.rec), nil
		})}
		if ev := k.read(); len(ev) != c.want || c.want == 1 && ev[0].Disk != "sda" {
			t.Errorf("%q: events %+v, want %d on sda", c.rec, ev, c.want)
		}
	}
}
