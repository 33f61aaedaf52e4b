package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/fixture"
)

// The device line of a test file on a btrfs RAID1 over two loop devices
// (fixture.BtrfsRAID1) names both members, not the mount's source alone;
// a file on a filesystem without a block device says so, not MAJ:MIN.
func TestBackingBtrfsRAID1(t *testing.T) {
	mnt, devs, _, child := fixture.BtrfsChild(t)
	if !child {
		t.Logf("child:\n%s", fixture.BtrfsRAID1(t, "TestBackingBtrfsRAID1", "BENCH-BTRFS-OK"))
		return
	}
	dev, mem := backingOfNewFile(t, mnt)
	want := filepath.Base(devs[0]) + "+" + filepath.Base(devs[1])
	if dev != want || mem != "" {
		t.Errorf("device %q memory %q, want %q", dev, mem, want)
	}
	// /proc: an anonymous device that is no btrfs
	p, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(p.Fd()), &fs); err != nil {
		t.Fatal(err)
	}
	if dev, _ := backing(int(p.Fd()), fs); !strings.HasPrefix(dev, "unknown (") || !strings.Contains(dev, "not a block device") {
		t.Errorf("a file on proc: device %q, want unknown (… not a block device …)", dev)
	}
	t.Log("BENCH-BTRFS-OK")
}

// A btrfs RAID1 whose members are loop devices backed by files on tmpfs
// measures memory, as a single such loop device does: the warning names
// every member in RAM, not only when the filesystem has one device.
func TestBackingBtrfsRAID1InMemory(t *testing.T) {
	mnt, devs, _, child := fixture.BtrfsChild(t)
	if !child {
		var fs unix.Statfs_t
		if err := unix.Statfs("/dev/shm", &fs); err != nil || int64(fs.Type) != unix.TMPFS_MAGIC {
			t.Skip("/dev/shm is not tmpfs here")
		}
		dir, err := os.MkdirTemp("/dev/shm", "nastune-btrfs-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) }) // after the loop devices are detached
		t.Logf("child:\n%s", fixture.BtrfsRAID1In(t, dir, "TestBackingBtrfsRAID1InMemory", "BENCH-BTRFS-MEM-OK"))
		return
	}
	dev, mem := backingOfNewFile(t, mnt)
	a, b := filepath.Base(devs[0]), filepath.Base(devs[1])
	if dev != a+"+"+b {
		t.Errorf("device %q, want %q", dev, a+"+"+b)
	}
	for _, d := range []string{a, b} {
		if !strings.Contains(mem, d+" (loop device backed by /dev/shm/") || !strings.Contains(mem, "on tmpfs") {
			t.Errorf("memory %q does not say %s is backed by a file on tmpfs", mem, d)
		}
	}
	t.Log("BENCH-BTRFS-MEM-OK")
}

// backingOfNewFile is backing's answer for a file created in dir.
func backingOfNewFile(t *testing.T, dir string) (dev, mem string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "nastune-bench.dat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		t.Fatal(err)
	}
	return backing(int(f.Fd()), fs)
}
