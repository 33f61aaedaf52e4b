package tune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/blockdev"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
)

// sysTree builds a sysfs layout as the kernel does: /sys/block/NAME links
// to /sys/devices/.../NAME, partitions are folders inside their disk with
// a "partition" file, /sys/class/block holds every device and partition,
// and slaves/ links to the members.
func sysTree(t *testing.T) string {
	t.Helper()
	sys := t.TempDir()
	mk := func(p, content string) {
		full := filepath.Join(sys, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		full := filepath.Join(sys, name)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.Symlink(filepath.Join(sys, target), full); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"sda", "sdb"} {
		dev := "devices/pci0000:00/ata1/" + d
		mk(dev+"/queue/read_ahead_kb", "128\n")
		mk(dev+"/queue/scheduler", "none [mq-deadline] kyber bfq\n")
		mk(dev+"/queue/nr_requests", "64\n")
		mk(dev+"/"+d+"1/partition", "1\n")
		mk(dev+"/"+d+"1/dev", "8:1\n")
		link(dev, "block/"+d)
		link(dev, "class/block/"+d)
		link(dev+"/"+d+"1", "class/block/"+d+"1")
	}
	md := "devices/virtual/block/md0"
	mk(md+"/queue/read_ahead_kb", "6144\n")
	mk(md+"/queue/scheduler", "none\n")
	mk(md+"/md/stripe_cache_size", "256\n")
	mk(md+"/md/raid_disks", "2\n")
	link(md, "block/md0")
	link(md, "class/block/md0")
	link("class/block/sda1", md+"/slaves/sda1")
	link("class/block/sdb1", md+"/slaves/sdb1")
	dm := "devices/virtual/block/dm-0"
	mk(dm+"/queue/read_ahead_kb", "128\n")
	mk(dm+"/dm/uuid", "CRYPT-LUKS2-abc-data\n")
	link(dm, "block/dm-0")
	link(dm, "class/block/dm-0")
	link("class/block/md0", dm+"/slaves/md0")
	return sys
}

func TestResolveThroughDmMdAndPartitions(t *testing.T) {
	sys := sysTree(t)
	r := Resolver{Sys: sys}
	var out []Device
	if err := r.walkName("dm-0", "filesystem of /srv", true, &out, map[string]bool{}, 0); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range out {
		names = append(names, d.Name+":"+d.Kind)
	}
	if got := strings.Join(names, " "); got != "dm-0:dm md0:md sda:disk sdb:disk" {
		t.Fatalf("devices: %s", got)
	}
	// Only the device the filesystem sits on has page-cache read-ahead.
	for _, d := range out {
		if d.PageCache != (d.Name == "dm-0") {
			t.Errorf("%s: page cache %v", d.Name, d.PageCache)
		}
	}
	// 2 GiB of RAM: stripe_cache_size entries cost 4 KiB × 2 disks; 10%
	// of RAM allows up to 26214 entries.
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 2 << 30, AvailableBytes: 1 << 30}}
	rot := true
	for _, n := range []string{"sda", "sdb"} {
		h.Block = append(h.Block, facts.BlockDevice{Name: n, Kind: "disk", Rotational: &rot, Scheduler: "mq-deadline", Schedulers: []string{"none", "mq-deadline", "kyber", "bfq"}})
	}
	knobs := Knobs(sys, out, h)
	byPath := map[string]Knob{}
	for _, k := range knobs {
		byPath[k.Path] = k
	}
	if k, ok := byPath["/sys/block/md0/md/stripe_cache_size"]; !ok || strings.Join(k.Values, ",") != "1024,4096,8192,16384" {
		t.Errorf("stripe cache: %+v", k)
	}
	if _, ok := byPath["/sys/block/md0/queue/scheduler"]; ok {
		t.Errorf("md has no scheduler to tune")
	}
	for _, n := range []string{"md0", "sda", "sdb"} {
		if _, ok := byPath["/sys/block/"+n+"/queue/read_ahead_kb"]; ok {
			t.Errorf("%s: read-ahead of a member is not on the page-cache path", n)
		}
	}
	// The audit warns about none and kyber on a rotating disk: never tried.
	if k := byPath["/sys/block/sda/queue/scheduler"]; strings.Join(k.Values, ",") != "bfq" || len(k.Skipped) != 2 {
		t.Errorf("sda scheduler: %+v", k)
	}
	if k := byPath["/sys/block/dm-0/queue/read_ahead_kb"]; strings.Join(k.Values, ",") != "128,512,1024,4096" && strings.Join(k.Values, ",") != "512,1024,4096" {
		t.Errorf("dm read-ahead: %+v", k)
	}
	j := &JournalApplier{Sys: sys}
	if line, _ := j.udevLine("/sys/block/dm-0/queue/read_ahead_kb", "1024"); line != `ACTION=="add|change", SUBSYSTEM=="block", ENV{DM_UUID}=="CRYPT-LUKS2-abc-data", ATTR{queue/read_ahead_kb}="1024"` {
		t.Errorf("dm udev line: %s", line)
	}
	if line, _ := j.udevLine("/sys/block/md0/md/stripe_cache_size", "4096"); line != `ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="md0", ATTR{md/stripe_cache_size}="4096"` {
		t.Errorf("md udev line: %s", line)
	}
}

// A small box: read-ahead above the audit's cap for its RAM is not tried.
func TestReadAheadCappedOnSmallBox(t *testing.T) {
	sys := sysTree(t)
	h := &facts.Host{Memory: facts.Memory{TotalBytes: 128 << 20}}
	k := Knobs(sys, []Device{{Name: "sda", Kind: "disk", PageCache: true}}, h)
	if len(k) == 0 || k[0].Attr != "read_ahead_kb" || strings.Join(k[0].Values, ",") != "512" {
		t.Fatalf("128 MiB box: %+v", k)
	}
}

