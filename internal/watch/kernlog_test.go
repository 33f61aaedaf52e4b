package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	keys := map[string]string{"ata1": "sda", "sda": "sda", "sde": "sde", "nvme2": "nvme2n1", "sda1": "sda"}
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
			bs := Reason(c.samples)
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

// TestDiskKeys maps kernel-log names to disks through sysfs links as a
// real tree has them; names two disks share are left out.
func TestDiskKeys(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "devices")
	paths := map[string]string{
		"sda":     "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
		"sdb":     "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb",
		"sdc":     "pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sdc",
		"sdd":     "pci0000:00/0000:00:1f.2/ata3/host2/target2:1:0/2:1:0:0/block/sdd", // port multiplier
		"nvme0n1": "pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1",
	}
	sb := filepath.Join(dir, "block")
	os.MkdirAll(sb, 0o755)
	var disks []string
	for d, p := range paths {
		full := filepath.Join(dev, p)
		os.MkdirAll(full, 0o755)
		if d == "sda" {
			os.MkdirAll(filepath.Join(full, "sda1"), 0o755)
		}
		if err := os.Symlink(full, filepath.Join(sb, d)); err != nil {
			t.Fatal(err)
		}
		disks = append(disks, d)
	}
	k := diskKeys(sb, disks)
	want := map[string]string{"sda": "sda", "sda1": "sda", "ata1": "sda", "host0": "sda", "0:0:0:0": "sda",
		"2-1": "sdb", "6:0:0:0": "sdb", "host6": "sdb", "2:0:0:0": "sdc", "2:1:0:0": "sdd", "nvme0": "nvme0n1"}
	for key, d := range want {
		if k[key] != d {
			t.Errorf("%s → %q, want %q", key, k[key], d)
		}
	}
	for _, key := range []string{"ata3", "host2", "2-1:1.0", "usb2", "nvme"} {
		if d, ok := k[key]; ok {
			t.Errorf("%s → %q, want no mapping", key, d)
		}
	}
}

// Without the kernel log (not root) the watch lists it as not collected.
func TestKernelLogNotCollected(t *testing.T) {
	old := pathKmsg
	pathKmsg = filepath.Join(t.TempDir(), "kmsg")
	defer func() { pathKmsg = old }()
	s := &Sampler{Skipped: map[string]string{}, devs: map[string]devInfo{"sda": {}}}
	s.openKernelLog()
	if s.kl != nil || !strings.Contains(s.Skipped[pathKmsg], "needs root") {
		t.Fatalf("skipped = %v", s.Skipped)
	}
}

// TestKernelLogTail: as root, the live /dev/kmsg opens at its end and a
// read returns at once (nothing logged since, or only what was).
func TestKernelLogTail(t *testing.T) {
	k, err := openKmsgTail("/dev/kmsg", []string{"sda"})
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
