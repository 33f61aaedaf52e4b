package blockdev

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/fixture"
)

// Member links as the kernel makes them (fs/btrfs/sysfs.c: devices/NAME
// links to the block device's kobject; bcachefs: dev-N/block), over the
// sysfs fixture's devices. A link sits 4 folders below sys/.
const (
	fsid    = "52af78b8-59e2-4ae0-b15d-7fcfaf67d221"
	btrfsD  = "sys/fs/btrfs/" + fsid + "/"
	toSda1  = "../../../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1"
	toNvme  = "../../../../devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1/nvme0n1p1"
	toVda   = "../../../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda"
	bchUUID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	bchD    = "sys/fs/bcachefs/" + bchUUID + "/"
)

func devinfo(ids ...string) map[string]string {
	m := map[string]string{}
	for _, id := range ids {
		missing := "0\n"
		if id, ok := strings.CutSuffix(id, "!"); ok {
			m[btrfsD+"devinfo/"+id+"/missing"] = "1\n"
			continue
		}
		m[btrfsD+"devinfo/"+id+"/missing"] = missing
	}
	return m
}

func with(a map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	return a
}

// FSMembers answers with every member sysfs links and checks, or unknown.
func TestFSMembers(t *testing.T) {
	for _, c := range []struct {
		name   string
		fs     string
		uuid   string
		files  map[string]string
		count  int      // devices BTRFS_IOC_FS_INFO counts (0: not asked)
		want   []string // whole devices; nil: unknown
		reason string   // in the unknown error
	}{
		{name: "single device", fs: Btrfs, uuid: fsid,
			files: with(devinfo("1"), btrfsD+"devices/sda1 -> "+toSda1, ""),
			want:  []string{"sda1"}},
		{name: "RAID1 of two", fs: Btrfs, uuid: fsid,
			files: with(devinfo("1", "2"), btrfsD+"devices/sda1 -> "+toSda1, "", btrfsD+"devices/nvme0n1p1 -> "+toNvme, ""),
			want:  []string{"nvme0n1p1", "sda1"}},
		// The mount's source text still says /dev/sda1 (what was named
		// at mount time); the filesystem is on vda now: vda it is.
		{name: "source text stale", fs: Btrfs, uuid: fsid,
			files: with(devinfo("1"), btrfsD+"devices/vda -> "+toVda, "",
				"proc/self/mountinfo", "41 1 0:40 / /srv rw - btrfs /dev/sda1 rw\n"),
			want: []string{"vda"}},
		{name: "kernel without devinfo", fs: Btrfs, uuid: fsid,
			files: map[string]string{btrfsD + "devices/vda -> " + toVda: ""},
			want:  []string{"vda"}},
		{name: "kernel without devinfo, ioctl agrees", fs: Btrfs, uuid: fsid, count: 1,
			files: map[string]string{btrfsD + "devices/vda -> " + toVda: ""},
			want:  []string{"vda"}},
		{name: "kernel without devinfo, a device missing", fs: Btrfs, uuid: fsid, count: 2,
			files:  map[string]string{btrfsD + "devices/vda -> " + toVda: ""},
			reason: "has 2 devices, sysfs links 1 of them (a device missing"},
		// a seed's devices are linked and in devinfo, not in the
		// ioctl's count: devinfo checks them
		{name: "sprouted seed", fs: Btrfs, uuid: fsid, count: 1,
			files: with(devinfo("1", "2"), btrfsD+"devices/sda1 -> "+toSda1, "", btrfsD+"devices/vda -> "+toVda, ""),
			want:  []string{"sda1", "vda"}},
		{name: "sprouted seed, kernel without devinfo", fs: Btrfs, uuid: fsid, count: 1,
			files:  map[string]string{btrfsD + "devices/sda1 -> " + toSda1: "", btrfsD + "devices/vda -> " + toVda: ""},
			reason: "has 1 devices, sysfs links 2 (a seed device"},
		{name: "ioctl counts a device devinfo and the links lack", fs: Btrfs, uuid: fsid, count: 2,
			files:  with(devinfo("1"), btrfsD+"devices/sda1 -> "+toSda1, ""),
			reason: "has 2 devices, sysfs links 1 of them"},
		{name: "member missing (degraded)", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1", "2!"), btrfsD+"devices/sda1 -> "+toSda1, ""),
			reason: "device 2 is missing"},
		{name: "member without its link", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1", "2"), btrfsD+"devices/sda1 -> "+toSda1, ""),
			reason: "has 2 devices, sysfs links 1"},
		{name: "member gone, link dangling", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1", "2"), btrfsD+"devices/sda1 -> "+toSda1, "", btrfsD+"devices/sdb -> ../../../../devices/virtual/block/sdb", ""),
			reason: "does not resolve"},
		{name: "member renamed: link name is not its device's", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sdb -> "+toSda1, ""),
			reason: "named sdb but leads to sda1"},
		{name: "hostile: escapes /sys", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sda -> ../../../../../etc", "", "etc/passwd", "x\n"),
			reason: "outside"},
		{name: "hostile: a link loop", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sda -> sdb", "", btrfsD+"devices/sdb -> sda", ""),
			reason: "does not resolve"},
		{name: "hostile: a link into /sys/fs itself", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sda -> ../devinfo", ""),
			reason: "outside"},
		{name: "hostile: absolute target", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sda -> /etc", "", "etc/passwd", "x\n"),
			reason: "outside"},
		{name: "hostile: a look-alike folder sysfs does not call sda", fs: Btrfs, uuid: fsid,
			files: with(devinfo("1"), btrfsD+"devices/sda -> ../../../../devices/fake/block/sda", "",
				"sys/devices/fake/block/sda/dev", "8:0\n"),
			reason: "is not the folder the link leads to"},
		{name: "hostile: a link name that is no device name", fs: Btrfs, uuid: fsid,
			files:  with(devinfo("1"), btrfsD+"devices/sd\x1b[2Ja -> "+toSda1, ""),
			reason: "not a block device name"},
		{name: "hostile: UUID with a path in it", fs: Btrfs, uuid: "../../../etc/passwd",
			reason: "not a UUID"},
		{name: "not mounted here", fs: Btrfs, uuid: fsid,
			reason: "cannot be read"},
		{name: "bcachefs of two", fs: Bcachefs, uuid: bchUUID,
			files: map[string]string{bchD + "dev-0/block -> " + toSda1: "", bchD + "dev-1/block -> " + toVda: "", bchD + "dev-1/label": "hdd\n"},
			want:  []string{"sda1", "vda"}},
		{name: "bcachefs member offline", fs: Bcachefs, uuid: bchUUID,
			files:  map[string]string{bchD + "dev-0/block -> " + toSda1: "", bchD + "dev-1/label": "hdd\n"},
			reason: "dev-1: its link does not resolve"},
		{name: "another filesystem", fs: "zfs", uuid: fsid,
			reason: "not a multi-device filesystem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, s := sysfsWith(t, c.files)
			got, err := s.fsMembers(c.fs, c.uuid, c.count)
			if c.want == nil {
				if err == nil || !errors.Is(err, ErrUnknown) || !strings.HasPrefix(err.Error(), "unknown: ") || !strings.Contains(err.Error(), c.reason) {
					t.Fatalf("FSMembers = %+v, %v; want unknown: …%s…", got, err, c.reason)
				}
				if strings.ContainsRune(err.Error(), 0x1b) {
					t.Errorf("a control character from the tree reached the error: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, d := range got {
				names = append(names, d.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("FSMembers = %v, want %v", names, c.want)
			}
		})
	}
}

// A member that is a partition is described as one: tune tunes its disk.
func TestFSMembersPartition(t *testing.T) {
	_, s := sysfsWith(t, with(devinfo("1"), btrfsD+"devices/sda1 -> "+toSda1, ""))
	got, err := s.FSMembers(Btrfs, fsid)
	if err != nil || len(got) != 1 || got[0] != (Device{Name: "sda1", Partition: true, Whole: "sda", Kind: Disk}) {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestFormatUUID(t *testing.T) {
	b := []byte{0x52, 0xaf, 0x78, 0xb8, 0x59, 0xe2, 0x4a, 0xe0, 0xb1, 0x5d, 0x7f, 0xcf, 0xaf, 0x67, 0xd2, 0x21}
	if u := formatUUID(b); u != fsid || !ValidUUID(u) {
		t.Errorf("%q", u)
	}
	for _, bad := range []string{"", fsid[:35], strings.ToUpper(fsid), strings.Replace(fsid, "-", "x", 1), fsid + "0"} {
		if ValidUUID(bad) {
			t.Errorf("ValidUUID(%q)", bad)
		}
	}
}

// A real btrfs RAID1 over two loop devices this test makes, mounted in a
// mount namespace of its own (fixture.BtrfsRAID1): FileDevices names both
// loops, for a file in the top subvolume and one in a subvolume (another
// anonymous device number, not the mount's), with the FSID blkid reads
// from the loops. The filesystem reads through a bdi of its own
// (/sys/fs/btrfs/<FSID>/bdi), not a member's: why tune gives members no
// read-ahead.
func TestBtrfsRAID1Live(t *testing.T) {
	mnt, devs, uuid, child := fixture.BtrfsChild(t)
	if !child {
		t.Logf("child:\n%s", fixture.BtrfsRAID1(t, "TestBtrfsRAID1Live", "BTRFS-CHILD-OK"))
		return
	}
	if out, err := exec.Command("btrfs", "subvolume", "create", filepath.Join(mnt, "sub")).CombinedOutput(); err != nil {
		t.Fatalf("btrfs subvolume create: %v\n%s", err, out)
	}
	var want []string
	for _, d := range devs {
		want = append(want, filepath.Base(d))
	}
	slices.Sort(want)
	s := Live()
	for _, f := range []string{filepath.Join(mnt, "f"), filepath.Join(mnt, "sub", "g")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := s.FileDevices(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var st unix.Stat_t
		unix.Stat(f, &st)
		t.Logf("%s (st_dev %d:%d): %v, %s", f, unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), b.Names(), b.Via()) //nolint:unconvert
		got := b.Names()
		slices.Sort(got)
		if !slices.Equal(got, want) || b.FS != Btrfs || b.UUID != uuid || b.Via() != "member of btrfs "+uuid {
			t.Errorf("%s: %+v, want %v of btrfs %s", f, b, want, uuid)
		}
		for _, d := range b.Devices {
			if d.Kind != Loop || d.Partition {
				t.Errorf("%s: member %+v", f, d)
			}
		}
	}
	bdi, err := filepath.EvalSymlinks("/sys/fs/btrfs/" + uuid + "/bdi")
	if err != nil {
		t.Fatalf("the filesystem's bdi: %v", err)
	}
	for _, d := range want {
		if own, err := filepath.EvalSymlinks("/sys/block/" + d + "/bdi"); err != nil || own == bdi {
			t.Errorf("%s's bdi %s %v: want another than the filesystem's %s", d, own, err, bdi)
		}
	}
	t.Logf("filesystem bdi %s", bdi)

	// One member gone: detached, forgotten, the filesystem mounted
	// degraded from the other. Its members are unknown now, not "the one
	// that is left".
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatalf("umount: %v", err)
	}
	if out, err := exec.Command("btrfs", "device", "scan", "--forget", devs[1]).CombinedOutput(); err != nil {
		t.Fatalf("btrfs device scan --forget %s: %v\n%s", devs[1], err, out)
	}
	if out, err := exec.Command("losetup", "-d", devs[1]).CombinedOutput(); err != nil {
		t.Fatalf("losetup -d %s: %v\n%s", devs[1], err, out)
	}
	if out, err := exec.Command("mount", "-t", "btrfs", "-o", "degraded", devs[0], mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount -o degraded %s: %v\n%s", devs[0], err, out)
	}
	b, err := s.FileDevices(filepath.Join(mnt, "f"))
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), uuid) {
		t.Errorf("degraded, one member gone: %+v %v, want unknown", b, err)
	}
	t.Logf("degraded: %v", err)
	t.Log("BTRFS-CHILD-OK")
}

// A btrfs sprouted from a seed device (btrfstune -S 1, btrfs device add,
// remount rw): a file written before the sprout is read from the seed, so
// both loops are its devices. BTRFS_IOC_FS_INFO counts the sprout's
// devices only, while /sys/fs/btrfs/<FSID>/devices and devinfo list the
// seed's too (fs/btrfs/sysfs.c btrfs_sysfs_add_fs_devices): with devinfo,
// its count is the one that checks the links.
func TestBtrfsSeedLive(t *testing.T) {
	mnt, devs, _, child := fixture.BtrfsChild(t)
	if !child {
		if _, err := exec.LookPath("btrfstune"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("needs btrfstune (btrfs-progs, scripts/ensure-deps.sh)")
			}
			t.Skip("needs btrfstune")
		}
		t.Logf("child:\n%s", fixture.BtrfsRAID1(t, "TestBtrfsSeedLive", "BTRFS-SEED-OK"))
		return
	}
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	// the RAID1 BtrfsChild mounted makes way for a seed on devs[0]
	run("umount", mnt)
	run("btrfs", "device", "scan", "--forget")
	run("mkfs.btrfs", "-q", "-f", devs[0])
	run("mount", "-t", "btrfs", devs[0], mnt)
	old := filepath.Join(mnt, "old")
	if err := os.WriteFile(old, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	run("umount", mnt)
	run("btrfstune", "-S", "1", devs[0])
	run("mount", "-t", "btrfs", devs[0], mnt) // read-only: a seed
	run("btrfs", "device", "add", "-f", devs[1], mnt)
	run("mount", "-o", "remount,rw", mnt)
	want := []string{filepath.Base(devs[0]), filepath.Base(devs[1])}
	slices.Sort(want)
	b, err := Live().FileDevices(old)
	if err != nil {
		t.Fatalf("%s: %v", old, err)
	}
	got := b.Names()
	slices.Sort(got)
	if !slices.Equal(got, want) || b.FS != Btrfs {
		t.Errorf("%s on a sprouted seed: %+v, want %v", old, b, want)
	}
	t.Logf("%v, %s", b.Names(), b.Via())
	t.Log("BTRFS-SEED-OK")
}

// FileDevices opens a file only to ask btrfs or bcachefs (their ioctls
// need an open file): a file elsewhere is judged from its path, never
// opened, since opening and closing a pseudo-file can act (closing
// tracefs's free_buffer frees the trace buffer). A write-only sysfs
// attribute, which sysfs refuses to open for reading, shows it: the answer
// is that sysfs has no block device, not the refusal.
func TestFileDevicesOpensOnlyBtrfs(t *testing.T) {
	const attr = "/sys/bus/platform/drivers_probe" // 0200, every kernel with sysfs
	if _, err := os.Stat(attr); err != nil {
		t.Skipf("%s: %v", attr, err)
	}
	_, err := Live().FileDevices(attr)
	if err == nil || !strings.Contains(err.Error(), "not a block device") || strings.Contains(err.Error(), "permission denied") {
		t.Errorf("FileDevices(%s) = %v, want not a block device (without opening it)", attr, err)
	}
}
