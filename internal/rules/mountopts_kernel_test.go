package rules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// The running kernel is the oracle for the ext4 rows of the mount option
// table: on a loop-device ext4 in a private mount namespace, every option
// the table says this kernel refuses makes mount fail, and every one it
// says the kernel accepts (ignored, harmful, or refused only by a later
// kernel) mounts.
func TestMountOptionTableRealKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a loop device")
	}
	for _, tool := range []string{"unshare", "mkfs.ext4", "mount", "umount"} {
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
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "ext4.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	mounts := func(opt string) bool {
		// One namespace per try: nothing leaks to the host's mount table,
		// and the loop device is released with the unmount.
		script := `mount -o loop,"$1" "$2" "$3" || exit 3; umount "$3"`
		err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", opt, img, mnt).Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
			return false
		}
		if err != nil {
			t.Fatalf("unshare mount -o %s: %v", opt, err)
		}
		return true
	}
	if !mounts("noatime") {
		t.Fatal("a plain ext4 mount fails here; the oracle cannot judge")
	}
	judged := 0
	for _, m := range mountOptions {
		if m.fs != "ext4" {
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
			}
			if _, _, ok := lookupMountOption("ext4", o); !ok {
				t.Fatalf("table entry %q not found by its own name", o)
			}
			v := judgeMountOption(m, k, false)
			if got := mounts(o); got == v.fails {
				t.Errorf("Linux %d.%d: the table says fails=%v for ext4 -o %s, the kernel mounted=%v", k.Major, k.Minor, v.fails, o, got)
			}
			judged++
		}
	}
	if judged < 10 {
		t.Fatalf("only %d ext4 options judged", judged)
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