// Under a loop device in direct-I/O mode the page cache never reaches the
// disk: its read-ahead is not a knob of this path.
func TestNoReadAheadBelowDirectIOLoop(t *testing.T) {
	sys := sysTree(t)
	k := Knobs(sys, []Device{{Name: "sda", Kind: "disk", PageCache: false}}, nil)
	// The disk's other knobs stay offered: an empty list would pass the
	// loop below without testing anything.
	if len(k) == 0 {
		t.Fatal("no knobs at all for sda: the scheduler and nr_requests should remain")
	}
	for _, x := range k {
		if x.Attr == "read_ahead_kb" {
			t.Errorf("read-ahead offered below a direct-I/O loop: %+v", x)
		}
	}
}

// Kinds come from internal/blockdev: zram and nbd are named as such (tune
// said "ram" and "disk" before), an nbd device keeps its queue knobs, and
// a partition is named in the via of its disk.
func TestResolveKinds(t *testing.T) {
	sys := sysTree(t)
	for _, d := range []struct{ name, dev, attr string }{{"zram0", "252:0", "initstate"}, {"nbd0", "43:0", ""}} {
		dir := filepath.Join(sys, "devices/virtual/block", d.name)
		os.MkdirAll(filepath.Join(dir, "queue"), 0o755)
		os.WriteFile(filepath.Join(dir, "dev"), []byte(d.dev+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "queue/scheduler"), []byte("[none] mq-deadline\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "queue/nr_requests"), []byte("128\n"), 0o644)
		if d.attr != "" {
			os.WriteFile(filepath.Join(dir, d.attr), []byte("1\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "disksize"), []byte("1073741824\n"), 0o644)
		}
		for _, l := range []string{"block/", "class/block/"} {
			if err := os.Symlink(dir, filepath.Join(sys, l+d.name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := Resolver{Sys: sys}
	var out []Device
	for _, n := range []string{"zram0", "nbd0"} {
		if err := r.walkName(n, "test", true, &out, map[string]bool{}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(out) != 2 || out[0].Kind != "zram" || out[1].Kind != "nbd" {
		t.Fatalf("kinds: %+v", out)
	}
	var attrs []string
	for _, k := range Knobs(sys, out, nil) {
		attrs = append(attrs, k.Device+"/"+k.Attr)
	}
	// zram is bio-based: no scheduler; nbd queues requests as a disk does.
	if got := strings.Join(attrs, " "); !strings.Contains(got, "nbd0/scheduler") || !strings.Contains(got, "nbd0/nr_requests") || strings.Contains(got, "zram0/scheduler") {
		t.Errorf("knobs: %s", got)
	}
	out = nil
	if err := r.walkDev(blockdev.Device{Name: "sda1", Partition: true, Whole: "sda", Kind: "disk"}, "filesystem of /srv", true, &out, map[string]bool{}, 0); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != "sda" || out[0].Via != "filesystem of /srv (partition sda1)" {
		t.Errorf("partition: %+v", out)
	}
}

// This machine: a folder's devices, top first, each a whole device of
// /sys/block; or, where it is on no block device, an error that says so.
func TestResolveLive(t *testing.T) {
	devs, err := DefaultResolver.Resolve(t.TempDir())
	if err != nil {
		if !strings.Contains(err.Error(), "nothing to tune") && !strings.Contains(err.Error(), "block device") {
			t.Errorf("error: %v", err)
		}
		t.Skipf("no block device under the temporary folder: %v", err)
	}
	for _, d := range devs {
		if _, err := os.Stat("/sys/block/" + d.Name); err != nil || d.Kind == "" {
			t.Errorf("%+v: %v", d, err)
		}
	}
	if !devs[0].PageCache {
		t.Errorf("the filesystem's device reads through the page cache: %+v", devs[0])
	}
}

// A btrfs RAID1 over two loop devices (fixture.BtrfsRAID1): both members
// are resolved, each named as a member of the filesystem, none read by the
// page cache through its own queue (btrfs reads through its own bdi), so
// tune offers each member its queue knobs and neither read-ahead. Below
// them: the disk holding their backing files.
func TestResolveBtrfsRAID1(t *testing.T) {
	mnt, devs, uuid, child := fixture.BtrfsChild(t)
	if !child {
		t.Logf("child:\n%s", fixture.BtrfsRAID1(t, "TestResolveBtrfsRAID1", "TUNE-BTRFS-OK"))
		return
	}
	got, err := DefaultResolver.Resolve(mnt)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range got {
		t.Logf("%+v", d)
		if d.Kind != "loop" { // the disk under the loops' backing files
			if !strings.HasPrefix(d.Via, "backing file of loop") {
				t.Errorf("%+v: want a member or the disk under a member", d)
			}
			continue
		}
		names = append(names, d.Name)
		if d.PageCache || d.Via != "member of btrfs "+uuid {
			t.Errorf("%+v", d)
		}
	}
	want := []string{filepath.Base(devs[0]), filepath.Base(devs[1])}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("resolved %v, want %v", names, want)
	}
	per := map[string][]string{}
	for _, k := range Knobs("/sys", got, nil) {
		per[k.Device] = append(per[k.Device], k.Attr)
	}
	for _, n := range want {
		if slices.Contains(per[n], "read_ahead_kb") || !slices.Contains(per[n], "nr_requests") {
			t.Errorf("%s: knobs %v, want nr_requests and no read_ahead_kb", n, per[n])
		}
	}
	t.Log("TUNE-BTRFS-OK")
}
