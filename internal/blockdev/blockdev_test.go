package blockdev

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/realcorpus"
)

// sysfs is a machine laid out as the kernel does it (drivers/base/core.c,
// block/genhd.c, block/partitions/core.c): /sys/block/NAME and
// /sys/class/block/NAME link into /sys/devices, a partition is a folder
// inside its disk's folder with a "partition" attribute, /sys/dev/block
// links every MAJ:MIN, hardware disks have a device/ link, and md, dm,
// loop and zram add their own attributes.
func sysfs(t *testing.T) (string, Sys) {
	t.Helper()
	return sysfsWith(t, nil)
}

// sysfsWith is sysfs with extra files (fixture.WriteTree's notation).
func sysfsWith(t *testing.T, extra map[string]string) (string, Sys) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for k, v := range extra {
		files[k] = v
	}
	dev := func(real, name, majmin string, attrs map[string]string) {
		files["sys/"+real+"/dev"] = majmin + "\n"
		for k, v := range attrs {
			files["sys/"+real+"/"+k] = v
		}
		up := "../.."
		files["sys/class/block/"+name+" -> "+up+"/"+real] = ""
		files["sys/dev/block/"+majmin+" -> "+up+"/"+real] = ""
		if attrs["partition"] == "" {
			files["sys/block/"+name+" -> ../"+real] = ""
		}
	}
	sd := "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0"
	files["sys/"+sd+"/type"] = "0\n"
	files["sys/"+sd+"/driver -> ../../../../../../../bus/scsi/drivers/sd"] = ""
	dev(sd+"/block/sda", "sda", "8:0", map[string]string{"device -> ../../../0:0:0:0": ""})
	dev(sd+"/block/sda/sda1", "sda1", "8:1", map[string]string{"partition": "1\n", "holders/md127 -> ../../../../../../../../../virtual/block/md127": ""})
	dev(sd+"/block/sda/sda2", "sda2", "8:2", map[string]string{"partition": "2\n"})
	sr := "devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0"
	files["sys/"+sr+"/type"] = "5\n"
	dev(sr+"/block/sr0", "sr0", "11:0", map[string]string{"device -> ../../../1:0:0:0": "", "removable": "1\n"})
	nv := "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"
	files["sys/"+nv+"/model"] = "Samsung SSD 980\n"
	dev(nv+"/nvme0n1", "nvme0n1", "259:0", map[string]string{"device -> ../../nvme0": ""})
	dev(nv+"/nvme0n1/nvme0n1p1", "nvme0n1p1", "259:1", map[string]string{"partition": "1\n"})
	mmc := "devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa"
	files["sys/"+mmc+"/type"] = "SD\n" // an MMC card's type: not a SCSI type
	dev(mmc+"/block/mmcblk0", "mmcblk0", "179:0", map[string]string{"device -> ../../../mmc0:aaaa": ""})
	dev(mmc+"/block/mmcblk0/mmcblk0p1", "mmcblk0p1", "179:1", map[string]string{"partition": "1\n"})
	vd := "devices/pci0000:00/0000:00:04.0/virtio2"
	dev(vd+"/block/vda", "vda", "254:0", map[string]string{"device -> ../../../virtio2": ""})
	v := "devices/virtual/block/"
	dev(v+"zram0", "zram0", "252:0", map[string]string{"initstate": "1\n", "disksize": "8589934592\n", "comp_algorithm": "lzo [zstd]\n"})
	dev(v+"nbd0", "nbd0", "43:0", nil)
	dev(v+"ram0", "ram0", "1:0", nil)
	dev(v+"loop0", "loop0", "7:0", map[string]string{"loop/backing_file": "/srv/images/data.img\n", "loop/dio": "1\n"})
	dev(v+"loop1", "loop1", "7:1", map[string]string{"loop/backing_file": "/tmp/old.img (deleted)\n", "loop/dio": "0\n"})
	dev(v+"loop7", "loop7", "7:7", nil) // not bound: no loop/ folder
	dev(v+"dm-0", "dm-0", "253:0", map[string]string{"dm/name": "vg-data\n", "dm/uuid": "LVM-abc\n",
		"slaves/loop0 -> ../../loop0": ""})
	dev(v+"md127", "md127", "9:127", map[string]string{"md/level": "raid1\n",
		"slaves/sda1 -> ../../../../pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1":  "",
		"slaves/nvme0n1p1 -> ../../../../pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1/nvme0n1p1": ""})
	dev(v+"md127/md127p1", "md127p1", "259:2", map[string]string{"partition": "1\n"})
	// A dm device named like an md array: sysfs says dm.
	dev(v+"dm-1", "dm-1", "253:1", map[string]string{"dm/name": "md-lookalike\n"})
	fixture.WriteTree(t, dir, files)
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, New(root)
}

