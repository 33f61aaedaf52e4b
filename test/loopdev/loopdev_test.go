// Package loopdev tests the storage probes against real block devices:
// loop devices this test creates over sparse files, formatted by the real
// mkfs.ext4 and mkfs.xfs and partitioned by sfdisk. It needs root,
// util-linux, e2fsprogs, xfsprogs and fdisk; without them it skips. Every
// loop device is detached and every file removed when the test ends.
package loopdev

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/storcmd"
	"github.com/nastune/nastune/internal/parse/superblock"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/test/testutil"
)

// image makes a sparse file of size bytes.
func image(t *testing.T, size int64) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return img
}

// loop attaches a new sparse file of size bytes and returns /dev/loopN.
func loop(t *testing.T, size int64, partscan bool) string {
	t.Helper()
	return attach(t, image(t, size), partscan)
}

func attach(t *testing.T, img string, partscan bool) string {
	t.Helper()
	args := []string{"-f", "--show"}
	if partscan {
		args = append(args, "-P")
	}
	dev := strings.TrimSpace(testutil.Run(t, "losetup", append(args, img)...))
	t.Cleanup(func() { exec.Command("losetup", "-d", dev).Run() })
	return dev
}

func geometry(t *testing.T, dev string) superblock.Geometry {
	t.Helper()
	b, err := hostfs.Live().ReadHead(dev, superblock.ReadSize)
	if err != nil {
		t.Fatal(err)
	}
	g, err := superblock.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestExt4GeometryMatchesTune2fs(t *testing.T) {
	testutil.NeedAll(t, "loop devices", "losetup", "mkfs.ext4", "tune2fs")
	for _, c := range []struct{ stride, width int }{{16, 64}, {128, 896}, {0, 0}} {
		dev := loop(t, 512<<20, false)
		args := []string{"-q", "-F", "-b", "4096"}
		if c.stride > 0 {
			args = append(args, "-E", "stride="+strconv.Itoa(c.stride)+",stripe_width="+strconv.Itoa(c.width))
		}
		testutil.Run(t, "mkfs.ext4", append(args, dev)...)
		g := geometry(t, dev)
		oracle, err := storcmd.Tune2fs([]byte(testutil.Run(t, "tune2fs", "-l", dev)))
		if err != nil {
			t.Fatal(err)
		}
		if g.Type != "ext4" || g.BlockSize != 4096 || g.Stride != c.stride || g.StripeWidth != c.width || g != oracle {
			t.Errorf("mkfs stride=%d width=%d: superblock %+v, tune2fs %+v", c.stride, c.width, g, oracle)
		}
	}
}

func TestXFSGeometryMatchesXfsDB(t *testing.T) {
	testutil.NeedAll(t, "loop devices", "losetup", "mkfs.xfs", "xfs_db")
	for _, c := range []struct {
		su         string
		sw         int
		unit, wdth int
	}{{"64k", 4, 16, 64}, {"512k", 7, 128, 896}} {
		dev := loop(t, 1<<30, false)
		testutil.Run(t, "mkfs.xfs", "-f", "-q", "-d", "su="+c.su+",sw="+strconv.Itoa(c.sw), dev)
		g := geometry(t, dev)
		db := testutil.Run(t, "xfs_db", "-r", "-c", "sb 0", "-c", "p unit width blocksize", dev)
		want := map[string]int{}
		for _, l := range strings.Split(db, "\n") {
			if k, v, ok := strings.Cut(l, " = "); ok {
				want[k], _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if g.Type != "xfs" || g.SUnit != c.unit || g.SWidth != c.wdth || g.SUnit != want["unit"] || g.SWidth != want["width"] || g.BlockSize != want["blocksize"] {
			t.Errorf("su=%s sw=%d: superblock %+v, xfs_db %v", c.su, c.sw, g, want)
		}
	}
}

// TestPartitionAlignment partitions a loop device at sectors 63 and 2048
// and checks what the live probe reads back.
func TestPartitionAlignment(t *testing.T) {
	testutil.NeedAll(t, "loop devices", "losetup", "sfdisk", "partx")
	img := image(t, 256<<20)
	cmd := exec.Command("sfdisk", "-q", img)
	cmd.Stdin = strings.NewReader("label: dos\nstart=63, size=1985\nstart=2048, size=20480\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v\n%s", err, out)
	}
	dev := attach(t, img, true)
	// Kernels built without the DOS partition parser show no partitions
	// after -P; partx adds them from user space (BLKPG) either way.
	exec.Command("partx", "-a", dev).Run()
	h := probe.Collect(context.Background(), hostfs.Live())
	name := filepath.Base(dev)
	var d *facts.BlockDevice
	for i := range h.Block {
		if h.Block[i].Name == name {
			d = &h.Block[i]
		}
	}
	if d == nil || len(d.Partitions) != 2 {
		t.Fatalf("%s: %+v", name, d)
	}
	if d.Partitions[0].StartSector != 63 || d.Partitions[1].StartSector != 2048 {
		t.Fatalf("starts: %+v", d.Partitions)
	}
	// On this 512-byte loop device both are aligned; on a 4 KiB-sector
	// disk the first is not.
	if !d.Aligned(d.Partitions[0]) || !d.Aligned(d.Partitions[1]) {
		t.Errorf("512-byte device: both partitions are aligned")
	}
	d4k := *d
	d4k.PhysBlockSize = 4096
	if d4k.Aligned(d4k.Partitions[0]) || !d4k.Aligned(d4k.Partitions[1]) {
		t.Errorf("4 KiB physical sectors: sector 63 misaligned, 2048 aligned")
	}
}

// TestApplyUndoBlockAttribute writes a real sysfs attribute through the
// apply package (read-ahead of a loop device it creates) and undoes it;
// the journal lives in a temporary folder and nothing is persisted.
func TestApplyUndoBlockAttribute(t *testing.T) {
	testutil.NeedAll(t, "loop devices", "losetup")
	dev := loop(t, 64<<20, false)
	attr := "/sys/block/" + filepath.Base(dev) + "/queue/read_ahead_kb"
	before := strings.TrimSpace(testutil.Run(t, "cat", attr))
	want := "1024"
	if before == want {
		want = "2048"
	}
	p := plan.Plan{Changes: []plan.Change{{ID: "sysfs-loop", Kind: "sysfs", Target: attr, From: before, To: want, Runtime: attr}}}
	opts := apply.Options{StateDir: t.TempDir()}
	m, err := apply.Apply(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(testutil.Run(t, "cat", attr)); got != want {
		t.Fatalf("after apply %s = %s, want %s", attr, got, want)
	}
	if _, err := apply.Undo(m.ID, opts); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(testutil.Run(t, "cat", attr)); got != before {
		t.Fatalf("after undo %s = %s, want %s", attr, got, before)
	}
}
