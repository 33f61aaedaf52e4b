package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// The running kernel is the oracle for the ext4 and XFS rows of the mount
// option table: on a loop-device filesystem in a private mount namespace, every option
// the table says this kernel refuses makes mount fail, and every one it
// says the kernel accepts (ignored, harmful, or refused only by a later
// kernel) mounts.
func TestMountOptionTableRealKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a loop device")
	}
	for _, tool := range []string{"unshare", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not installed (util-linux, e2fsprogs)", tool)
			}
			t.Skip(tool + " not installed")
		}
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		t.Skip("no loop devices here")
	}
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	k := kernelOf(strings.TrimSpace(string(rel)))
	if !k.Known() {
		t.Fatalf("kernel release %q not parsed", rel)
	}
	for _, fs := range []struct{ name, mkfs, force string }{{"ext4", "mkfs.ext4", "-F"}, {"xfs", "mkfs.xfs", "-f"}} {
		t.Run(fs.name, func(t *testing.T) { oracleMountOptions(t, k, fs.name, fs.mkfs, fs.force) })
	}
}

func oracleMountOptions(t *testing.T, k facts.Kernel, fsName, mkfs, force string) {
	if _, err := exec.LookPath(mkfs); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not installed (e2fsprogs, xfsprogs)", mkfs)
		}
		t.Skip(mkfs + " not installed")
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, fsName+".img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Sparse: mkfs.xfs wants 300 MiB, few blocks are written.
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", force, img).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", mkfs, err, out)
	}
	mounts := func(opt string) bool {
		// One namespace per try: nothing leaks to the host's mount table,
		// and the loop device is released with the unmount.
		script := `mount -t "$4" -o loop,"$1" "$2" "$3" 2>/dev/null || exit 3; umount "$3"`
		err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", opt, img, mnt, fsName).Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
			return false
		}
		if err != nil {
			t.Fatalf("unshare mount -o %s: %v", opt, err)
		}
		return true
	}
	if !mounts("noatime") {
		t.Fatalf("a plain %s mount fails here; the oracle cannot judge", fsName)
	}
	judged := 0
	for _, m := range mountOptions {
		if m.fs != fsName {
			continue
		}
		for _, n := range m.names {
			o := n
			switch {
			case m.flag:
				o = n + "=async"
			case m.value == valueNumber:
				o = n + "=1"
			case m.value == valueAny:
				o = n + "=none"
			case n == "ihashsize":
				o = n + "=1024"
			}
			if _, _, ok := lookupMountOption(fsName, o); !ok {
				t.Fatalf("table entry %q not found by its own name", o)
			}
			v := judgeMountOption(m, k, false)
			if got := mounts(o); got == v.fails {
				t.Errorf("Linux %d.%d: the table says fails=%v for %s -o %s, the kernel mounted=%v", k.Major, k.Minor, v.fails, fsName, o, got)
			}
			judged++
		}
	}
	if judged < 8 {
		t.Fatalf("only %d %s options judged", judged, fsName)
	}
}

func kernelOf(release string) facts.Kernel {
	var k facts.Kernel
	k.Release = release
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return k
	}
	atoi := func(s string) int {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	k.Major, k.Minor = atoi(parts[0]), atoi(parts[1])
	return k
}