func TestLookup(t *testing.T) {
	_, s := sysfs(t)
	for _, c := range []struct {
		name, whole, kind string
		part              bool
	}{
		{"sda", "sda", Disk, false},
		{"sda1", "sda", Disk, true},
		{"sr0", "sr0", Optical, false},
		{"nvme0n1", "nvme0n1", Disk, false},
		{"nvme0n1p1", "nvme0n1", Disk, true},
		{"mmcblk0", "mmcblk0", Disk, false},
		{"mmcblk0p1", "mmcblk0", Disk, true},
		{"vda", "vda", Disk, false},
		{"zram0", "zram0", ZRAM, false},
		{"nbd0", "nbd0", NBD, false},
		{"ram0", "ram0", RAM, false},
		{"loop0", "loop0", Loop, false},
		{"loop7", "loop7", Loop, false},
		{"dm-0", "dm-0", DM, false},
		{"dm-1", "dm-1", DM, false},
		{"md127", "md127", MD, false},
		{"md127p1", "md127", MD, true},
	} {
		d, err := s.Lookup(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := Device{Name: c.name, Partition: c.part, Whole: c.whole, Kind: c.kind}
		if d != want {
			t.Errorf("%s: %+v, want %+v", c.name, d, want)
		}
		if !c.part {
			if k := s.Kind(c.name); k != c.kind {
				t.Errorf("Kind(%s) = %s, want %s", c.name, k, c.kind)
			}
		}
	}
}

func TestByDev(t *testing.T) {
	_, s := sysfs(t)
	for _, c := range []struct {
		maj, min    uint32
		name, whole string
	}{{8, 1, "sda1", "sda"}, {259, 1, "nvme0n1p1", "nvme0n1"}, {11, 0, "sr0", "sr0"}, {259, 2, "md127p1", "md127"}, {252, 0, "zram0", "zram0"}} {
		d, err := s.ByDev(c.maj, c.min)
		if err != nil || d.Name != c.name || d.Whole != c.whole {
			t.Errorf("%d:%d: %+v %v, want %s in %s", c.maj, c.min, d, err, c.name, c.whole)
		}
	}
	if _, err := s.ByDev(8, 99); err == nil {
		t.Error("8:99 does not exist: want an error")
	}
}

// The layers: md over partitions of two disks, dm over a loop device over
// a file, a deleted backing file.
func TestLayers(t *testing.T) {
	_, s := sysfs(t)
	m, err := s.Members("md127")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range m {
		got = append(got, d.Name+">"+d.Whole+":"+d.Kind)
	}
	if strings.Join(got, " ") != "nvme0n1p1>nvme0n1:disk sda1>sda:disk" {
		t.Errorf("md127 members: %v", got)
	}
	if m, _ := s.Members("dm-0"); len(m) != 1 || m[0].Name != "loop0" || m[0].Kind != Loop {
		t.Errorf("dm-0 members: %+v", m)
	}
	if m, err := s.Members("sda"); m != nil || err != nil {
		t.Errorf("sda has no slaves/: %+v %v", m, err)
	}
	// Links gives the raw names: partitions stay partitions, and a
	// partition's holders/ is found inside its disk's folder.
	for _, c := range []struct{ name, folder, want string }{
		{"md127", Slaves, "nvme0n1p1 sda1"}, {"dm-0", Slaves, "loop0"}, {"sda1", Holders, "md127"},
		{"sda", Holders, ""}, {"sda", Slaves, ""}, {"nosuch", Holders, ""},
	} {
		if got, err := s.Links(c.name, c.folder); err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("Links(%s, %s): %q %v, want %q", c.name, c.folder, got, err, c.want)
		}
	}
	if _, err := s.Links("sda", "device"); err == nil {
		t.Error("Links(sda, device): want an error, only slaves/ and holders/ are read")
	}
	// PartLinks reads the same folder when the caller knows the disk.
	if got, err := s.PartLinks("sda", "sda1", Holders); err != nil || strings.Join(got, " ") != "md127" {
		t.Errorf("PartLinks(sda, sda1, holders): %q %v, want md127", got, err)
	}
	for _, c := range [][3]string{{"../x", "sda1", Holders}, {"sda", "a/b", Holders}, {"sda", "sda1", "device"}} {
		if _, err := s.PartLinks(c[0], c[1], c[2]); err == nil {
			t.Errorf("PartLinks%q: want an error", c)
		}
	}
	if l, ok := s.Loop("loop0"); !ok || l != (LoopFile{File: "/srv/images/data.img", DirectIO: true}) {
		t.Errorf("loop0: %+v %v", l, ok)
	}
	if l, ok := s.Loop("loop1"); !ok || l != (LoopFile{File: "/tmp/old.img", Deleted: true}) {
		t.Errorf("loop1: %+v %v", l, ok)
	}
	for _, n := range []string{"loop7", "sda", "../sda"} {
		if l, ok := s.Loop(n); ok {
			t.Errorf("%s is no bound loop device: %+v", n, l)
		}
	}
	if b, err := s.FileDevices("/srv/images/data.img"); !errors.Is(err, ErrUnknown) {
		t.Errorf("a captured tree has no device numbers of files: %+v %v, want unknown", b, err)
	}
}

