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
	f, err := os.Create(filepath.Join(mnt, "nastune-bench.dat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		t.Fatal(err)
	}
	dev, mem := backing(int(f.Fd()), fs)
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
	if err := unix.Fstatfs(int(p.Fd()), &fs); err != nil {
		t.Fatal(err)
	}
	if dev, _ := backing(int(p.Fd()), fs); !strings.HasPrefix(dev, "unknown (") || !strings.Contains(dev, "not a block device") {
		t.Errorf("a file on proc: device %q, want unknown (… not a block device …)", dev)
	}
	t.Log("BENCH-BTRFS-OK")
}