// Names from a tree are checked before they become part of a path.
func TestHostileNames(t *testing.T) {
	dir, s := sysfs(t)
	for _, n := range []string{"", ".", "..", "../../etc", "sda/../sdb", "sd\x1b[31ma", strings.Repeat("a", 65), ".hidden", "sda 1"} {
		if ValidName(n) {
			t.Errorf("ValidName(%q)", n)
		}
		if _, err := s.Lookup(n); !errors.Is(err, ErrName) {
			t.Errorf("Lookup(%q): %v, want ErrName", n, err)
		}
		if k := s.Kind(n); k != Other {
			t.Errorf("Kind(%q) = %s", n, k)
		}
		if _, err := s.Members(n); !errors.Is(err, ErrName) {
			t.Errorf("Members(%q): %v", n, err)
		}
		if _, err := s.Links(n, Holders); !errors.Is(err, ErrName) {
			t.Errorf("Links(%q): %v", n, err)
		}
	}
	for _, n := range []string{"sda", "cciss!c0d0p1", "md_d0p1", "nvme10n1p12", "dm-12", "mmcblk0boot0"} {
		if !ValidName(n) {
			t.Errorf("ValidName(%q) = false", n)
		}
	}
	// A slaves/ entry with a hostile name is skipped, a partition whose
	// folder sits at the top of the tree has no valid whole device, a
	// partition attribute that is a FIFO is only looked at, a dev that is
	// not a number falls back to the name.
	fixture.WriteTree(t, dir, map[string]string{
		"sys/devices/virtual/block/md9/md/level":                  "raid1\n",
		"sys/devices/virtual/block/md9/slaves/..\x1b[2J -> ../..": "",
		"sys/block/md9 -> ../devices/virtual/block/md9":           "",
		"sys/class/block/top -> ../..":                            "",
		"sys/partition":                                           "1\n",
		"sys/devices/virtual/block/weird0/dev":                    "x:y\n",
		"sys/block/weird0 -> ../devices/virtual/block/weird0":     "",
		"sys/devices/virtual/block/loop5/loop/backing_file":       "/a\n/b\n",
		"sys/block/loop5 -> ../devices/virtual/block/loop5":       "",
	})
	if m, err := s.Members("md9"); err != nil || len(m) != 0 {
		t.Errorf("md9: %+v %v", m, err)
	}
	if l, err := s.Links("md9", Slaves); err != nil || len(l) != 0 {
		t.Errorf("md9 links: %q %v", l, err)
	}
	if d, err := s.Lookup("top"); err == nil {
		t.Errorf("top: %+v, want an error", d)
	}
	if k := s.Kind("weird0"); k != Disk {
		t.Errorf("weird0: %s", k)
	}
	if l, ok := s.Loop("loop5"); ok {
		t.Errorf("a backing file of two lines: %+v", l)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "sys/devices/virtual/block/nbd0/initstate"), 0o644); err != nil {
		t.Fatal(err)
	}
	if k := s.Kind("nbd0"); k != NBD {
		t.Errorf("nbd0 with a FIFO: %s", k)
	}
}

// A tree without /sys/class/block (older captures): partitions are found
// in their disk's folder.
func TestWithoutClassBlock(t *testing.T) {
	dir, s := sysfs(t)
	if err := os.RemoveAll(filepath.Join(dir, "sys/class")); err != nil {
		t.Fatal(err)
	}
	for name, whole := range map[string]string{"sda1": "sda", "nvme0n1p1": "nvme0n1", "md127": "md127", "mmcblk0p1": "mmcblk0"} {
		if d, err := s.Lookup(name); err != nil || d.Whole != whole {
			t.Errorf("%s: %+v %v", name, d, err)
		}
	}
	if _, err := s.Lookup("sdz1"); err == nil {
		t.Error("sdz1: want an error")
	}
}

// Captured machines: every /sys/block device of the fixture hosts and of
// the real corpus gets a kind, and the kinds agree with what the name
// prefix says except where sysfs says otherwise (listed).
func TestCapturedTrees(t *testing.T) {
	dirs := map[string]string{}
	for _, h := range fixture.HostNames(t) {
		dirs["hosts/"+h] = fixture.HostDir(t, h)
	}
	trees, err := realcorpus.AllTrees()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trees {
		dirs["real/"+tr] = t.TempDir()
		if err := fixture.UnpackFile(filepath.Join(realcorpus.TreeDir(tr), "tree.txtar"), dirs["real/"+tr]); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{ // host device → kind, spot checks
		"hosts/modern-nvme zram0":      ZRAM,
		"hosts/modern-nvme nvme0n1":    Disk,
		"hosts/modern-nvme dm-0":       DM,
		"hosts/modern-nvme loop0":      Loop,
		"hosts/health-usb mmcblk0":     Disk,
		"hosts/health-usb md0":         MD,
		"real/node-exporter-host md0":  MD,
		"real/node-exporter-host dm-5": DM,
	}
	seen := 0
	for h, d := range dirs {
		root, err := hostfs.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		s := New(root)
		ents, _ := root.ReadDir("/sys/block")
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		for _, n := range names {
			k := s.Kind(n)
			if w, ok := want[h+" "+n]; ok {
				seen++
				if k != w {
					t.Errorf("%s %s: %s, want %s", h, n, k, w)
				}
			}
			if b := byName(n); k != b {
				t.Errorf("%s %s: sysfs says %s, the name %s", h, n, k, b)
			}
		}
		if h == "hosts/modern-nvme" {
			if d, err := s.Lookup("nvme0n1p1"); err != nil || d.Whole != "nvme0n1" || !d.Partition {
				t.Errorf("%s nvme0n1p1: %+v %v", h, d, err)
			}
			if !slices.Contains(names, "zram0") {
				t.Errorf("%s: no zram0 in /sys/block", h)
			}
		}
		root.Close()
	}
	if seen != len(want) {
		t.Errorf("%d of %d spot checks found: a fixture changed", seen, len(want))
	}
}

// Each sysfs fact decides on its own, before the name: a device whose
// name says nothing (blk0), or says the wrong thing (md9 on a SCSI disk),
// gets its kind from the fact alone.
func TestKindFromFacts(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"blk0", map[string]string{"dm/name": "x\n", "dev": "253:3\n"}, DM},
		{"blk0", map[string]string{"md/level": "raid5\n", "dev": "9:3\n"}, MD},
		{"blk0", map[string]string{"loop/backing_file": "/f\n", "dev": "7:3\n"}, Loop},
		{"blk0", map[string]string{"initstate": "0\n", "disksize": "0\n", "dev": "251:0\n"}, ZRAM},
		{"blk0", map[string]string{"initstate": "0\n", "dev": "251:0\n"}, Disk}, // one zram attribute is not enough
		{"blk0", map[string]string{"device/type": "5\n", "dev": "11:0\n"}, Optical},
		{"blk0", map[string]string{"device/type": "4\n", "dev": "11:1\n"}, Optical},
		{"blk0", map[string]string{"device/type": "0\n", "dev": "8:0\n"}, Disk},
		{"blk0", map[string]string{"dev": "43:0\n"}, NBD},
		{"blk0", map[string]string{"dev": "1:3\n"}, RAM},
		{"blk0", map[string]string{"dev": "11:0\n"}, Optical},
		{"blk0", map[string]string{"dev": "7:3\n"}, Loop},
		{"blk0", map[string]string{"dev": "2:0\n"}, Floppy},
		{"blk0", map[string]string{"dev": "31:0\n"}, MTD},
		{"blk0", map[string]string{"dev": "9:0\n"}, MD},
		{"blk0", map[string]string{"dev": "252:0\n"}, Disk},  // dynamic major, no fact: the name (no prefix: disk)
		{"zram3", map[string]string{"dev": "252:3\n"}, ZRAM}, // the same, named
		{"md9", map[string]string{"device/type": "0\n", "dev": "8:16\n"}, Disk},
		{"sr1", map[string]string{"device/type": "0\n", "dev": "8:32\n"}, Disk},
		{"ram1", map[string]string{"dev": "43:1\n"}, NBD},
		{"nbd1", map[string]string{}, NBD}, // nothing at all: the name
	} {
		dir := t.TempDir()
		files := map[string]string{"sys/block/" + c.name + " -> ../devices/x/" + c.name: ""}
		for k, v := range c.files {
			files["sys/devices/x/"+c.name+"/"+k] = v
		}
		if len(c.files) == 0 {
			files["sys/devices/x/"+c.name+"/size"] = "0\n"
		}
		fixture.WriteTree(t, dir, files)
		root, err := hostfs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if k := New(root).Kind(c.name); k != c.want {
			t.Errorf("%s %v: %s, want %s", c.name, c.files, k, c.want)
		}
		root.Close()
	}
}

// The running machine's /sys: every device gets the kind its driver's
// own attributes say, and a file here is on a whole device sysfs knows.
func TestLive(t *testing.T) {
	s := Live()
	ents, err := os.ReadDir("/sys/block")
	if err != nil || len(ents) == 0 {
		t.Skip("no /sys/block here")
	}
	for _, e := range ents {
		n := e.Name()
		k := s.Kind(n)
		var want string
		switch {
		case exists("/sys/block/" + n + "/dm"):
			want = DM
		case exists("/sys/block/" + n + "/md"):
			want = MD
		case exists("/sys/block/"+n+"/initstate") && exists("/sys/block/"+n+"/disksize"):
			want = ZRAM
		case strings.HasPrefix(n, "loop"):
			want = Loop
		case exists("/sys/block/" + n + "/device"):
			if b, _ := os.ReadFile("/sys/block/" + n + "/device/type"); strings.TrimSpace(string(b)) == "5" {
				want = Optical
			} else {
				want = Disk
			}
		default:
			want = byName(n)
		}
		if k != want {
			t.Errorf("%s: %s, want %s", n, k, want)
		}
		d, err := s.Lookup(n)
		if err != nil || d.Whole != n || d.Partition || d.Kind != k {
			t.Errorf("Lookup(%s): %+v %v", n, d, err)
		}
	}
	var fst unix.Statfs_t
	if unix.Statfs("/dev/shm", &fst) == nil && int64(fst.Type) == unix.TMPFS_MAGIC {
		if b, err := s.FileDevices("/dev/shm"); err == nil || !strings.Contains(err.Error(), "on tmpfs (source") || !strings.Contains(err.Error(), "not a block device") {
			t.Errorf("/dev/shm (tmpfs): %+v %v, want: on tmpfs, not a block device", b, err)
		}
	}
	wd, _ := os.Getwd()
	b, err := s.FileDevices(wd)
	if err != nil {
		t.Logf("this folder: %v (no block device under it here)", err)
		return
	}
	for _, d := range b.Devices {
		if !exists("/sys/block/"+d.Whole) || d.Kind == "" {
			t.Errorf("this folder is on %+v (%s): not a whole device in /sys/block", d, b.Via())
		}
	}
	if len(b.Devices) == 0 {
		t.Errorf("this folder: no device and no error")
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
